// Job and CronJob rows as kubectl 1.35 prints them (Job Status column
// included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { cronJobPrinter, jobPrinter } from './batch.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
const ctx = { now: NOW };
const cond = (type: string, status = 'True') => ({ type, status });

function job(name: string, spec: Partial<NonNullable<Job['spec']>>, status: Job['status'], extra: Partial<Job['metadata']> = {}): Job {
  return {
    metadata: { name, namespace: 'default', creationTimestamp: ago(600), ...extra },
    spec: {
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'c0ffee' } },
      template: { spec: { containers: [{ name: 'pi', image: 'perl:5.34' }], restartPolicy: 'Never' } },
      ...spec,
    },
    status,
  };
}

const cases: { name: string; job: Job; cells: (string | number)[] }[] = [
  {
    name: 'completed after 1m5s',
    job: job(
      'pi',
      { completions: 1, parallelism: 1 },
      { succeeded: 1, startTime: ago(600), completionTime: ago(535), conditions: [cond('SuccessCriteriaMet'), cond('Complete')] },
    ),
    cells: ['pi', 'Complete', '1/1', '65s', '10m'],
  },
  {
    name: 'running, 2 of 5',
    job: job('batch', { completions: 5, parallelism: 2 }, { succeeded: 2, active: 2, startTime: ago(200) }),
    cells: ['batch', 'Running', '2/5', '3m20s', '10m'],
  },
  {
    name: 'work queue with parallelism 3',
    job: job('queue', { parallelism: 3 }, { active: 3, startTime: ago(45) }),
    cells: ['queue', 'Running', '0/1 of 3', '45s', '10m'],
  },
  {
    name: 'failed: backoff limit',
    job: job('fail', { completions: 1 }, { failed: 7, startTime: ago(590), conditions: [cond('FailureTarget'), cond('Failed')] }),
    cells: ['fail', 'Failed', '0/1', '9m50s', '10m'],
  },
  {
    name: 'suspended before start',
    job: job('later', { completions: 1, suspend: true }, { conditions: [cond('Suspended')] }),
    cells: ['later', 'Suspended', '0/1', '', '10m'],
  },
  {
    name: 'failure target reached, pods still terminating',
    job: job('ft', { completions: 1 }, { startTime: ago(60), conditions: [cond('FailureTarget')] }),
    cells: ['ft', 'FailureTarget', '0/1', '60s', '10m'],
  },
  {
    name: 'success policy met, not Complete yet',
    job: job(
      'sp',
      { completions: 3, completionMode: 'Indexed' },
      { succeeded: 1, startTime: ago(30), conditions: [cond('SuccessCriteriaMet')] },
    ),
    cells: ['sp', 'SuccessCriteriaMet', '1/3', '30s', '10m'],
  },
  {
    name: 'being deleted',
    job: job(
      'bye',
      { completions: 1 },
      { active: 1, startTime: ago(30), conditions: [cond('Suspended', 'False')] },
      { deletionTimestamp: ago(1) },
    ),
    cells: ['bye', 'Terminating', '0/1', '30s', '10m'],
  },
];

for (const c of cases) {
  test(`job: ${c.name}`, () => {
    const row = jobPrinter.row(c.job, ctx);
    assert.deepEqual(row.cells.slice(0, 5), c.cells);
    assert.deepEqual(row.cells.slice(5), ['pi', 'perl:5.34', 'batch.kubernetes.io/controller-uid=c0ffee']);
  });
}

test('job columns', () => {
  assert.deepEqual(
    jobPrinter.columns.map((c) => `${c.name}:${c.priority}`),
    ['Name:0', 'Status:0', 'Completions:0', 'Duration:0', 'Age:0', 'Containers:1', 'Images:1', 'Selector:1'],
  );
});

test('cronjob: schedule, timezone, suspend, active, last schedule', () => {
  const cj: CronJob = {
    metadata: { name: 'hello', namespace: 'default', creationTimestamp: ago(2 * 86400 + 3 * 3600) },
    spec: {
      schedule: '*/5 * * * *',
      suspend: false,
      jobTemplate: { spec: { template: { spec: { containers: [{ name: 'hello', image: 'busybox:1.36' }], restartPolicy: 'OnFailure' } } } },
    },
    status: { active: [{ kind: 'Job', name: 'hello-29145600' }], lastScheduleTime: ago(180) },
  };
  assert.deepEqual(cronJobPrinter.row(cj, ctx).cells, [
    'hello',
    '*/5 * * * *',
    '<none>',
    'False',
    1,
    '3m',
    '2d3h',
    'hello',
    'busybox:1.36',
    '<none>',
  ]);
  const fresh: CronJob = {
    metadata: { name: 'tz', creationTimestamp: ago(5) },
    spec: { schedule: '0 3 * * *', timeZone: 'Europe/Paris', suspend: true, jobTemplate: { spec: { template: {} } } },
  };
  assert.deepEqual(cronJobPrinter.row(fresh, ctx).cells, ['tz', '0 3 * * *', 'Europe/Paris', 'True', 0, '<none>', '5s', '', '', '<none>']);
  assert.deepEqual(
    cronJobPrinter.columns.map((c) => `${c.name}:${c.type}:${c.priority}`),
    [
      'Name:string:0',
      'Schedule:string:0',
      'Timezone:string:0',
      'Suspend:boolean:0',
      'Active:integer:0',
      'Last Schedule:string:0',
      'Age:string:0',
      'Containers:string:1',
      'Images:string:1',
      'Selector:string:1',
    ],
  );
});
