// Node faults, served by kubelet-sim: partition (the kubelet keeps its Pods
// but cannot reach the apiserver) until heal, fail (power off) until start,
// pressure (memory, disk or pid: the condition, the taint, evictions) until
// it is turned off.
import type { ChaosRequest, ChaosResult } from '../../shared/chaos/protocol.ts';
import { nodeObject } from './chaos-record.ts';
import { ask, kubeletSim, type FaultContext } from './context.ts';
import { nodeOf } from './targets.ts';

/** Runs partition, heal, fail or pressure. */
export async function nodeFault(ctx: FaultContext, req: ChaosRequest): Promise<ChaosResult> {
  const node = nodeOf(req.target);
  const sim = kubeletSim(ctx);
  const on = `node/${node}`;
  const objects = [nodeObject(node)];
  if (req.action === 'heal') {
    await ask(sim, 'node.action', { node, action: 'heal' });
    const message = `healed node ${node}`;
    if (ctx.registry.forget((e) => e.on === on && e.fault.request.action === 'partition', message).length === 0)
      await ctx.recorder.record('ChaosRecovered', message, objects, { node });
    return { message, affected: [on] };
  }
  const id = ctx.registry.newId(req);
  let message: string;
  let undo: () => Promise<string>;
  if (req.action === 'pressure') {
    const kind = req.pressure!;
    await ask(sim, 'node.pressure', { node, kind, on: true });
    message = `${kind} pressure on node ${node}`;
    undo = async () => {
      await ask(kubeletSim(ctx), 'node.pressure', { node, kind, on: false });
      return `${kind} pressure off on node ${node}`;
    };
  } else {
    const [action, undoAction, verb, undoVerb] =
      req.action === 'partition' ? ['partition', 'heal', 'partitioned', 'healed'] : ['fail', 'start', 'failed (powered off)', 'powered on'];
    await ask(sim, 'node.action', { node, action });
    message = `${verb} node ${node}`;
    undo = async () => {
      await ask(kubeletSim(ctx), 'node.action', { node, action: undoAction });
      return `${undoVerb} node ${node}`;
    };
  }
  await ctx.recorder.record('ChaosInjected', message, objects, { fault: id, node });
  ctx.registry.add(id, req, message, { undo, objects, on });
  return { faultId: id, message, affected: [on] };
}
