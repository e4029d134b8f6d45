// What every fault handler works with: the processes, the faults in effect,
// the recorder, the admin's client, and the cluster's settings; plus the
// helpers they share (a component's control request with retries, the
// running kubelet-sim).
import type { Logger } from 'pino';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import type { SupervisedChild } from './child.ts';
import type { ChaosRecorder } from './chaos-record.ts';
import type { FaultRegistry } from './fault-registry.ts';
import { ComponentRequestError } from './rpc.ts';
import { ProcessOpError, type Supervisor } from './supervisor.ts';

export interface FaultContext {
  supervisor: Supervisor;
  registry: FaultRegistry;
  recorder: ChaosRecorder;
  /** The admin's client, once the apiserver has served. */
  client: () => KubeClient | undefined;
  dataDir: string;
  tls: boolean;
  controlPlaneNode: string;
  log: Logger;
}

/** A control request to a running child. */
export function ask<T = unknown>(child: SupervisedChild, op: string, args: Record<string, unknown>, timeoutMs = 5000): Promise<T> {
  if (!child.running || !child.channel) return Promise.reject(new ProcessOpError(`${child.name} is not running (${child.state.state})`));
  return child.channel.request<T>(op, args, timeoutMs);
}

/**
 * A control request to a child that may have only just started (it serves its
 * channel once its code runs): retried while it does not serve yet, for up to `totalMs`.
 */
export async function askSoon<T = unknown>(
  child: SupervisedChild,
  op: string,
  args: Record<string, unknown>,
  totalMs = 15_000,
): Promise<T> {
  const end = Date.now() + totalMs;
  for (;;) {
    try {
      return await ask<T>(child, op, args, 1000);
    } catch (err) {
      const notYet = err instanceof ComponentRequestError && (err.status === 504 || /does not serve/.test(err.message));
      if (!notYet || Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** The running kubelet-sim, which serves the node and Pod faults. */
export function kubeletSim(ctx: FaultContext): SupervisedChild {
  const child = ctx.supervisor.find('kubelet-sim');
  if (!child) throw new ProcessOpError('this cluster has no simulated nodes (kubelet-sim is not part of it)', 400);
  if (!child.running) throw new ProcessOpError(`kubelet-sim is not running (${child.state.state}): start it first`);
  return child;
}

/** The admin's client, or a refusal while the apiserver has not served. */
export function adminClient(ctx: FaultContext): KubeClient {
  const c = ctx.client();
  if (!c) throw new ProcessOpError('the apiserver has not served yet', 503);
  return c;
}
