// The ReplicaSet controller: keeps the number of active Pods owned by each
// ReplicaSet at spec.replicas, adopts matching orphans and releases Pods that
// stop matching, and reports status. Decisions come from plan.ts; this file
// wires informers, expectations and API writes. As in kube, the same
// controller runs on another kind through a ReplicaSetKind (the replication
// controller runs it on ReplicationControllers).
import type { ReplicaSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import type { KubeObject } from '../../../shared/api/object.ts';
import type { ResourceType } from '../../../shared/api/resource-type.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { controllerOf } from '../../../shared/controller/owner-refs.ts';
import { podFromTemplate } from '../../../shared/controller/pod-from-template.ts';
import { Expectations } from '../../../shared/controller/expectations.ts';
import { claim, writeStatus } from '../../../shared/controller/claim.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext } from '../../context.ts';
import type { ReplicaSetLike } from '../deployment/util.ts';
import { computeStatus, isActive, planReplicas, selects, slowStartBatches } from './plan.ts';
import type { ReconcileItem } from '../../../shared/controller/stepper.ts';

const replicasets = findResource('apps', 'v1', 'replicasets')!;
const pods = findResource('', 'v1', 'pods')!;

/** The kind a ReplicaSet controller runs on, and how to read one of its objects as a ReplicaSet. */
export interface ReplicaSetKind<T extends KubeObject> {
  /** The controller's name (queue metrics, logs). */
  name: string;
  resource: ResourceType;
  /** The apiVersion and kind of the owner references put on Pods. */
  apiVersion: string;
  kind: string;
  /** The object seen as a ReplicaSet: spec.selector a LabelSelector, status as a ReplicaSet's. */
  asReplicaSet: (obj: T) => ReplicaSetLike;
}

const REPLICA_SETS: ReplicaSetKind<ReplicaSet> = {
  name: 'replicaset',
  resource: replicasets,
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  asReplicaSet: (rs) => rs,
};

/** Builds the ReplicaSet controller; the caller runs it with runController. */
export function replicaSetController(ctx: ControllerContext) {
  return replicaSetKindController(ctx, REPLICA_SETS);
}

/** Builds the ReplicaSet controller for the objects of `k`. */
export function replicaSetKindController<T extends KubeObject>(ctx: ControllerContext, k: ReplicaSetKind<T>) {
  const name = k.name;
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const expectations = new Expectations(ctx.clock);
  const rsInformer = ctx.informers.informerFor<T>(k.resource);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  rsInformer.cache.addIndex('uid', (rs) => [rs.metadata!.uid!]);
  podInformer.cache.addIndex('controller', (p) => [controllerOf(p)?.uid ?? '']);
  const log = ctx.log.child({ controller: name });

  const ownerKey = (pod: Pod): string | undefined => {
    const ref = controllerOf(pod);
    if (ref?.kind !== k.kind) return undefined;
    const rs = rsInformer.cache.byIndex('uid', ref.uid)[0];
    return rs ? keyOf(rs) : undefined;
  };
  const enqueueMatching = (pod: Pod) => {
    for (const rs of rsInformer.cache.byIndex('namespace', pod.metadata!.namespace!))
      if (selects(k.asReplicaSet(rs), pod)) queue.add(keyOf(rs));
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
  const claimPods = (obj: T, rs: ReplicaSetLike): Promise<Pod[]> =>
    claim({
      owner: obj,
      ownerApiVersion: k.apiVersion,
      ownerKind: k.kind,
      candidates: podInformer.cache.byIndex('namespace', rs.metadata!.namespace!),
      selects: (pod: Pod) => selects(rs, pod),
      patch: (pod: Pod, patch) => ctx.client.patch(pods, pod.metadata!.namespace, pod.metadata!.name!, 'strategic', patch),
    });

  async function createPods(obj: T, rs: ReplicaSetLike, key: string, count: number): Promise<string | undefined> {
    expectations.expectCreations(key, count);
    let remaining = count;
    for (const size of slowStartBatches(count)) {
      const results = await Promise.allSettled(
        Array.from({ length: size }, () =>
          ctx.client.create<Pod>(pods, rs.metadata!.namespace, podFromTemplate(rs.spec!.template ?? {}, rs.metadata!, k)),
        ),
      );
      remaining -= size;
      let failure: string | undefined;
      for (const r of results) {
        if (r.status === 'fulfilled') ctx.events.event(obj, 'Normal', 'SuccessfulCreate', `Created pod: ${r.value.metadata!.name}`);
        else {
          expectations.creationObserved(key);
          failure = (r.reason as Error).message;
          ctx.events.event(obj, 'Warning', 'FailedCreate', `Error creating: ${failure}`);
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

  async function deletePods(obj: T, key: string, victims: Pod[]): Promise<void> {
    expectations.expectDeletions(key, victims.map(keyOf));
    await Promise.all(
      victims.map(async (pod) => {
        try {
          await ctx.client.delete(pods, pod.metadata!.namespace, pod.metadata!.name!);
          ctx.events.event(obj, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata!.name}`);
        } catch (err) {
          expectations.deletionObserved(key, keyOf(pod));
          if (!(err instanceof StatusError && err.code === 404)) {
            ctx.events.event(obj, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
            throw err;
          }
        }
      }),
    );
  }

  async function reconcile(key: string, item?: ReconcileItem) {
    const obj = rsInformer.cache.get(key);
    if (!obj) return;
    const rs = k.asReplicaSet(obj);
    const owned = await claimPods(obj, rs);
    const active = owned.filter(isActive);
    const now = ctx.clock.now();
    let failure: string | undefined;
    const satisfied = expectations.satisfied(key);
    if (!satisfied) item?.note({ decision: 'wait: creates or deletes it made are not all observed yet (expectations)' });
    if (satisfied && !rs.metadata!.deletionTimestamp) {
      const plan = planReplicas(rs, active, now);
      const want = rs.spec?.replicas ?? 1;
      item?.note({
        want: { replicas: want },
        have: { active: active.length, owned: owned.length },
        decision: plan.create
          ? `create ${plan.create} Pod(s)`
          : plan.delete.length
            ? `delete ${plan.delete.map((p) => p.metadata!.name).join(', ')}`
            : 'nothing to do: have what is wanted',
      });
      if (plan.create > 0) failure = await createPods(obj, rs, key, plan.create);
      if (plan.delete.length > 0) await deletePods(obj, key, plan.delete);
    }
    const { status, requeueAfterMs } = computeStatus(rs, active, now, failure, ctx.speed);
    if (!deepEqual(status, rs.status ?? {})) await writeStatus(ctx.client, k.resource, obj, status);
    if (failure) throw new Error(failure);
    return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
  }

  log.debug('configured');
  return { name, queue, informers: [rsInformer, podInformer], reconcile };
}
