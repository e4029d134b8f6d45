import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob, CronJobSpec, CronJobStatus, Job } from 'kubernetes-types/batch/v1.js';
import { ClusterTime } from './cluster-time.ts';
import { jobsBeyondHistory, planSchedule, rfc1123z } from './plan.ts';
import { SCHEDULED_TIMESTAMP } from './utils.ts';

const T = (s: string) => Date.parse(s);
const minutes = (s: string) => T(s) / 60_000;
const CREATED = '2026-12-02T10:00:30Z';

function cronJob(spec: Partial<CronJobSpec> = {}, status: CronJobStatus = {}, meta: { deletionTimestamp?: string } = {}): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'hello', namespace: 'default', uid: 'u-1', creationTimestamp: CREATED, ...meta },
    spec: {
      schedule: '*/1 * * * *',
      concurrencyPolicy: 'Allow',
      suspend: false,
      jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } },
      ...spec,
    },
    status,
  };
}
const active = (name: string, uid = `uid-${name}`) => ({ kind: 'Job', namespace: 'default', name, uid, apiVersion: 'batch/v1' });

describe('planSchedule', () => {
  const cases: {
    name: string;
    cj: CronJob;
    now: string;
    speed?: number;
    want: { create?: string; replace?: string[]; events?: string[]; requeue?: number | 'none'; annotation?: string };
  }[] = [
    {
      name: 'not yet time: wait for the next activation',
      cj: cronJob(),
      now: '2026-12-02T10:00:40Z',
      want: { events: [], requeue: 20_100 },
    },
    {
      name: 'time: create NAME-minutes',
      cj: cronJob(),
      now: '2026-12-02T10:01:00.050Z',
      want: { create: `hello-${minutes('2026-12-02T10:01:00Z')}`, replace: [], events: [], annotation: '2026-12-02T10:01:00Z' },
    },
    {
      name: 'Allow runs alongside an active Job',
      cj: cronJob({}, { active: [active('hello-1')], lastScheduleTime: '2026-12-02T10:01:00Z' }),
      now: '2026-12-02T10:02:01Z',
      want: { create: `hello-${minutes('2026-12-02T10:02:00Z')}`, replace: [], events: [] },
    },
    {
      name: 'Forbid with an active Job',
      cj: cronJob({ concurrencyPolicy: 'Forbid' }, { active: [active('hello-1')], lastScheduleTime: '2026-12-02T10:01:00Z' }),
      now: '2026-12-02T10:02:01Z',
      want: {
        events: ['Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid'],
        requeue: 59_100,
      },
    },
    {
      name: 'Forbid without an active Job',
      cj: cronJob({ concurrencyPolicy: 'Forbid' }, { lastScheduleTime: '2026-12-02T10:01:00Z' }),
      now: '2026-12-02T10:02:01Z',
      want: { create: `hello-${minutes('2026-12-02T10:02:00Z')}`, replace: [] },
    },
    {
      name: 'Replace deletes the active Jobs first',
      cj: cronJob(
        { concurrencyPolicy: 'Replace' },
        { active: [active('hello-1'), active('hello-2')], lastScheduleTime: '2026-12-02T10:01:00Z' },
      ),
      now: '2026-12-02T10:02:01Z',
      want: { create: `hello-${minutes('2026-12-02T10:02:00Z')}`, replace: ['hello-1', 'hello-2'] },
    },
    {
      name: 'suspended: nothing, and no requeue',
      cj: cronJob({ suspend: true }),
      now: '2026-12-02T10:05:00Z',
      want: { events: [], requeue: 'none' },
    },
    {
      name: 'already scheduled (lastScheduleTime)',
      cj: cronJob({}, { lastScheduleTime: '2026-12-02T10:01:00Z' }),
      now: '2026-12-02T10:01:30Z',
      want: { events: [], requeue: 30_100 },
    },
    {
      name: 'already scheduled (the Job of that minute is active)',
      cj: cronJob({}, { active: [active(`hello-${minutes('2026-12-02T10:01:00Z')}`)] }),
      now: '2026-12-02T10:01:30Z',
      want: { events: [], requeue: 30_100 },
    },
    {
      name: 'being deleted',
      cj: cronJob({}, {}, { deletionTimestamp: '2026-12-02T10:00:50Z' }),
      now: '2026-12-02T10:05:00Z',
      want: { events: [], requeue: 'none' },
    },
    {
      name: 'an unknown time zone',
      cj: cronJob({ timeZone: 'Mars/Olympus' }),
      now: '2026-12-02T10:05:00Z',
      want: { events: ['Warning UnknownTimeZone invalid timeZone: "Mars/Olympus": unknown time zone Mars/Olympus'], requeue: 'none' },
    },
    {
      name: 'a time zone: 19:00 in Tokyo is 10:00 UTC, just missed at creation',
      cj: cronJob({ schedule: '0 19 * * *', timeZone: 'Asia/Tokyo' }),
      now: '2026-12-02T10:00:31Z',
      want: { events: [], requeue: 86_400_000 - 31_000 + 100 },
    },
    {
      name: 'TZ in the schedule itself is warned about',
      cj: cronJob({ schedule: 'TZ=UTC */1 * * * *' }),
      now: '2026-12-02T10:00:40Z',
      want: {
        events: [
          'Warning UnsupportedSchedule CRON_TZ or TZ used in schedule "TZ=UTC */1 * * * *" is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details',
        ],
        requeue: 20_100,
      },
    },
    {
      name: 'an unparseable schedule',
      cj: cronJob({ schedule: '* * *' }),
      now: '2026-12-02T10:05:00Z',
      want: {
        events: ['Warning UnparseableSchedule unparseable schedule: "* * *" : expected exactly 5 fields, found 3: [* * *]'],
        requeue: 'none',
      },
    },
    {
      name: 'a schedule that never fires',
      cj: cronJob({ schedule: '59 23 31 2 *' }),
      now: '2026-12-02T10:05:00Z',
      want: {
        events: ['Warning InvalidSchedule invalid schedule: 59 23 31 2 * : time difference between two schedules is less than 1 second'],
        requeue: 'none',
      },
    },
    {
      name: 'more than 100 missed: warn, and run the most recent',
      cj: cronJob({}, { lastScheduleTime: '2026-12-02T08:00:00Z' }),
      now: '2026-12-02T10:05:10Z',
      want: {
        create: `hello-${minutes('2026-12-02T10:05:00Z')}`,
        events: [
          'Warning TooManyMissedTimes too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
        ],
      },
    },
    {
      name: 'a few missed: run the most recent, no warning',
      cj: cronJob({}, { lastScheduleTime: '2026-12-02T10:00:00Z' }),
      now: '2026-12-02T10:05:10Z',
      want: { create: `hello-${minutes('2026-12-02T10:05:00Z')}`, events: [] },
    },
    {
      name: 'the starting deadline passed: skip to the next activation',
      cj: cronJob({ schedule: '0 * * * *', startingDeadlineSeconds: 30 }, { lastScheduleTime: '2026-12-02T09:00:00Z' }),
      now: '2026-12-02T10:00:45Z',
      want: { events: [], requeue: 59 * 60_000 + 15_000 + 100 },
    },
    {
      name: 'within the starting deadline',
      cj: cronJob({ schedule: '0 * * * *', startingDeadlineSeconds: 60 }, { lastScheduleTime: '2026-12-02T09:00:00Z' }),
      now: '2026-12-02T10:00:45Z',
      want: { create: `hello-${minutes('2026-12-02T10:00:00Z')}` },
    },
    {
      name: 'speed 10: 3 real seconds after creation is the first cluster minute',
      cj: cronJob(),
      now: '2026-12-02T10:00:33Z',
      speed: 10,
      want: { create: `hello-${minutes('2026-12-02T10:01:00Z')}`, annotation: '2026-12-02T10:01:00Z' },
    },
    {
      name: 'speed 10: once stamped, the same activation is not run again',
      cj: cronJob({}, { lastScheduleTime: '2026-12-02T10:00:33Z' }),
      now: '2026-12-02T10:00:35Z',
      speed: 10,
      want: { events: [], requeue: 40_100 },
    },
    {
      name: 'speed 10: the next activation 6 real seconds later',
      cj: cronJob({}, { lastScheduleTime: '2026-12-02T10:00:33Z' }),
      now: '2026-12-02T10:00:39.050Z',
      speed: 10,
      want: { create: `hello-${minutes('2026-12-02T10:02:00Z')}` },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const ct = ClusterTime.of(c.cj, c.speed ?? 1);
      const plan = planSchedule(c.cj, ct.cluster(T(c.now)), ct);
      if (c.want.events)
        assert.deepEqual(
          plan.events.map((e) => `${e.type} ${e.reason} ${e.message}`),
          c.want.events,
        );
      assert.equal(plan.create?.job.metadata!.name, c.want.create);
      if (c.want.replace)
        assert.deepEqual(
          plan.create!.replace.map((r) => r.name),
          c.want.replace,
        );
      if (c.want.requeue === 'none') assert.equal(plan.requeueAfter, undefined);
      else if (c.want.requeue !== undefined) assert.ok(Math.abs(plan.requeueAfter! - c.want.requeue) < 1, `requeue ${plan.requeueAfter}`);
      if (c.want.annotation) assert.equal(plan.create!.job.metadata!.annotations![SCHEDULED_TIMESTAMP], c.want.annotation);
    });
  }

  it('a Job in a time zone is annotated with its offset', () => {
    const cj = cronJob({ schedule: '0 19 * * *', timeZone: 'Asia/Tokyo' }, { lastScheduleTime: '2026-12-01T10:00:00Z' });
    const plan = planSchedule(cj, T('2026-12-02T10:00:31Z'), ClusterTime.of(cj, 1));
    assert.equal(plan.create!.job.metadata!.annotations![SCHEDULED_TIMESTAMP], '2026-12-02T19:00:00+09:00');
  });

  it('formats MissSchedule times as RFC1123Z', () => {
    assert.equal(rfc1123z(T('2026-12-02T10:00:00Z')), 'Wed, 02 Dec 2026 10:00:00 +0000');
  });
});

describe('jobsBeyondHistory', () => {
  const job = (name: string, cond: 'Complete' | 'Failed' | undefined, startTime: string): Job => ({
    metadata: { name },
    status: { startTime, ...(cond ? { conditions: [{ type: cond, status: 'True' }] } : {}) },
  });
  const all = [
    job('s3', 'Complete', '2026-12-02T10:03:00Z'),
    job('s1', 'Complete', '2026-12-02T10:01:00Z'),
    job('s2', 'Complete', '2026-12-02T10:02:00Z'),
    job('f1', 'Failed', '2026-12-02T10:01:30Z'),
    job('f2', 'Failed', '2026-12-02T10:02:30Z'),
    job('running', undefined, '2026-12-02T09:00:00Z'),
  ];
  const cases: { name: string; limits: Partial<CronJobSpec>; want: string[] }[] = [
    { name: 'no limits: keep everything', limits: {}, want: [] },
    { name: 'defaults (3 and 1)', limits: { successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 }, want: ['f1'] },
    { name: 'keep one success, oldest go first', limits: { successfulJobsHistoryLimit: 1 }, want: ['s1', 's2'] },
    { name: 'zero keeps none', limits: { successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0 }, want: ['s1', 's2', 's3', 'f1', 'f2'] },
  ];
  for (const c of cases)
    it(c.name, () => {
      const cj = cronJob(c.limits);
      assert.deepEqual(
        jobsBeyondHistory(cj, all).map((j) => j.metadata!.name),
        c.want,
      );
    });
  it('a Failed condition that is not True does not count', () => {
    const j: Job = { metadata: { name: 'x' }, status: { conditions: [{ type: 'Failed', status: 'False' }] } };
    assert.deepEqual(jobsBeyondHistory(cronJob({ failedJobsHistoryLimit: 0 }), [j]), []);
  });
});
