// The scheduler explaining itself, beyond kube: for each attempt a compact
// JSON document (stored as the Pod's ksim.io/scheduling-decision annotation
// and logged) with how many nodes were considered, why each rejected node
// was rejected, and the scores of the best nodes per plugin.
import type { ScheduleResult } from './framework/profile.ts';

/** The annotation that carries the decision. */
export const DECISION_ANNOTATION = 'ksim.io/scheduling-decision';

/** At most this many rejected nodes are named; the rest are counted by reason. */
const MAX_NAMED = 20;

/** The decision document. */
export interface Decision {
  profile: string;
  result: 'Scheduled' | 'Unschedulable';
  node?: string;
  nodes: number;
  evaluated: number;
  feasible: number;
  /** node -> "Plugin: reason" for the first rejected nodes. */
  rejected?: Record<string, string>;
  /** "reason" -> count, over every rejected node. */
  reasons?: Record<string, number>;
  scores?: { node: string; total: number; plugins: Record<string, number> }[];
  preemption?: string;
}

/** Builds the decision document of an attempt. */
export function decisionOf(profile: string, r: ScheduleResult, node?: string, preemption?: string): Decision {
  const d: Decision = {
    profile,
    result: node ? 'Scheduled' : 'Unschedulable',
    node,
    nodes: r.numAllNodes,
    evaluated: r.evaluated,
    feasible: r.feasible,
  };
  if (r.diagnosis.nodeToStatus.size) {
    const rejected: Record<string, string> = {};
    const reasons: Record<string, number> = {};
    let named = 0;
    for (const [name, s] of r.diagnosis.nodeToStatus) {
      const text = s.reasons.join(', ');
      if (named++ < MAX_NAMED) rejected[name] = `${s.plugin}: ${text}`;
      for (const reason of s.reasons) reasons[reason] = (reasons[reason] ?? 0) + 1;
    }
    d.rejected = rejected;
    d.reasons = reasons;
  }
  if (r.top.length) d.scores = r.top;
  if (preemption) d.preemption = preemption;
  return d;
}
