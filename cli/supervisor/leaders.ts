// Which replica of a leader-elected component (controller-manager,
// scheduler) holds its Lease: each running replica is asked ('info', whose
// leader field the leader elector registers); when none answers that, the
// kube-system Lease's holderIdentity is read and matched to a pid (the
// scheduler's identity ends in _PID). Answers are short-timed: a paused
// replica must not hold up `ksim status`.
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { ComponentInfo } from '../../shared/chaos/protocol.ts';
import { findResource } from '../../shared/api/resources.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import type { SupervisedChild } from './child.ts';
import { kindOf } from './components.ts';

const leases = findResource('coordination.k8s.io', 'v1', 'leases')!;

/** The Lease each leader-elected kind runs its election on. */
export const LEASE_OF: Record<string, string> = {
  'controller-manager': 'kube-controller-manager',
  scheduler: 'kube-scheduler',
};

/** Whether each of `children` leads (by name); absent when unknown. */
export async function leaderStates(
  children: SupervisedChild[],
  client: () => KubeClient | undefined,
  timeoutMs = 700,
): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  const elected = children.filter((c) => LEASE_OF[kindOf(c.name)]);
  await Promise.all(
    elected
      .filter((c) => c.state.state === 'running' && c.channel)
      .map(async (c) => {
        try {
          const info = await c.channel!.request<ComponentInfo>('info', {}, timeoutMs);
          if (info?.leader) out.set(c.name, info.leader.leading);
        } catch {
          // unknown
        }
      }),
  );
  // Kinds where no replica said: the Lease's holder, matched to a pid.
  const kinds = [...new Set(elected.filter((c) => !out.has(c.name)).map((c) => kindOf(c.name)))];
  const kube = client();
  if (!kube) return out;
  await Promise.all(
    kinds.map(async (kind) => {
      const holder = await leaseHolder(kube, kind, timeoutMs);
      if (holder === undefined) return;
      for (const c of elected.filter((e) => kindOf(e.name) === kind && !out.has(e.name) && e.running)) {
        if (holder.endsWith(`_${c.state.pid}`)) out.set(c.name, true);
        else if (holder !== '' && /_\d+$/.test(holder)) out.set(c.name, false);
      }
    }),
  );
  return out;
}

/** The holderIdentity of `kind`'s Lease ('' when none holds it), or undefined when it cannot be read in time. */
export async function leaseHolder(client: KubeClient, kind: string, timeoutMs = 2000): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const lease = await Promise.race([
      client.get<Lease>(leases, 'kube-system', LEASE_OF[kind]),
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs))),
    ]);
    return lease ? (lease.spec?.holderIdentity ?? '') : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
