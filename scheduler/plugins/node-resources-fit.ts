// NodeResourcesFit: a Pod fits a node only if its requests (cpu, memory,
// ephemeral-storage, extended resources, and one more Pod) fit in what the
// node has allocatable minus what its Pods already request; the score
// prefers least (or, by args, most) allocated nodes (weight 1 by default).
import type { Plugin } from '../framework/types.ts';
import { MAX_NODE_SCORE, status, type Code } from '../framework/types.ts';
import type { NodeInfo } from '../node-info.ts';
import type { PodRequest } from '../resources.ts';

/** pluginConfig args of NodeResourcesFit (a subset of kube's). */
export interface FitArgs {
  scoringStrategy?: { type?: 'LeastAllocated' | 'MostAllocated'; resources?: { name: string; weight?: number }[] };
  ignoredResources?: string[];
}

/** Why a Pod does not fit a node: each insufficient resource, and whether even an empty node would not do. */
export function insufficientResources(
  req: PodRequest,
  node: NodeInfo,
  ignored: Set<string> = new Set(),
): { reasons: string[]; unresolvable: boolean } {
  const reasons: string[] = [];
  let unresolvable = false;
  const allowedPods = node.allocatable.get('pods') ?? 0;
  if (node.pods.size + 1 > allowedPods) reasons.push('Too many pods');
  for (const [name, want] of req.res) {
    if (want <= 0 || name === 'pods' || ignored.has(name)) continue;
    const alloc = node.allocatable.get(name) ?? 0;
    const used = node.requested.get(name) ?? 0;
    if (want > alloc - used) {
      reasons.push(`Insufficient ${name}`);
      if (want > alloc) unresolvable = true;
    }
  }
  return { reasons, unresolvable };
}

/** The NodeResourcesFit filter and score. */
export function nodeResourcesFit(args: FitArgs = {}): Plugin {
  const strategy = args.scoringStrategy?.type ?? 'LeastAllocated';
  const resources = args.scoringStrategy?.resources ?? [
    { name: 'cpu', weight: 1 },
    { name: 'memory', weight: 1 },
  ];
  const ignored = new Set(args.ignoredResources ?? []);
  return {
    name: 'NodeResourcesFit',
    events: ['NodeAdd', 'NodeAllocatable', 'AssignedPodDelete'],
    filter(state, _pod, node) {
      const { reasons, unresolvable } = insufficientResources(state.podInfo.request, node, ignored);
      if (reasons.length === 0) return null;
      const code: Code = unresolvable ? 'UnschedulableAndUnresolvable' : 'Unschedulable';
      return status(code, ...reasons);
    },
    score(state, _pod, node) {
      const req = state.podInfo.request;
      let total = 0;
      let weights = 0;
      for (const r of resources) {
        const alloc = node.allocatable.get(r.name) ?? 0;
        if (alloc === 0) continue;
        let requested: number;
        if (r.name === 'cpu') requested = node.nonZeroCpu + req.nonZeroCpu;
        else if (r.name === 'memory') requested = node.nonZeroMem + req.nonZeroMem;
        else {
          const want = req.res.get(r.name) ?? 0;
          if (want === 0) continue;
          requested = (node.requested.get(r.name) ?? 0) + want;
        }
        const w = r.weight ?? 1;
        let s: number;
        if (strategy === 'MostAllocated') s = Math.trunc((Math.min(requested, alloc) * MAX_NODE_SCORE) / alloc);
        else s = requested > alloc ? 0 : Math.trunc(((alloc - requested) * MAX_NODE_SCORE) / alloc);
        total += s * w;
        weights += w;
      }
      return weights === 0 ? 0 : Math.trunc(total / weights);
    },
  };
}
