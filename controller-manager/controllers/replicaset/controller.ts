// The ReplicaSet controller: keeps the number of active Pods owned by each
// ReplicaSet at spec.replicas, adopts matching orphans and releases Pods that
// stop matching, and reports status. Decisions come from plan.ts; this file
// wires informers, expectations and API writes.
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { controllerOf, controllerRef } from '../../../shared/controller/owner-refs.ts';
import { Expectations } from '../../../shared/controller/expectations.ts';
import { claim, writeStatus } from '../../../shared/controller/claim.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext } from '../../context.ts';
import { computeStatus, isActive, planReplicas, selects, slowStartBatches } from './plan.ts';

const replicasets = findResource('apps', 'v1', 'replicasets')!;
const pods = findResource('', 'v1', 'pods')!;

/** Builds the controller; the caller runs it with runController. */
export function replicaSetController(ctx: ControllerContext) {
  const name = 'replicaset';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const expectations = new Expectations(ctx.clock);
  const rsInformer = ctx.informers.informerFor<ReplicaSet>(replicasets);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  rsInformer.cache.addIndex('uid', (rs) => [rs.metadata!.uid!]);
  podInformer.cache.addIndex('controller', (p) => [controllerOf(p)?.uid ?? '']);
  const log = ctx.log.child({ controller: name });

  const ownerKey = (pod: Pod): string | undefined => {
    const ref = controllerOf(pod);
    if (ref?.kind !== 'ReplicaSet') return undefined;
    const rs = rsInformer.cache.byIndex('uid', ref.uid)[0];
    return rs ? keyOf(rs) : undefined;
  };
  const enqueueMatching = (pod: Pod) => {
    for (const rs of rsInformer.cache.byIndex('namespace', pod.metadata!.namespace!)) if (selects(rs, pod)) queue.add(keyOf(rs));
  };

  rsInformer.on({
    add: (rs) => queue.add(keyOf(rs)),
    update: (_old, rs) => queue.add(keyOf(rs)),
    delete: (rs) => {
      expectations.delete(keyOf(rs));
      queue.add(keyOf(rs));
    },
  });
  podInformer.on({
    add: (pod) => {
      const key = ownerKey(pod);
      if (key) {
        expectations.creationObserved(key);
        queue.add(key);
      } else if (!controllerOf(pod)) enqueueMatching(pod);
    },
    update: (old, pod) => {
      const key = ownerKey(pod);
      const oldKey = ownerKey(old);
      if (oldKey && oldKey !== key) queue.add(oldKey);
      if (key) queue.add(key);
      else if (!controllerOf(pod)) enqueueMatching(pod);
      if (pod.metadata!.deletionTimestamp && !old.metadata!.deletionTimestamp && key) expectations.deletionObserved(key, keyOf(pod));
    },
    delete: (pod) => {
      const key = ownerKey(pod);
      if (!key) return;
      expectations.deletionObserved(key, keyOf(pod));
      queue.add(key);
    },
  });

  /** Adopts matching orphans and releases owned Pods that stopped matching; returns the owned Pods. */
  const claimPods = (rs: ReplicaSet): Promise<Pod[]> =>
    claim({
      owner: rs,
      ownerApiVersion: 'apps/v1',
      ownerKind: 'ReplicaSet',
      candidates: podInformer.cache.byIndex('namespace', rs.metadata!.namespace!),
      selects: (pod: Pod) => selects(rs, pod),
      patch: (pod: Pod, patch) => ctx.client.patch(pods, pod.metadata!.namespace, pod.metadata!.name!, 'strategic', patch),
    });

  function podFromTemplate(rs: ReplicaSet): Pod {
    const t: PodTemplateSpec = rs.spec!.template ?? {};
    const meta = rs.metadata!;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        generateName: `${meta.name}-`,
        namespace: meta.namespace,
        labels: { ...t.metadata?.labels },
        ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
        ...(t.metadata?.finalizers ? { finalizers: [...t.metadata.finalizers] } : {}),
        ownerReferences: [controllerRef({ metadata: { name: meta.name!, uid: meta.uid! } }, 'apps/v1', 'ReplicaSet')],
      },
      spec: structuredClone(t.spec!),
    };
  }

  async function createPods(rs: ReplicaSet, key: string, count: number): Promise<string | undefined> {
    expectations.expectCreations(key, count);
    let remaining = count;
    for (const size of slowStartBatches(count)) {
      const results = await Promise.allSettled(
        Array.from({ length: size }, () => ctx.client.create<Pod>(pods, rs.metadata!.namespace, podFromTemplate(rs))),
      );
      remaining -= size;
      let failure: string | undefined;
      for (const r of results) {
        if (r.status === 'fulfilled') ctx.events.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata!.name}`);
        else {
          expectations.creationObserved(key);
          failure = (r.reason as Error).message;
          ctx.events.event(rs, 'Warning', 'FailedCreate', `Error creating: ${failure}`);
        }
      }
      if (failure) {
        // The batches not sent will never be observed.
        for (let i = 0; i < remaining; i++) expectations.creationObserved(key);
        return failure;
      }
    }
    return undefined;
  }

  async function deletePods(rs: ReplicaSet, key: string, victims: Pod[]): Promise<void> {
    expectations.expectDeletions(key, victims.map(keyOf));
    await Promise.all(
      victims.map(async (pod) => {
        try {
          await ctx.client.delete(pods, pod.metadata!.namespace, pod.metadata!.name!);
          ctx.events.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata!.name}`);
        } catch (err) {
          expectations.deletionObserved(key, keyOf(pod));
          if (!(err instanceof StatusError && err.code === 404)) {
            ctx.events.event(rs, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
            throw err;
          }
        }
      }),
    );
  }

  async function reconcile(key: string) {
    const rs = rsInformer.cache.get(key);
    if (!rs) return;
    const owned = await claimPods(rs);
    const active = owned.filter(isActive);
    const now = ctx.clock.now();
    let failure: string | undefined;
    if (expectations.satisfied(key) && !rs.metadata!.deletionTimestamp) {
      const plan = planReplicas(rs, active, now);
      if (plan.create > 0) failure = await createPods(rs, key, plan.create);
      if (plan.delete.length > 0) await deletePods(rs, key, plan.delete);
    }
    const { status, requeueAfterMs } = computeStatus(rs, active, now, failure, ctx.speed);
    if (!deepEqual(status, rs.status ?? {})) await writeStatus(ctx.client, replicasets, rs, status);
    if (failure) throw new Error(failure);
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  }

  log.debug('configured');
  return { name, queue, informers: [rsInformer, podInformer], reconcile };
}
