// Clock skew: one component's clock runs ahead or behind (its leases,
// timeouts and timestamps go wrong as they would). The offset lives in that
// process; it is re-sent when the component starts again, and set back to
// 0 at recovery. A new skew on a component replaces the one it had.
import type { ChaosRequest, ChaosResult } from '../../shared/chaos/protocol.ts';
import { componentObjects } from './chaos-record.ts';
import { ask, type FaultContext } from './context.ts';
import { resolveTarget } from './targets.ts';

/** `ksim chaos skew COMPONENT +30s`. */
export async function skewFault(ctx: FaultContext, req: ChaosRequest): Promise<ChaosResult> {
  const target = await resolveTarget(ctx, req.target!);
  // node/NAME: its kubelet runs inside kubelet-sim, which has one clock for all nodes.
  const child = 'node' in target ? ctx.supervisor.find('kubelet-sim') : target.child;
  if (!child) throw new Error('this cluster has no kubelet-sim');
  const offsetMs = req.offsetMs!;
  await ask(child, 'clock.skew', { offsetMs });
  const name = child.name;
  const objects = componentObjects(name, ctx.controlPlaneNode, 'child' in target && target.viaLeader);
  const sign = offsetMs >= 0 ? '+' : '-';
  const message = `skewed ${name}'s clock ${sign}${Math.abs(offsetMs)}ms`;
  ctx.registry.forget((e) => e.on === name && e.skewMs !== undefined, `replaced by a new skew of ${name}`);
  const id = ctx.registry.newId(req);
  await ctx.recorder.record('ChaosInjected', message, objects, { fault: id, component: name, offsetMs });
  ctx.registry.add(id, req, message, {
    objects,
    on: name,
    skewMs: offsetMs,
    undo: async () => {
      if (child.running) await ask(child, 'clock.skew', { offsetMs: 0 });
      return `${name}'s clock is right again`;
    },
  });
  return { faultId: id, message, affected: [name] };
}
