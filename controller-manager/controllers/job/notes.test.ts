// The step-through notes of a Job sync: the want-vs-have arithmetic and why it finishes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { finishedNotes, manageNotes } from './notes.ts';
import { newCondition, type SyncCtx } from './plan.ts';

function ctx(spec: NonNullable<Job['spec']>, fields: Partial<SyncCtx>): SyncCtx {
  const job: Job = { metadata: { name: 'pi', namespace: 'default' }, spec };
  return {
    job,
    activePods: [],
    succeeded: 0,
    failed: 0,
    terminating: 0,
    newBackoffRecord: { failuresAfterLastSuccess: 0 },
    ...fields,
  } as SyncCtx;
}

const running: Pod = { metadata: { name: 'pi-a' }, status: { phase: 'Running' } };

test('manage notes show min(parallelism, completions - succeeded) against active', () => {
  const c = ctx({ parallelism: 3, completions: 5, template: {} }, { activePods: [running], succeeded: 2 });
  assert.deepEqual(manageNotes(c, { kind: 'create', count: 2 }), {
    step: 'manage',
    want: 'want min(parallelism 3, completions 5 - succeeded 2) = 3 active, have 1',
    have: { active: 1, succeeded: 2, failed: 0, terminating: 0 },
    decision: 'create 2 Pod(s)',
  });
});

test('finished notes say the backoffLimit was reached', () => {
  const c = ctx(
    { backoffLimit: 2, template: {} },
    { failed: 3, activePods: [running], finishedCondition: newCondition('Failed', 'True', 'BackoffLimitExceeded', 'x', 0) },
  );
  assert.deepEqual(finishedNotes(c), {
    step: 'finish',
    condition: 'Failed (BackoffLimitExceeded)',
    why: 'failed 3 > backoffLimit 2',
    decision: 'delete the 1 active Pod(s) and mark the Job Failed',
  });
});
