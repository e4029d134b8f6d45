import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import { parseStandard } from '../../../apiserver/registry/kinds/cron.ts';
import { ClusterTime } from './cluster-time.ts';
import { byJobStartTime, jobFromTemplate, mostRecentScheduleTime, nextScheduleTimeDuration, SCHEDULED_TIMESTAMP } from './utils.ts';

const T = (s: string) => Date.parse(s);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString().replace('.000Z', 'Z'));

function cronJob(created: string, schedule: string, extra: { last?: string; deadline?: number; timeZone?: string } = {}): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'hello', namespace: 'default', uid: 'u-1', creationTimestamp: created },
    spec: {
      schedule,
      ...(extra.deadline !== undefined ? { startingDeadlineSeconds: extra.deadline } : {}),
      ...(extra.timeZone ? { timeZone: extra.timeZone } : {}),
      jobTemplate: { metadata: { labels: { app: 'hello' } }, spec: { template: { spec: { containers: [], restartPolicy: 'OnFailure' } } } },
    },
    status: extra.last ? { lastScheduleTime: extra.last } : {},
  };
}

describe('mostRecentScheduleTime', () => {
  const cases: {
    name: string;
    cj: CronJob;
    now: string;
    deadline?: boolean;
    want: { mostRecent?: string; missed: string; error?: string; earliest?: string };
  }[] = [
    {
      name: 'before the first activation',
      cj: cronJob('2026-12-02T10:00:30Z', '0 * * * *'),
      now: '2026-12-02T10:59:59Z',
      want: { missed: 'none', earliest: '2026-12-02T10:00:30Z' },
    },
    {
      name: 'at the first activation',
      cj: cronJob('2026-12-02T10:00:30Z', '0 * * * *'),
      now: '2026-12-02T11:00:00Z',
      want: { mostRecent: '2026-12-02T11:00:00Z', missed: 'none' },
    },
    {
      name: 'several missed since the last schedule',
      cj: cronJob('2026-12-01T00:00:00Z', '0 * * * *', { last: '2026-12-02T10:00:00Z' }),
      now: '2026-12-02T15:20:00Z',
      want: { mostRecent: '2026-12-02T15:00:00Z', missed: 'few' },
    },
    {
      name: 'more than 100 missed',
      cj: cronJob('2026-12-01T00:00:00Z', '*/1 * * * *', { last: '2026-12-02T10:00:00Z' }),
      now: '2026-12-02T12:00:30Z',
      want: { mostRecent: '2026-12-02T12:00:00Z', missed: 'many' },
    },
    {
      name: 'the starting deadline moves the earliest time up',
      cj: cronJob('2026-12-01T00:00:00Z', '*/1 * * * *', { last: '2026-12-02T10:00:00Z', deadline: 200 }),
      now: '2026-12-02T12:00:30Z',
      deadline: true,
      want: { mostRecent: '2026-12-02T12:00:00Z', missed: 'few', earliest: '2026-12-02T11:57:10Z' },
    },
    {
      name: 'a deadline shorter than the time since the activation leaves none',
      cj: cronJob('2026-12-01T00:00:00Z', '0 * * * *', { last: '2026-12-02T10:00:00Z', deadline: 60 }),
      now: '2026-12-02T12:05:00Z',
      deadline: true,
      want: { missed: 'none' },
    },
    {
      name: 'the deadline is ignored when not asked for',
      cj: cronJob('2026-12-01T00:00:00Z', '0 * * * *', { last: '2026-12-02T10:00:00Z', deadline: 60 }),
      now: '2026-12-02T12:05:00Z',
      want: { mostRecent: '2026-12-02T12:00:00Z', missed: 'few' },
    },
    {
      name: 'an uneven schedule',
      cj: cronJob('2026-12-01T00:00:00Z', '30 6-16/4 * * 1-5', { last: '2026-12-01T06:30:00Z' }),
      now: '2026-12-04T14:00:00Z',
      want: { mostRecent: '2026-12-04T10:30:00Z', missed: 'few' },
    },
    {
      name: '@every counts from the creation',
      cj: cronJob('2026-12-02T10:00:30Z', '@every 1h'),
      now: '2026-12-02T13:15:00Z',
      want: { mostRecent: '2026-12-02T13:00:30Z', missed: 'few' },
    },
    {
      name: 'a schedule that never fires',
      cj: cronJob('2026-12-02T10:00:00Z', '59 23 31 2 *'),
      now: '2026-12-02T13:15:00Z',
      want: { missed: 'none', error: 'time difference between two schedules is less than 1 second' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const ct = ClusterTime.of(c.cj, 1);
      const r = mostRecentScheduleTime(c.cj, T(c.now), parseStandard(c.cj.spec!.schedule), c.deadline ?? false, ct);
      assert.equal(iso(r.mostRecent), c.want.mostRecent);
      assert.equal(r.missed, c.want.missed);
      assert.equal(r.error, c.want.error);
      if (c.want.earliest) assert.equal(iso(r.earliest), c.want.earliest);
    });
  }
});

describe('cluster time', () => {
  it('at speed 10 a minute schedule fires every 6 real seconds, named by cluster minutes', () => {
    const cj = cronJob('2026-12-02T10:00:30Z', '*/1 * * * *');
    const ct = ClusterTime.of(cj, 10);
    const sched = parseStandard('*/1 * * * *');
    // 3 real seconds after creation is 30 cluster seconds: the first activation, 10:01:00.
    const r = mostRecentScheduleTime(cj, ct.cluster(T('2026-12-02T10:00:33Z')), sched, false, ct);
    assert.equal(iso(r.mostRecent), '2026-12-02T10:01:00Z');
    assert.equal(ct.stamp(r.mostRecent!), '2026-12-02T10:00:33Z');
    // Written back as lastScheduleTime, it reads as that activation (which the plan sees is done), and the next is 6 real seconds later.
    cj.status = { lastScheduleTime: ct.stamp(r.mostRecent!) };
    const now = ct.cluster(T('2026-12-02T10:00:33.200Z'));
    assert.equal(mostRecentScheduleTime(cj, now, sched, false, ct).mostRecent, r.mostRecent);
    const wait = ct.realDuration(nextScheduleTimeDuration(cj, now, sched, ct));
    assert.ok(Math.abs(wait - 5810) < 1, `waits ${wait} ms`);
    assert.equal(jobFromTemplate(cj, r.mostRecent!).metadata!.name, `hello-${T('2026-12-02T10:01:00Z') / 60000}`);
  });

  it('a stamp that was rounded up reads back as an activation it could have come from', () => {
    const cj = cronJob('2026-12-02T10:00:07Z', '*/1 * * * *');
    for (const speed of [1, 2.5, 7, 10, 30]) {
      const ct = ClusterTime.of(cj, speed);
      const sched = parseStandard('*/1 * * * *');
      let v = sched.next(ct.anchor);
      for (let i = 0; i < 20; i++, v = sched.next(v)) {
        const back = ct.scheduledAt(ct.stamp(v))!;
        assert.ok(back <= v && sched.next(back - 1) === v, `speed ${speed}: ${iso(v)} read back as ${iso(back)}`);
      }
    }
  });
});

describe('nextScheduleTimeDuration', () => {
  it('waits until just after the next activation', () => {
    const cj = cronJob('2026-12-02T10:00:30Z', '0 * * * *');
    const d = nextScheduleTimeDuration(cj, T('2026-12-02T10:30:00Z'), parseStandard('0 * * * *'), ClusterTime.of(cj, 1));
    assert.equal(d, 30 * 60_000 + 100);
  });
  it('after missed activations, counts from now', () => {
    const cj = cronJob('2026-12-01T00:00:00Z', '0 * * * *', { last: '2026-12-02T10:00:00Z' });
    const d = nextScheduleTimeDuration(cj, T('2026-12-02T12:30:00Z'), parseStandard('0 * * * *'), ClusterTime.of(cj, 1));
    assert.equal(d, 30 * 60_000 + 100);
  });
});

describe('the Job of a schedule', () => {
  it('names it by minutes, annotates the scheduled time in the zone, and points at its CronJob', () => {
    const cj = cronJob('2026-12-01T00:00:00Z', '0 9 * * *', { timeZone: 'Asia/Tokyo' });
    cj.spec!.jobTemplate.metadata!.annotations = { team: 'a' };
    const job = jobFromTemplate(cj, T('2026-12-02T00:00:00Z'));
    assert.equal(job.metadata!.name, `hello-${T('2026-12-02T00:00:00Z') / 60000}`);
    assert.deepEqual(job.metadata!.annotations, { team: 'a', [SCHEDULED_TIMESTAMP]: '2026-12-02T09:00:00+09:00' });
    assert.deepEqual(job.metadata!.labels, { app: 'hello' });
    assert.deepEqual(job.metadata!.ownerReferences, [
      { apiVersion: 'batch/v1', kind: 'CronJob', name: 'hello', uid: 'u-1', controller: true, blockOwnerDeletion: true },
    ]);
    assert.deepEqual(job.spec, cj.spec!.jobTemplate.spec);
    assert.notEqual(job.spec, cj.spec!.jobTemplate.spec, 'a copy');
    assert.equal(
      jobFromTemplate(cronJob('2026-12-01T00:00:00Z', '* * * * *'), 0).metadata!.annotations![SCHEDULED_TIMESTAMP],
      '1970-01-01T00:00:00Z',
    );
  });

  it('sorts Jobs by start time, unstarted last, names breaking ties', () => {
    const job = (name: string, startTime?: string): Job => ({ metadata: { name }, status: startTime ? { startTime } : {} });
    const sorted = [
      job('d'),
      job('c', '2026-01-02T00:00:00Z'),
      job('b', '2026-01-01T00:00:00Z'),
      job('a', '2026-01-02T00:00:00Z'),
      job('e'),
    ].sort(byJobStartTime);
    assert.deepEqual(
      sorted.map((j) => j.metadata!.name),
      ['b', 'a', 'c', 'd', 'e'],
    );
  });
});
