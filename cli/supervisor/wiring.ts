// Puts the chaos side of the supervisor together once its apiserver serves:
// the admin's client, the recorder, the fault registry, the executor and
// the control endpoint (with DIR/control.json). Loaded by `ksim up` while
// its apiserver starts, so none of it delays the start.
import type { Logger } from 'pino';
import { StatusError } from '../../shared/api/errors.ts';
import { SelectionError } from '../chaos/select-pods.ts';
import { KubeClient } from '../../shared/client/kube-client.ts';
import { ChaosRecorder } from './chaos-record.ts';
import type { SupervisedChild } from './child.ts';
import { startControlServer, type ControlServer } from './control-server.ts';
import type { FaultContext } from './context.ts';
import { ChaosExecutor, UnknownFault } from './executor.ts';
import { FaultRegistry } from './fault-registry.ts';
import { ComponentRequestError } from './rpc.ts';
import { statusSnapshot } from './status-snapshot.ts';
import { ProcessOpError, type Supervisor } from './supervisor.ts';
import { BadRequest } from './validate.ts';

/** The HTTP status for an error a chaos request ended in. */
export function statusOf(err: unknown): number {
  if (err instanceof BadRequest || err instanceof SelectionError) return 400;
  if (err instanceof UnknownFault) return 404;
  if (err instanceof ProcessOpError || err instanceof ComponentRequestError) return err.status;
  if (err instanceof StatusError) return err.code;
  return 500;
}

export interface ChaosControl {
  ctx: FaultContext;
  executor: ChaosExecutor;
  /** Starts the endpoint (once this supervisor owns the data dir). */
  serve(server: () => string): Promise<ControlServer>;
  /** A component's new process started. */
  started(child: SupervisedChild, why: 'chaos' | 'restart-policy'): void;
  close(): void;
}

/** The chaos side, for a supervisor whose admin kubeconfig is `kubeconfig`. */
export function chaosControl(opts: {
  supervisor: Supervisor;
  dataDir: string;
  kubeconfig: string;
  tls: boolean;
  controlPlaneNode: string;
  log: Logger;
}): ChaosControl {
  let client: KubeClient | undefined;
  const getClient = () => {
    if (client) return client;
    try {
      client = KubeClient.fromKubeconfig(opts.kubeconfig, { userAgent: 'ksim-chaos', timeoutMs: 10_000 });
    } catch {
      return undefined;
    }
    return client;
  };
  const recorder = new ChaosRecorder(opts.log, getClient);
  const registry = new FaultRegistry(recorder, opts.log);
  const ctx: FaultContext = {
    supervisor: opts.supervisor,
    registry,
    recorder,
    client: getClient,
    dataDir: opts.dataDir,
    tls: opts.tls,
    controlPlaneNode: opts.controlPlaneNode,
    log: opts.log,
  };
  const executor = new ChaosExecutor(ctx);
  return {
    ctx,
    executor,
    serve: (server) =>
      startControlServer(
        opts.dataDir,
        {
          status: () => statusSnapshot(ctx, server()),
          chaos: (body) => executor.execute(body),
          faults: () => registry.list(),
        },
        statusOf,
        opts.log,
      ),
    started: (child, why) => executor.onStarted(child, why),
    close: () => {
      registry.close();
      client?.close();
    },
  };
}
