// The TTL-after-finished controller's decision as a pure function: when a
// finished Job with spec.ttlSecondsAfterFinished expires (its Complete or
// Failed condition's transition time plus the TTL, on the cluster clock, so
// --speed shortens it), as kube's ttlafterfinished controller computes it.
import type { Job } from 'kubernetes-types/batch/v1.js';

/** needsCleanup: a TTL is set and the Job finished. */
export function needsCleanup(job: Job): boolean {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || ttl === null) return false;
  return (job.status?.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/** jobFinishTime: the transition time of the True Complete or Failed condition, or undefined when it has none. */
export function finishTime(job: Job): number | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') {
      const t = Date.parse(c.lastTransitionTime ?? '');
      return Number.isFinite(t) ? t : undefined;
    }
  }
  return undefined;
}

/** What to do about one Job. */
export type TtlDecision = { kind: 'ignore' } | { kind: 'delete' } | { kind: 'wait'; ms: number } | { kind: 'error'; message: string };

/** processTTL: ignore (not finished, no TTL, being deleted), delete (expired) or wait until it expires. */
export function decide(job: Job, now: number, speed = 1): TtlDecision {
  if (job.metadata?.deletionTimestamp || !needsCleanup(job)) return { kind: 'ignore' };
  const at = finishTime(job);
  const ns = job.metadata?.namespace ?? '';
  const name = job.metadata?.name ?? '';
  if (at === undefined) return { kind: 'error', message: `unable to find the time when the Job ${ns}/${name} finished` };
  const left = at + (job.spec!.ttlSecondsAfterFinished! * 1000) / speed - now;
  return left <= 0 ? { kind: 'delete' } : { kind: 'wait', ms: left };
}
