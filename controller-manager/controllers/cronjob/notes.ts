// What a CronJob sync notes for step-through (shared/controller/stepper.ts):
// the schedule, the most recent scheduled time not yet run, what
// concurrencyPolicy (or suspend, or the starting deadline) made of it, and
// when the next run is due. Built from planSchedule's plan.
import type { CronJob } from 'kubernetes-types/batch/v1.js';
import type { DecisionNotes } from '../../../shared/controller/stepper.ts';
import type { ClusterTime } from './cluster-time.ts';
import type { SchedulePlan } from './plan.ts';

/** The notes of one planned sync at cluster time `now`. */
export function cronJobNotes(cj: CronJob, plan: SchedulePlan, now: number, ct: ClusterTime): DecisionNotes {
  const tz = cj.spec?.timeZone;
  const notes: DecisionNotes = { schedule: `${cj.spec?.schedule ?? ''}${tz ? ` (${tz})` : ''}` };
  if (plan.scheduled !== undefined) notes.mostRecent = `most recent scheduled time not yet run: ${ct.stamp(plan.scheduled)}`;
  if (plan.why) notes.decision = plan.why;
  if (plan.requeueAfter !== undefined) notes.next = nextNote(now, plan.requeueAfter, ct);
  return notes;
}

/** When the controller looks again for the next run, `afterMs` cluster milliseconds after `now`. */
export function nextNote(now: number, afterMs: number, ct: ClusterTime): string {
  const at = new Date(ct.real(now + afterMs)).toISOString();
  return `look again for the next run at ${at} (in ${(afterMs / 1000).toFixed(1)}s of cluster time)`;
}
