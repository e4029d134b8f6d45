// kubelet-sim's ops on the supervisor's control channel (shared/chaos/
// component-control.ts): 'node.action', 'node.pressure' and 'pod.kill', each
// a thin check of its arguments over node-actions.ts, eviction-manager.ts and
// pod-kill.ts.
import { registerControl } from '../../shared/chaos/component-control.ts';
import type { NodeFleet } from '../node/node-fleet.ts';
import type { PressureKind } from '../node/node-object.ts';
import type { EvictionManager } from './eviction-manager.ts';
import { applyNodeAction, parseNodeAction } from './node-actions.ts';
import { killPod, type PodWorkers } from './pod-kill.ts';

const KINDS: readonly PressureKind[] = ['memory', 'disk', 'pid'];

/** The parts the ops act on. */
export interface ChaosParts {
  fleet: NodeFleet;
  pods: PodWorkers;
  evictions: EvictionManager;
}

/** Registers kubelet-sim's ops. */
export function registerKubeletChaos(parts: ChaosParts): void {
  const { fleet, pods, evictions } = parts;
  registerControl('node.action', async (args) => {
    const { node, action } = parseNodeAction(fleet, args);
    return applyNodeAction(fleet, node, action);
  });
  registerControl('node.pressure', (args) => {
    const { node, kind, on } = args;
    if (typeof node !== 'string' || !node) throw new Error('node.pressure: node is required');
    if (!fleet.nodes.has(node)) throw new Error(`node.pressure: node "${node}" is not a node of this kubelet-sim`);
    if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) {
      throw new Error(`node.pressure: kind must be memory, disk or pid, not ${JSON.stringify(kind)}`);
    }
    if (on !== undefined && typeof on !== 'boolean') throw new Error('node.pressure: on must be true or false');
    return evictions.set(node, kind as PressureKind, on !== false);
  });
  registerControl('pod.kill', (args) => killPod(fleet, pods, args));
}
