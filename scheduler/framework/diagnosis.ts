// Why a Pod fit nowhere, in kube-scheduler's words: FitError.Error()
// ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated
// taint {...}. preemption: ...") built from each node's rejecting Status.
import type { Status } from './types.ts';

/** What a failed attempt learned. */
export interface Diagnosis {
  /** The rejecting Status of every node that was evaluated. */
  nodeToStatus: Map<string, Status>;
  /** Set when a PreFilter plugin rejected the Pod outright. */
  preFilterMsg?: string;
  /** Plugins that rejected the Pod on some node (the queue requeues on their events). */
  unschedulablePlugins: Set<string>;
}

/** An empty diagnosis. */
export function newDiagnosis(): Diagnosis {
  return { nodeToStatus: new Map(), unschedulablePlugins: new Set() };
}

/** "0/N nodes are available: <sorted histogram>.[ <postFilterMsg>.]" exactly as kube prints it. */
export function fitErrorMessage(numAllNodes: number, d: Diagnosis, postFilterMsg?: string): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (d.preFilterMsg) msg += ` ${d.preFilterMsg}.`;
  else {
    const hist = new Map<string, number>();
    for (const s of d.nodeToStatus.values()) for (const r of s.reasons) hist.set(r, (hist.get(r) ?? 0) + 1);
    // Go's sort.Strings on "count reason": byte order.
    const parts = [...hist].map(([r, n]) => `${n} ${r}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (parts.length) msg += ` ${parts.join(', ')}.`;
  }
  // The PostFilter message is itself a FitError message ending in '.'; kube prints one period.
  if (postFilterMsg) msg += postFilterMsg.endsWith('.') ? ` ${postFilterMsg}` : ` ${postFilterMsg}.`;
  return msg;
}
