// NodePorts: a Pod that asks for a hostPort fits only where no other Pod
// holds that port (for the same protocol and an overlapping hostIP).
import type { Plugin } from '../framework/types.ts';
import { status } from '../framework/types.ts';
import { hostPorts } from '../node-info.ts';

/** kube's ErrReason for NodePorts. */
export const ERR_REASON_PORTS = "node(s) didn't have free ports for the requested pod ports";

/** The NodePorts filter. */
export function nodePorts(): Plugin {
  return {
    name: 'NodePorts',
    events: ['NodeAdd', 'AssignedPodDelete'],
    preFilter(state, pod) {
      const ports = hostPorts(pod);
      if (ports.length === 0) return { code: 'Skip', reasons: [] };
      state.write('NodePorts', ports);
      return null;
    },
    filter(state, _pod, node) {
      const ports = state.read<string[]>('NodePorts') ?? [];
      for (const p of ports) {
        const [proto, ip, port] = p.split('/');
        const clash =
          node.usedPorts.has(p) ||
          (ip === '0.0.0.0'
            ? [...node.usedPorts.keys()].some((u) => u.startsWith(`${proto}/`) && u.endsWith(`/${port}`))
            : node.usedPorts.has(`${proto}/0.0.0.0/${port}`));
        if (clash) return status('Unschedulable', ERR_REASON_PORTS);
      }
      return null;
    },
  };
}
