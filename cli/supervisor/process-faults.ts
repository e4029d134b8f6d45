// Process faults: kill (SIGKILL: a crash, which --restart=on-failure
// restarts), stop (SIGTERM, waited for: not restarted), start (same flags;
// the apiserver on the port it served), pause/resume (SIGSTOP/SIGCONT),
// restart (stop and start). On node/NAME they reach that simulated node's
// kubelet alone, through kubelet-sim. kill, stop and pause last until the
// component is started or resumed (or `recover`, or the duration ends).
import type { ChaosRequest, ChaosResult } from '../../shared/chaos/protocol.ts';
import type { SupervisedChild } from './child.ts';
import { componentObjects, nodeObject } from './chaos-record.ts';
import { ask, kubeletSim, type FaultContext } from './context.ts';
import { resolveTarget } from './targets.ts';
import { ProcessOpError } from './supervisor.ts';

type ProcessAction = 'kill' | 'stop' | 'start' | 'pause' | 'resume' | 'restart';

/** Runs a process fault. */
export async function processFault(ctx: FaultContext, req: ChaosRequest & { action: ProcessAction }): Promise<ChaosResult> {
  const target = await resolveTarget(ctx, req.target!);
  if ('node' in target) return kubeletFault(ctx, req, target.node);
  return componentFault(ctx, req, target.child, target.viaLeader);
}

async function componentFault(ctx: FaultContext, req: ChaosRequest, child: SupervisedChild, viaLeader: boolean): Promise<ChaosResult> {
  const { supervisor, registry, recorder } = ctx;
  const objects = componentObjects(child.name, ctx.controlPlaneNode, viaLeader);
  const name = child.name;
  const who = viaLeader ? `${name} (the ${req.target!.slice('leader/'.length)} leader)` : name;
  const pid = child.state.pid;
  const lasting = async (verb: string, act: () => Promise<unknown> | void, undo: () => Promise<string>): Promise<ChaosResult> => {
    if (!child.running) throw new ProcessOpError(`${name} is not running (${child.state.state})`);
    if (verb === 'paused' && child.state.state === 'paused') throw new ProcessOpError(`${name} is already paused`);
    const id = registry.newId(req);
    const message = `${verb} ${who} (pid ${pid})`;
    // Recorded first: once the apiserver is down, no Event can be written.
    await recorder.record('ChaosInjected', message, objects, { fault: id, component: name, pid });
    await act();
    registry.add(id, req, message, { undo, objects, on: name });
    return { faultId: id, message, affected: [`${name} (pid ${pid})`] };
  };
  const startAgain = async () => {
    if (child.running) return `${name} is running again (pid ${child.state.pid})`;
    await supervisor.start(name);
    return `started ${name} (pid ${child.state.pid})`;
  };
  switch (req.action) {
    case 'kill':
      return lasting('killed', () => supervisor.kill(name), startAgain);
    case 'stop':
      return lasting('stopped', () => supervisor.stop(name), startAgain);
    case 'pause':
      return lasting(
        'paused',
        () => void supervisor.pause(name),
        () => {
          if (child.state.state === 'paused') supervisor.resume(name);
          return Promise.resolve(`resumed ${name} (pid ${child.state.pid})`);
        },
      );
    case 'start': {
      await supervisor.start(name);
      const message = `started ${name} (pid ${child.state.pid})`;
      return { message, affected: [`${name} (pid ${child.state.pid})`] };
    }
    case 'resume': {
      supervisor.resume(name);
      const message = `resumed ${name} (pid ${child.state.pid})`;
      if (registry.forget((e) => e.on === name && e.fault.request.action === 'pause', message).length === 0)
        await recorder.record('ChaosRecovered', message, objects, { component: name });
      return { message, affected: [`${name} (pid ${child.state.pid})`] };
    }
    case 'restart': {
      await recorder.record('ChaosInjected', `restarting ${who} (pid ${pid})`, objects, { component: name, pid });
      await supervisor.restart(name);
      const message = `restarted ${who} (pid ${pid} -> ${child.state.pid})`;
      return { message, affected: [`${name} (pid ${child.state.pid})`] };
    }
  }
  throw new Error(`not a process action: ${req.action}`);
}

/** kubelet-sim's node.action for each process action on node/NAME, and the one that undoes it. */
const KUBELET_ACTIONS: Record<ProcessAction, { action: string; undo?: string; verb: string }> = {
  kill: { action: 'kubelet-kill', undo: 'kubelet-start', verb: 'killed the kubelet of' },
  stop: { action: 'kubelet-stop', undo: 'kubelet-start', verb: 'stopped the kubelet of' },
  pause: { action: 'kubelet-pause', undo: 'kubelet-resume', verb: 'paused the kubelet of' },
  start: { action: 'kubelet-start', verb: 'started the kubelet of' },
  resume: { action: 'kubelet-resume', verb: 'resumed the kubelet of' },
  restart: { action: 'kubelet-stop', verb: 'restarted the kubelet of' },
};

async function kubeletFault(ctx: FaultContext, req: ChaosRequest & { action: ProcessAction }, node: string): Promise<ChaosResult> {
  const sim = kubeletSim(ctx);
  const { registry, recorder } = ctx;
  const on = `node/${node}`;
  const spec = KUBELET_ACTIONS[req.action];
  const objects = [nodeObject(node)];
  const message = `${spec.verb} node ${node}`;
  if (req.action === 'start' || req.action === 'resume') {
    // A node that was powered off (fail) comes back with 'start'.
    const failed = req.action === 'start' && registry.entriesWhere((e) => e.on === on && e.fault.request.action === 'fail').length > 0;
    await ask(sim, 'node.action', { node, action: failed ? 'start' : spec.action });
    const undone = req.action === 'start' ? ['kill', 'stop', 'fail'] : ['pause'];
    if (registry.forget((e) => e.on === on && undone.includes(e.fault.request.action), message).length === 0)
      await recorder.record('ChaosRecovered', message, objects, { node });
    return { message, affected: [on] };
  }
  if (req.action === 'restart') {
    await ask(sim, 'node.action', { node, action: 'kubelet-stop' });
    await ask(sim, 'node.action', { node, action: 'kubelet-start' });
    await recorder.record('ChaosInjected', message, objects, { node });
    return { message, affected: [on] };
  }
  const id = registry.newId(req);
  await ask(sim, 'node.action', { node, action: spec.action });
  await recorder.record('ChaosInjected', message, objects, { fault: id, node });
  registry.add(id, req, message, {
    objects,
    on,
    undo: async () => {
      await ask(kubeletSim(ctx), 'node.action', { node, action: spec.undo! });
      return `${KUBELET_ACTIONS[spec.undo === 'kubelet-resume' ? 'resume' : 'start'].verb} node ${node}`;
    },
  });
  return { faultId: id, message, affected: [on] };
}
