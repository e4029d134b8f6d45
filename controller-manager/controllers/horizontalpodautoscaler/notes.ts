// What an HPA sync notes for step-through (shared/controller/stepper.ts): each
// metric's current vs target and the replica arithmetic, then stabilization
// and the min/max limits, and the decision. Built from planSync's plan.
import type { DecisionNotes } from '../../../shared/controller/stepper.ts';
import type { Plan } from './plan.ts';

/** The notes of one planned sync. */
export function hpaNotes(plan: Plan): DecisionNotes {
  const notes: DecisionNotes = {};
  const x = plan.explain;
  if (x) {
    notes.have = { replicas: x.current };
    notes.metrics = Object.fromEntries(x.metrics.map((m) => [m.metric, m.arithmetic]));
    notes.want = `highest proposal: ${x.proposed} replica(s)`;
    if (x.stabilized) notes.stabilization = `${x.stabilized}: ${x.stabilizedReplicas}`;
    notes.limits = x.limited
      ? `${x.limited} (min ${x.min}, max ${x.max}): ${x.desired}`
      : `${x.stabilizedReplicas} is within min ${x.min}, max ${x.max}`;
  }
  if (plan.rescale) notes.decision = `scale ${plan.rescale.from} -> ${plan.rescale.to}: ${plan.rescale.reason}`;
  else if (plan.error) notes.decision = `no rescale: ${plan.error}`;
  else notes.decision = `keep ${plan.status.currentReplicas ?? 0} replica(s)`;
  return notes;
}
