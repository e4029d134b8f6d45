// kube's CronJob utilities (pkg/controller/cronjob/utils.go) on cluster time:
// the most recent unmet schedule time and how many were missed, the requeue
// delay to the next one, the Job a CronJob creates for a scheduled time, and
// the small helpers about active lists and finished Jobs.
import type { CronJob, Job, JobStatus } from 'kubernetes-types/batch/v1.js';
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import { formatRFC3339, parseStandard, validTimeZone, ZERO_TIME, type Schedule } from '../../../apiserver/registry/kinds/cron.ts';
import type { ClusterTime } from './cluster-time.ts';

/** batchv1.CronJobScheduledTimestampAnnotation. */
export const SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** kube's nextScheduleDelta: requeue this long after the next activation, for clock skew. */
export const NEXT_SCHEDULE_DELTA_MS = 100;
/** More missed start times than this is "too many". */
export const MANY_MISSED = 100;

/** How many start times were missed since the last one. */
export type Missed = 'none' | 'few' | 'many';

/** An Event the controller records about a CronJob. */
export interface CronEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** What mostRecentScheduleTime finds. */
export interface MostRecent {
  /** The last schedule time, or the CronJob's creation (cluster ms). */
  earliest: number;
  /** The latest activation at or before now, if any. */
  mostRecent?: number;
  missed: Missed;
  error?: string;
}

/** The cluster time a CronJob was last scheduled at, or its creation. */
export function earliestTime(cj: CronJob, ct: ClusterTime): number {
  const last = cj.status?.lastScheduleTime;
  const t = last ? ct.scheduledAt(last) : undefined;
  return t ?? ct.anchor;
}

/**
 * mostRecentScheduleTime: the activation to run now and how many were
 * missed, counted as kube counts them (the span since the first activation
 * over the interval between the first two), so a schedule missed for years
 * costs two Next calls and a short walk, not one per activation.
 */
export function mostRecentScheduleTime(
  cj: CronJob,
  now: number,
  schedule: Schedule,
  includeStartingDeadline: boolean,
  ct: ClusterTime,
): MostRecent {
  let earliest = earliestTime(cj, ct);
  const deadline = cj.spec?.startingDeadlineSeconds;
  if (includeStartingDeadline && deadline !== undefined && deadline !== null) {
    const schedulingDeadline = now - deadline * 1000;
    if (schedulingDeadline > earliest) earliest = schedulingDeadline;
  }
  const t1 = schedule.next(earliest);
  const t2 = t1 === ZERO_TIME ? ZERO_TIME : schedule.next(t1);
  if (now < t1) return { earliest, missed: 'none' };
  if (now < t2) return { earliest, mostRecent: t1, missed: 'none' };
  // A schedule that parses but never fires ("0 0 31 2 *") gives two zero times.
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) return { earliest, missed: 'none', error: 'time difference between two schedules is less than 1 second' };
  const elapsed = Math.trunc((now - t1) / 1000);
  const missedCount = Math.floor(elapsed / between) + 1;
  let mostRecent: number | undefined;
  const potentialEarliest = t1 + (missedCount - 2) * between * 1000;
  for (let t = schedule.next(potentialEarliest); t !== ZERO_TIME && t <= now; t = schedule.next(t)) mostRecent = t;
  const missed: Missed = missedCount > MANY_MISSED ? 'many' : missedCount > 0 ? 'few' : 'none';
  return mostRecent === undefined ? { earliest, missed } : { earliest, mostRecent, missed };
}

/** nextScheduleTimeDuration: cluster milliseconds from `now` until just after the next activation. */
export function nextScheduleTimeDuration(cj: CronJob, now: number, schedule: Schedule, ct: ClusterTime): number {
  const r = mostRecentScheduleTime(cj, now, schedule, false, ct);
  let from: number;
  if (r.error) from = now;
  else if (r.mostRecent === undefined) from = r.missed === 'none' ? r.earliest : now;
  else from = r.mostRecent;
  return schedule.next(from) + NEXT_SCHEDULE_DELTA_MS - now;
}

/** nextScheduleTime: the unmet activation to start now, with the warning kube gives when too many were missed. */
export function nextScheduleTime(
  cj: CronJob,
  now: number,
  schedule: Schedule,
  ct: ClusterTime,
): { scheduled?: number; error?: string; events: CronEvent[] } {
  const r = mostRecentScheduleTime(cj, now, schedule, true, ct);
  if (r.mostRecent === undefined || r.mostRecent > now) return { error: r.error, events: [] };
  const events: CronEvent[] = [];
  if (r.missed === 'many')
    events.push({
      type: 'Warning',
      reason: 'TooManyMissedTimes',
      message: 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
    });
  return { scheduled: r.mostRecent, error: r.error, events };
}

/** formatSchedule: the schedule with its timeZone as a TZ= prefix, and the warning for a TZ written in the schedule. */
export function formatSchedule(cj: CronJob): { spec: string; events: CronEvent[] } {
  const schedule = cj.spec?.schedule ?? '';
  if (schedule.includes('TZ')) {
    const message = `CRON_TZ or TZ used in schedule ${JSON.stringify(schedule)} is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details`;
    return { spec: schedule, events: [{ type: 'Warning', reason: 'UnsupportedSchedule', message }] };
  }
  const tz = cj.spec?.timeZone;
  if (tz !== undefined && tz !== null && validTimeZone(tz)) return { spec: `TZ=${tz} ${schedule}`, events: [] };
  return { spec: schedule, events: [] };
}

/** The parsed schedule of `cj`, or robfig's error. */
export function parseSchedule(spec: string): { schedule?: Schedule; error?: string } {
  try {
    return { schedule: parseStandard(spec) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** getJobName: NAME-<scheduled time in minutes since the epoch>. */
export function jobName(cj: CronJob, scheduled: number): string {
  return `${cj.metadata!.name}-${Math.floor(scheduled / 60_000)}`;
}

/** getJobFromTemplate2: the Job `cj` runs for `scheduled` (cluster ms). */
export function jobFromTemplate(cj: CronJob, scheduled: number): Job {
  const tpl = cj.spec?.jobTemplate ?? {};
  const annotations: Record<string, string> = { ...tpl.metadata?.annotations };
  annotations[SCHEDULED_TIMESTAMP] = formatRFC3339(scheduled, cj.spec?.timeZone ?? '');
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobName(cj, scheduled),
      namespace: cj.metadata!.namespace,
      ...(tpl.metadata?.labels && Object.keys(tpl.metadata.labels).length > 0 ? { labels: { ...tpl.metadata.labels } } : {}),
      annotations,
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          name: cj.metadata!.name!,
          uid: cj.metadata!.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: structuredClone(tpl.spec!),
  };
}

/** An ObjectReference to a Job, as client-go's reference.GetReference builds it. */
export function jobRef(job: Job): ObjectReference {
  const m = job.metadata!;
  return { kind: 'Job', namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: 'batch/v1', resourceVersion: m.resourceVersion };
}

/** inActiveList: whether status.active holds a Job with this UID. */
export function inActiveList(cj: CronJob, uid: string | undefined): boolean {
  return (cj.status?.active ?? []).some((r) => r.uid === uid);
}

/** inActiveListByName: whether status.active holds a Job with this name in the CronJob's namespace. */
export function inActiveListByName(cj: CronJob, name: string): boolean {
  return (cj.status?.active ?? []).some((r) => r.name === name && r.namespace === cj.metadata?.namespace);
}

/** deleteFromActiveList: `cj` without that UID in status.active (changes `cj`). */
export function deleteFromActiveList(cj: CronJob, uid: string | undefined): void {
  cj.status = { ...cj.status, active: (cj.status?.active ?? []).filter((r) => r.uid !== uid) };
}

/** FinishedCondition: 'Complete' or 'Failed' once a Job has that condition True. */
export function finishedCondition(job: Job): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? []) if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  return undefined;
}

/** IsJobSucceeded: a Complete condition True. */
export function isJobSucceeded(job: Job): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');
}

function startTime(s: JobStatus | undefined): number | undefined {
  const t = Date.parse(s?.startTime ?? '');
  return Number.isFinite(t) ? t : undefined;
}

/** byJobStartTime: started Jobs oldest first, then the unstarted; names break ties. */
export function byJobStartTime(a: Job, b: Job): number {
  const sa = startTime(a.status);
  const sb = startTime(b.status);
  if (sa === undefined && sb !== undefined) return 1;
  if (sa !== undefined && sb === undefined) return -1;
  if (sa === sb)
    return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : (a.metadata?.name ?? '') > (b.metadata?.name ?? '') ? 1 : 0;
  return sa! - sb!;
}
