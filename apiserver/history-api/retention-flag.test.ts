import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHistoryFlag } from './retention-flag.ts';

test('--history: all, off and bounds', () => {
  assert.deepEqual(parseHistoryFlag('all'), {});
  assert.equal(parseHistoryFlag('off'), false);
  assert.deepEqual(parseHistoryFlag('revisions=100,age=24h,size=2Gi'), {
    maxRevisionsPerObject: 100,
    maxAgeMs: 86_400_000,
    maxBytes: 2 * 1024 ** 3,
  });
  assert.deepEqual(parseHistoryFlag('age=30s'), { maxAgeMs: 30_000 });
});

test('--history: a bad bound is refused with what was expected', () => {
  for (const bad of ['revisions=0', 'age=5', 'size=-1', 'forever', 'revisions=1,age=1y'])
    assert.throws(() => parseHistoryFlag(bad), /expected all, off, or a list of revisions=N/);
});
