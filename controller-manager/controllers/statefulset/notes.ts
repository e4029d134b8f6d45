// What a StatefulSet sync notes for step-through (shared/controller/stepper.ts):
// replicas wanted vs Pods owned, the ordinal each unit acts on and what it
// does to it, the partition of a rolling update, and the ordinal the plan
// waits on. Built from the plan (plan.ts).
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { DecisionNotes } from '../../../shared/controller/stepper.ts';
import { ordinalOf, replicasOf } from './identity.ts';
import type { StatefulSetPlan } from './plan.ts';

/** The notes of one sync: want, have, the per-ordinal actions and the wait. */
export function statefulSetNotes(set: StatefulSet, owned: Pod[], plan: StatefulSetPlan, synced: boolean): DecisionNotes {
  const notes: DecisionNotes = {
    want: { replicas: replicasOf(set) },
    have: { pods: owned.length, ready: plan.status.readyReplicas ?? 0, updated: plan.status.updatedReplicas ?? 0 },
    podManagementPolicy: plan.monotonic ? 'OrderedReady: one ordinal at a time, each Ready before the next' : 'Parallel',
  };
  const partition = set.spec?.updateStrategy?.rollingUpdate?.partition;
  if (partition) notes.partition = `only ordinals >= ${partition} move to the update revision`;
  if (!synced) {
    notes.decision = 'wait: creates or deletes it made are not all observed yet';
    return notes;
  }
  const actions = plan.phases.flat().map((u) => `${u.ops.join(' + ')} pod ${ordinalOf(u.pod)}`);
  notes.decision = actions.length ? actions.join('; ') : 'nothing to do now';
  if (plan.wait) notes.wait = plan.wait;
  return notes;
}
