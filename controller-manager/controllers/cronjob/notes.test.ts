// The step-through notes of a CronJob sync: schedule, most recent missed time, concurrencyPolicy, next run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import { ClusterTime } from './cluster-time.ts';
import { planSchedule } from './plan.ts';
import { cronJobNotes } from './notes.ts';

const cronJob = (concurrencyPolicy: string): CronJob => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'hello', namespace: 'default', uid: 'u-1', creationTimestamp: '2026-12-02T10:00:30Z' },
  spec: {
    schedule: '*/1 * * * *',
    concurrencyPolicy,
    jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
  },
  status: {
    active: [{ kind: 'Job', namespace: 'default', name: 'hello-1', uid: 'uid-1', apiVersion: 'batch/v1' }],
    lastScheduleTime: '2026-12-02T10:01:00Z',
  },
});

test('Forbid with an active Job: the missed time is skipped and the next run is noted', () => {
  const cj = cronJob('Forbid');
  const ct = ClusterTime.of(cj, 1);
  const now = ct.cluster(Date.parse('2026-12-02T10:02:01Z'));
  assert.deepEqual(cronJobNotes(cj, planSchedule(cj, now, ct), now, ct), {
    schedule: '*/1 * * * *',
    mostRecent: 'most recent scheduled time not yet run: 2026-12-02T10:02:00Z',
    decision: 'concurrencyPolicy Forbid and 1 Job(s) still active: skip this run',
    next: 'look again for the next run at 2026-12-02T10:03:00.100Z (in 59.1s of cluster time)',
  });
});

test('Replace: the active Job is deleted and a new one created', () => {
  const cj = cronJob('Replace');
  const ct = ClusterTime.of(cj, 1);
  const now = ct.cluster(Date.parse('2026-12-02T10:02:01Z'));
  const notes = cronJobNotes(cj, planSchedule(cj, now, ct), now, ct);
  assert.match(String(notes.decision), /^concurrencyPolicy Replace: delete 1 active Job\(s\), create hello-\d+$/);
});
