// NodeResourcesBalancedAllocation: prefers nodes where, with the Pod added,
// cpu and memory would be used in similar proportions (1 - the standard
// deviation of the used fractions), weight 1 by default.
import type { Plugin } from '../framework/types.ts';
import { MAX_NODE_SCORE } from '../framework/types.ts';

/** pluginConfig args: which resources to balance. */
export interface BalancedArgs {
  resources?: { name: string; weight?: number }[];
}

/** The NodeResourcesBalancedAllocation score. */
export function balancedAllocation(args: BalancedArgs = {}): Plugin {
  const names = (args.resources ?? [{ name: 'cpu' }, { name: 'memory' }]).map((r) => r.name);
  return {
    name: 'NodeResourcesBalancedAllocation',
    score(state, _pod, node) {
      const req = state.podInfo.request.res;
      const fractions: number[] = [];
      for (const name of names) {
        const want = req.get(name) ?? 0;
        if (want === 0 && name !== 'cpu' && name !== 'memory') continue;
        const alloc = node.allocatable.get(name) ?? 0;
        if (alloc === 0) continue;
        fractions.push(Math.min(1, ((node.requested.get(name) ?? 0) + want) / alloc));
      }
      let std = 0;
      if (fractions.length === 2) std = Math.abs((fractions[0] - fractions[1]) / 2);
      else if (fractions.length > 2) {
        const mean = fractions.reduce((a, b) => a + b, 0) / fractions.length;
        std = Math.sqrt(fractions.reduce((a, f) => a + (f - mean) ** 2, 0) / fractions.length);
      }
      return Math.trunc((1 - std) * MAX_NODE_SCORE);
    },
  };
}
