// The 'node.action' op: one chaos action on one simulated node, mapped onto
// the fleet's switches (the same ones kubelet-sim's HTTP control port serves):
//   partition / heal          cut off from the apiserver, Pods still run / back
//   fail / start              power off (containers stop) / power on (reboot: register, Pods start afresh)
//   kubelet-kill / -stop      the node's kubelet alone is gone (containers run on, untended)
//   kubelet-start             it comes back: registers, re-lists its Pods, takes over their containers
//   kubelet-pause / -resume   frozen (SIGSTOP) / thawed, catching up on what it missed
import type { NodeFleet, NodeMode } from '../node/node-fleet.ts';

/** The actions 'node.action' accepts. */
export const NODE_ACTIONS = [
  'partition',
  'heal',
  'fail',
  'start',
  'kubelet-kill',
  'kubelet-stop',
  'kubelet-start',
  'kubelet-pause',
  'kubelet-resume',
] as const;

export type NodeAction = (typeof NODE_ACTIONS)[number];

/** The answer to 'node.action'. */
export interface NodeActionResult {
  node: string;
  mode: NodeMode;
}

/** Validates the op's arguments: the node must be one of this process's. */
export function parseNodeAction(fleet: NodeFleet, args: Record<string, unknown>): { node: string; action: NodeAction } {
  const node = args.node;
  const action = args.action;
  if (typeof node !== 'string' || !node) throw new Error('node.action: node is required');
  if (!fleet.nodes.has(node)) throw new Error(`node.action: node "${node}" is not a node of this kubelet-sim`);
  if (typeof action !== 'string' || !(NODE_ACTIONS as readonly string[]).includes(action)) {
    throw new Error(`node.action: action must be one of ${NODE_ACTIONS.join(', ')}, not ${JSON.stringify(action)}`);
  }
  return { node, action: action as NodeAction };
}

/** Applies one action; returns the node's new mode. */
export async function applyNodeAction(fleet: NodeFleet, node: string, action: NodeAction): Promise<NodeActionResult> {
  let mode: NodeMode;
  switch (action) {
    case 'partition':
    case 'heal':
    case 'start':
      mode = await fleet.chaos(node, action);
      break;
    case 'fail':
      mode = await fleet.chaos(node, 'stop');
      break;
    case 'kubelet-kill':
      mode = fleet.kubeletDown(node, 'killed');
      break;
    case 'kubelet-stop':
      mode = fleet.kubeletDown(node, 'stopped');
      break;
    case 'kubelet-pause':
      mode = fleet.kubeletDown(node, 'paused');
      break;
    case 'kubelet-start':
      mode = await fleet.kubeletUp(node, 'start');
      break;
    case 'kubelet-resume':
      mode = await fleet.kubeletUp(node, 'resume');
      break;
  }
  return { node, mode };
}
