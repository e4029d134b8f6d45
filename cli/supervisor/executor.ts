// Runs a ChaosRequest: checks it, hands it to the handler for its kind of
// fault, and undoes faults on `recover`. When a component starts again it
// re-applies what lived in its memory (the apiserver's faults, a skew) and
// ends the kill/stop faults that its start undid.
import type { ChaosRequest, ChaosResult } from '../../shared/chaos/protocol.ts';
import type { SupervisedChild } from './child.ts';
import { componentObjects } from './chaos-record.ts';
import { askSoon, type FaultContext } from './context.ts';
import { apiserverFault, watchFault } from './apiserver-faults.ts';
import { nodeFault } from './node-faults.ts';
import { podFault } from './pod-faults.ts';
import { processFault } from './process-faults.ts';
import { skewFault } from './skew-faults.ts';
import { validateChaosRequest } from './validate.ts';

/** A `recover` of a fault that is not in effect. */
export class UnknownFault extends Error {}

/** Executes chaos requests against one cluster. */
export class ChaosExecutor {
  constructor(private readonly ctx: FaultContext) {}

  /** Runs `body` (checked here); throws the errors the control endpoint maps to statuses. */
  async execute(body: unknown): Promise<ChaosResult> {
    const req = validateChaosRequest(body);
    switch (req.action) {
      case 'kill':
      case 'stop':
      case 'start':
      case 'pause':
      case 'resume':
      case 'restart':
        return processFault(this.ctx, req as ChaosRequest & { action: typeof req.action });
      case 'partition':
      case 'heal':
      case 'fail':
      case 'pressure':
        return nodeFault(this.ctx, req);
      case 'apiserver':
        return apiserverFault(this.ctx, req);
      case 'watch':
        return watchFault(this.ctx, req);
      case 'kill-pod':
      case 'delete-pod':
        return podFault(this.ctx, req);
      case 'skew':
        return skewFault(this.ctx, req);
      case 'recover':
        return this.recover(req.faultId);
    }
  }

  private async recover(id: string | undefined): Promise<ChaosResult> {
    const { registry } = this.ctx;
    if (id !== undefined) {
      if (!registry.has(id)) throw new UnknownFault(`faultId: no active fault "${id}" (\`ksim chaos list\` shows them)`);
      const line = await registry.recover(id);
      return { faultId: id, message: `recovered ${id}: ${line}`, affected: [id] };
    }
    const ids = registry.list().map((f) => f.id);
    const { done, failed } = await registry.recoverAll();
    if (ids.length === 0) return { message: 'no fault was in effect', affected: [] };
    return {
      message: `recovered ${done.length} fault${done.length === 1 ? '' : 's'}${failed.length ? `; could not undo ${failed.join('; ')}` : ''}`,
      affected: ids,
    };
  }

  /** A component's new process started (by chaos or by the restart policy). */
  onStarted(child: SupervisedChild, why: 'chaos' | 'restart-policy'): void {
    const { registry, recorder, log } = this.ctx;
    const line = `${why === 'chaos' ? 'started' : 'restarted (--restart=on-failure)'} ${child.name} (pid ${child.state.pid})`;
    const ended = registry.forget((e) => e.on === child.name && ['kill', 'stop'].includes(e.fault.request.action), line);
    if (ended.length === 0)
      void recorder.record('ChaosRecovered', line, componentObjects(child.name, this.ctx.controlPlaneNode), { component: child.name });
    const resend = registry.entriesWhere(
      (e) => (child === this.ctx.supervisor.apiserver && e.apiserverSpec !== undefined) || (e.on === child.name && e.skewMs !== undefined),
    );
    for (const e of resend) {
      const [op, args] = e.apiserverSpec ? ['apiserver.faults.set', { ...e.apiserverSpec }] : ['clock.skew', { offsetMs: e.skewMs }];
      askSoon(child, op, args).then(
        () => log.info({ fault: e.fault.id, component: child.name }, `re-applied fault ${e.fault.id} to ${child.name}`),
        (err) => log.error({ fault: e.fault.id, err: (err as Error).message }, `could not re-apply fault ${e.fault.id} to ${child.name}`),
      );
    }
  }
}
