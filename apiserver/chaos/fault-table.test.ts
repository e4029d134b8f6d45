// The fault table: spec checks, seeded draws (a run repeats with its seed),
// latency summed over faults, the first refusing fault's code, the flags
// the hot path tests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFaultSpec, FaultTable } from './fault-table.ts';
import type { RequestTarget } from './match.ts';

const get: RequestTarget = { userAgent: 'kubectl/v1.35.0', user: 'admin', verb: 'get', resource: 'pods' };

test('no fault: the hot path flags are false; a fault sets the one it needs', () => {
  const t = new FaultTable();
  assert.equal(t.requestFaults, false);
  assert.equal(t.watchFaults, false);
  t.set(checkFaultSpec({ id: 'w', watchDelayMs: 100 }));
  assert.deepEqual([t.requestFaults, t.watchFaults], [false, true]);
  t.set(checkFaultSpec({ id: 'r', latencyMs: 100 }));
  assert.deepEqual([t.requestFaults, t.watchFaults], [true, true]);
  assert.deepEqual(t.clear('w'), ['w']);
  assert.deepEqual([t.requestFaults, t.watchFaults], [true, false]);
  assert.deepEqual(t.clear(), ['r']);
  assert.deepEqual([t.requestFaults, t.watchFaults], [false, false]);
  assert.deepEqual(t.clear('gone'), []);
});

test('the same seed gives the same refusals and jitter, request after request', () => {
  const run = (seed: number) => {
    const t = new FaultTable();
    t.set(checkFaultSpec({ id: 'e', errorRate: 0.5, errorCode: 429, jitterMs: 100, seed }));
    return Array.from({ length: 40 }, () => t.request(get));
  };
  const a = run(42);
  assert.deepEqual(run(42), a);
  assert.notDeepEqual(run(43), a);
  const refused = a.filter((v) => v.error).length;
  assert.ok(refused > 8 && refused < 32, `about half of 40 refused, not ${refused}`);
  assert.ok(a.every((v) => v.delayMs >= 0 && v.delayMs < 100));
  assert.deepEqual(a.find((v) => v.error)?.error, { code: 429, faultId: 'e' });
});

test('setting a fault again by id replaces it and restarts its draws', () => {
  const t = new FaultTable();
  t.set(checkFaultSpec({ id: 'e', errorRate: 0.5, seed: 7 }));
  const first = Array.from({ length: 10 }, () => Boolean(t.request(get).error));
  t.set(checkFaultSpec({ id: 'e', errorRate: 0.5, seed: 7 }));
  assert.deepEqual(
    Array.from({ length: 10 }, () => Boolean(t.request(get).error)),
    first,
  );
  assert.equal(t.list().length, 1);
});

test('rate 1 always refuses, rate 0 never; latency adds up over matching faults only', () => {
  const t = new FaultTable();
  t.set(checkFaultSpec({ id: 'slow', latencyMs: 200 }));
  t.set(checkFaultSpec({ id: 'slower', latencyMs: 50, match: { verb: 'get' } }));
  t.set(checkFaultSpec({ id: 'other', latencyMs: 1000, match: { user: 'nobody' } }));
  assert.deepEqual(t.request(get), { delayMs: 250 });
  assert.deepEqual(t.request({ ...get, verb: 'list' }), { delayMs: 200 });
  t.set(checkFaultSpec({ id: 'fail', errorRate: 1, match: { resource: 'pods' } }));
  t.set(checkFaultSpec({ id: 'fail-too', errorRate: 1, errorCode: 504 }));
  for (let i = 0; i < 20; i++) assert.deepEqual(t.request(get).error, { code: 500, faultId: 'fail' });
  assert.deepEqual(t.request({ ...get, resource: 'nodes' }).error, { code: 504, faultId: 'fail-too' });
  t.clear();
  t.set(checkFaultSpec({ id: 'never', errorRate: 0, latencyMs: 1 }));
  for (let i = 0; i < 20; i++) assert.equal(t.request(get).error, undefined);
});

test('watch verdicts: drop or hold from any matching fault, delays summed', () => {
  const t = new FaultTable();
  const watch: RequestTarget = { ...get, verb: 'watch', user: 'system:kube-scheduler' };
  t.set(checkFaultSpec({ id: 'd1', watchDelayMs: 300, match: { user: 'system:kube-scheduler' } }));
  t.set(checkFaultSpec({ id: 'd2', watchDelayMs: 200 }));
  t.set(checkFaultSpec({ id: 'h', watchHold: true, match: { resource: 'nodes' } }));
  assert.deepEqual(t.watch(watch), { drop: false, hold: false, delayMs: 500 });
  assert.deepEqual(t.watch({ ...watch, resource: 'nodes', user: 'x' }), { drop: false, hold: true, delayMs: 200 });
  t.set(checkFaultSpec({ id: 'x', watchDrop: true, match: { userAgent: 'kube-scheduler' } }));
  assert.equal(t.watch({ ...watch, userAgent: 'kube-scheduler/v1.35' }).drop, true);
  assert.equal(t.watch(watch).drop, false);
});

test('a spec is checked field by field, with the field named', () => {
  const refused: [Record<string, unknown>, RegExp][] = [
    [{ latencyMs: 5 }, /^id: required/],
    [{ id: 'a' }, /^fault "a" does nothing/],
    [{ id: 'a', latencyMs: -1 }, /^latencyMs: must be a number of milliseconds >= 0/],
    [{ id: 'a', errorRate: 1.5 }, /^errorRate: must be a fraction from 0 to 1/],
    [{ id: 'a', errorRate: 0.5, errorCode: 503 }, /^errorCode: must be one of 500, 429, 409, 504/],
    [{ id: 'a', latencyMs: 5, errorCode: 429 }, /^errorCode: needs an errorRate above 0/],
    [{ id: 'a', watchHold: 'yes' }, /^watchHold: must be true or false/],
    [{ id: 'a', latencyMs: 5, seed: 1.5 }, /^seed: must be an integer/],
    [{ id: 'a', latencyMs: 5, dropWatches: true }, /^dropWatches: unknown field/],
    [{ id: 'a', latencyMs: 5, match: { verb: 'fetch' } }, /^match\.verb: "fetch" is not a kube verb/],
  ];
  for (const [raw, message] of refused) assert.throws(() => checkFaultSpec(raw), { message }, JSON.stringify(raw));
  const spec = checkFaultSpec({ id: 'a', latencyMs: 5, match: {} });
  assert.equal(typeof spec.seed, 'number');
  assert.equal(spec.match, undefined);
});
