// The CronJob controller's decisions as pure functions (kube's syncCronJob
// after the active list is reconciled, and cleanupFinishedJobs): whether a
// Job is due now, with what name and annotation, what concurrencyPolicy,
// suspend, startingDeadlineSeconds and the time zone make of it, the events
// kube records on the way, when to look again, and which finished Jobs fall
// outside the history limits. Times are cluster time (cluster-time.ts).
import type { CronJob, Job } from 'kubernetes-types/batch/v1.js';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import { validTimeZone, type Schedule } from '../../../apiserver/registry/kinds/cron.ts';
import type { ClusterTime } from './cluster-time.ts';
import {
  byJobStartTime,
  finishedCondition,
  formatSchedule,
  inActiveListByName,
  jobFromTemplate,
  jobName,
  nextScheduleTime,
  nextScheduleTimeDuration,
  parseSchedule,
  type CronEvent,
} from './utils.ts';

/** What a sync does about the schedule. */
export interface SchedulePlan {
  events: CronEvent[];
  /** Cluster milliseconds until the next sync; absent when kube waits for a change to the CronJob. */
  requeueAfter?: number;
  /** A Job to create now, after deleting the `replace` Jobs (concurrencyPolicy Replace). */
  create?: { job: Job; scheduled: number; replace: ObjectReference[]; schedule: Schedule };
  /** The most recent scheduled time not yet run (cluster ms), when there is one. */
  scheduled?: number;
  /** The decision in words, for step-through notes (notes.ts). */
  why?: string;
}

const DAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's Format(time.RFC1123Z) of a UTC time: "Mon, 02 Jan 2006 15:04:05 +0000". */
export function rfc1123z(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${DAY_NAMES[d.getUTCDay()]}, ${p(d.getUTCDate())} ${MONTH_NAMES[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(
    d.getUTCMinutes(),
  )}:${p(d.getUTCSeconds())} +0000`;
}

const warning = (reason: string, message: string): CronEvent => ({ type: 'Warning', reason, message });

/** The schedule half of syncCronJob for `cj` (its active list already reconciled) at cluster time `now`. */
export function planSchedule(cj: CronJob, now: number, ct: ClusterTime): SchedulePlan {
  if (cj.metadata?.deletionTimestamp) return { events: [] };
  const tz = cj.spec?.timeZone;
  if (tz !== undefined && tz !== null && !validTimeZone(tz))
    return { events: [warning('UnknownTimeZone', `invalid timeZone: ${JSON.stringify(tz)}: unknown time zone ${tz}`)] };
  if (cj.spec?.suspend === true) return { events: [], why: 'suspended: no new Jobs' };

  const schedule = cj.spec?.schedule ?? '';
  const formatted = formatSchedule(cj);
  const events = [...formatted.events];
  const parsed = parseSchedule(formatted.spec);
  if (!parsed.schedule) {
    events.push(warning('UnparseableSchedule', `unparseable schedule: ${JSON.stringify(schedule)} : ${parsed.error}`));
    return { events, why: 'unparseable schedule: wait for a change to the CronJob' };
  }
  const sched = parsed.schedule;
  const next = nextScheduleTime(cj, now, sched, ct);
  events.push(...next.events);
  if (next.error) {
    events.push(warning('InvalidSchedule', `invalid schedule: ${schedule} : ${next.error}`));
    return { events };
  }
  const requeue = () => nextScheduleTimeDuration(cj, now, sched, ct);
  const scheduled = next.scheduled;
  if (scheduled === undefined) return { events, requeueAfter: requeue(), why: 'no scheduled time has passed since the last run: wait' };

  const deadline = cj.spec?.startingDeadlineSeconds;
  if (deadline !== undefined && deadline !== null && scheduled + deadline * 1000 < now) {
    events.push(warning('MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(scheduled)}`));
    return {
      events,
      requeueAfter: requeue(),
      scheduled,
      why: `missed: scheduled time + startingDeadlineSeconds ${deadline}s is before now, skip it`,
    };
  }
  const last = cj.status?.lastScheduleTime;
  if (inActiveListByName(cj, jobName(cj, scheduled)) || (last !== undefined && Date.parse(last) === Date.parse(ct.stamp(scheduled))))
    return { events, requeueAfter: requeue(), scheduled, why: 'a Job for this scheduled time exists already' };
  const active = cj.status?.active ?? [];
  if (cj.spec?.concurrencyPolicy === 'Forbid' && active.length > 0) {
    events.push({
      type: 'Normal',
      reason: 'JobAlreadyActive',
      message: 'Not starting job because prior execution is running and concurrency policy is Forbid',
    });
    return {
      events,
      requeueAfter: requeue(),
      scheduled,
      why: `concurrencyPolicy Forbid and ${active.length} Job(s) still active: skip this run`,
    };
  }
  const replace = cj.spec?.concurrencyPolicy === 'Replace' ? [...active] : [];
  const job = jobFromTemplate(cj, scheduled);
  const policy = cj.spec?.concurrencyPolicy ?? 'Allow';
  const why =
    policy === 'Replace'
      ? `concurrencyPolicy Replace: delete ${replace.length} active Job(s), create ${job.metadata?.name}`
      : `concurrencyPolicy ${policy} with ${active.length} Job(s) active: create ${job.metadata?.name}`;
  return { events, create: { job, scheduled, replace, schedule: sched }, scheduled, why };
}

/** cleanupFinishedJobs: the finished Jobs beyond successfulJobsHistoryLimit and failedJobsHistoryLimit, oldest first. */
export function jobsBeyondHistory(cj: CronJob, jobs: Job[]): Job[] {
  const successLimit = cj.spec?.successfulJobsHistoryLimit;
  const failedLimit = cj.spec?.failedJobsHistoryLimit;
  const unset = (v: number | undefined | null) => v === undefined || v === null;
  if (unset(successLimit) && unset(failedLimit)) return [];
  const oldest = (list: Job[], limit: number | undefined | null) =>
    limit === undefined || limit === null || list.length <= limit ? [] : [...list].sort(byJobStartTime).slice(0, list.length - limit);
  const succeeded = jobs.filter((j) => finishedCondition(j) === 'Complete');
  const failed = jobs.filter((j) => finishedCondition(j) === 'Failed');
  return [...oldest(succeeded, successLimit), ...oldest(failed, failedLimit)];
}
