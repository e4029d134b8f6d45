// What a DaemonSet sync notes for step-through (shared/controller/stepper.ts):
// which nodes should run a daemon Pod and which have one, why a node may
// not run it (nodeSelector, an untolerated taint), and the nodes the plan
// creates Pods on and the Pods it deletes.
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { DecisionNotes } from '../../../shared/controller/stepper.ts';
import type { NodePlan } from './plan.ts';
import { nodeDaemonVerdict } from './util.ts';

/** The nodes that should run the daemon vs have one, and per-node reasons for the rest. */
export function nodesNotes(ds: DaemonSet, nodes: Node[], byNode: Map<string, Pod[]>): DecisionNotes {
  const shouldRun: string[] = [];
  const skipped: Record<string, string> = {};
  for (const node of nodes) {
    const name = node.metadata!.name!;
    const v = nodeDaemonVerdict(node, ds);
    if (v.shouldRun) shouldRun.push(name);
    else skipped[name] = v.shouldContinueRunning ? `${v.why}: no new Pod, a running one may stay` : v.why!;
  }
  const have = nodes.map((n) => n.metadata!.name!).filter((n) => byNode.has(n));
  const notes: DecisionNotes = {
    want: `${shouldRun.length} of ${nodes.length} node(s) should run a daemon Pod${shouldRun.length ? `: ${shouldRun.join(', ')}` : ''}`,
    have: `${have.length} node(s) have one${have.length ? `: ${have.join(', ')}` : ''}`,
  };
  if (Object.keys(skipped).length) notes.skipped = skipped;
  return notes;
}

/** What one plan (manage or rolling update) does. */
export function planNotes(step: string, plan: NodePlan): DecisionNotes {
  const parts: string[] = [];
  if (plan.createOn.length) parts.push(`create a Pod on ${plan.createOn.join(', ')}`);
  if (plan.delete.length) parts.push(`delete ${plan.delete.map((p) => p.metadata?.name).join(', ')}`);
  return { step, decision: parts.length ? parts.join('; ') : 'nothing to do' };
}
