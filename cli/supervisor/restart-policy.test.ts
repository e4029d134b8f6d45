// The restart policy as a table: which deaths restart, and the backoff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextBackoff, shouldRestart } from './restart-policy.ts';

test('on-failure restarts crashes and kills, not intended stops or a clean exit; never restarts nothing', () => {
  const cases: [Parameters<typeof shouldRestart>[0], Parameters<typeof shouldRestart>[1], boolean][] = [
    ['on-failure', { code: null, signal: 'SIGKILL', intended: false }, true],
    ['on-failure', { code: 1, signal: null, intended: false }, true],
    ['on-failure', { code: 0, signal: null, intended: false }, false],
    ['on-failure', { code: null, signal: 'SIGTERM', intended: true }, false],
    ['never', { code: null, signal: 'SIGKILL', intended: false }, false],
  ];
  for (const [policy, exit, want] of cases) assert.equal(shouldRestart(policy, exit), want, JSON.stringify({ policy, exit }));
});

test('the backoff doubles with quick deaths, is capped, and resets after a healthy run', () => {
  assert.deepEqual(nextBackoff(0, 100), { delayMs: 200, quickDeaths: 1 });
  assert.deepEqual(nextBackoff(1, 100), { delayMs: 400, quickDeaths: 2 });
  assert.deepEqual(nextBackoff(10, 100), { delayMs: 10_000, quickDeaths: 11 });
  assert.deepEqual(nextBackoff(10, 60_000), { delayMs: 200, quickDeaths: 1 });
});
