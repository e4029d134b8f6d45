// The DaemonSet controller: one daemon Pod on every node the DaemonSet's
// template may run on, created with a node-name affinity so the scheduler
// binds it; RollingUpdate (maxUnavailable or maxSurge) and OnDelete; a
// ControllerRevision per template for `kubectl rollout history/undo`; and
// the status `kubectl rollout status` reads. Decisions come from plan.ts;
// this file reads the caches and writes through the API.
import type { ControllerRevision, DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { claim, writeStatus } from '../../../shared/controller/claim.ts';
import { Expectations } from '../../../shared/controller/expectations.ts';
import { controllerOf, controllerRef } from '../../../shared/controller/owner-refs.ts';
import { podFromTemplate } from '../../../shared/controller/pod-from-template.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { isEmptySelector, matchesLabels, selectorFromLabelSelector } from '../../../shared/labels/label-selector.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { podTemplateHash } from '../deployment/util.ts';
import { claimControllerRevisions, controllerRevisions } from '../history/history.ts';
import { slowStartBatches } from '../replicaset/plan.ts';
import {
  computeStatus,
  daemonSetPatch,
  FailedPodBackoff,
  historyToDelete,
  keptCurrent,
  matchesRevision,
  planManage,
  planRollingUpdate,
  podsByNode,
  splitHistory,
  type NodePlan,
} from './plan.ts';
import type { ReconcileItem } from '../../../shared/controller/stepper.ts';
import { nodesNotes, planNotes } from './notes.ts';
import { CONTROLLER_REVISION_HASH_LABEL, createPodTemplate, nodeNameAffinity, nodeShouldRunDaemonPod, templateGeneration } from './util.ts';

const daemonsets = findResource('apps', 'v1', 'daemonsets')!;
const pods = findResource('', 'v1', 'pods')!;
const nodes = findResource('', 'v1', 'nodes')!;
const KIND = { apiVersion: 'apps/v1', kind: 'DaemonSet' };

/** Builds the DaemonSet controller; the caller runs it with runController. */
export function daemonSetController(ctx: ControllerContext): ControllerParts {
  const name = 'daemonset';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  // Creates and deletions are expected separately: one sync may issue both.
  const creates = new Expectations(ctx.clock);
  const deletes = new Expectations(ctx.clock);
  const satisfied = (key: string) => creates.satisfied(key) && deletes.satisfied(key);
  const backoff = new FailedPodBackoff(1000 / ctx.speed, (15 * 60_000) / ctx.speed);
  const dsInformer = ctx.informers.informerFor<DaemonSet>(daemonsets);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  const nodeInformer = ctx.informers.informerFor<Node>(nodes);
  const crInformer = ctx.informers.informerFor<ControllerRevision>(controllerRevisions);
  dsInformer.cache.addIndex('uid', (ds) => [ds.metadata!.uid!]);
  const log = ctx.log.child({ controller: name });

  const selects = (ds: DaemonSet, obj: { metadata?: ObjectMeta }) =>
    matchesLabels(selectorFromLabelSelector(ds.spec?.selector), obj.metadata?.labels);
  const ownerKey = (obj: { metadata?: ObjectMeta }): string | undefined => {
    const ref = controllerOf(obj);
    if (ref?.kind !== 'DaemonSet') return undefined;
    const ds = dsInformer.cache.byIndex('uid', ref.uid)[0];
    return ds ? keyOf(ds) : undefined;
  };
  /** The owner of `obj`, or for an orphan every DaemonSet that selects it (they may adopt it). */
  const enqueueFor = (obj: { metadata?: ObjectMeta }) => {
    const key = ownerKey(obj);
    if (key) queue.add(key);
    else if (!controllerOf(obj))
      for (const ds of dsInformer.cache.byIndex('namespace', obj.metadata!.namespace!)) if (selects(ds, obj)) queue.add(keyOf(ds));
  };

  dsInformer.on({
    add: (ds) => queue.add(keyOf(ds)),
    update: (_old, ds) => queue.add(keyOf(ds)),
    delete: (ds) => {
      creates.delete(keyOf(ds));
      deletes.delete(keyOf(ds));
      queue.add(keyOf(ds));
    },
  });
  podInformer.on({
    add: (pod) => {
      const key = ownerKey(pod);
      if (key) creates.creationObserved(key);
      enqueueFor(pod);
    },
    update: (old, pod) => {
      const before = ownerKey(old);
      if (before && before !== ownerKey(pod)) queue.add(before);
      const key = ownerKey(pod);
      if (key && pod.metadata!.deletionTimestamp && !old.metadata!.deletionTimestamp) deletes.deletionObserved(key, keyOf(pod));
      enqueueFor(pod);
    },
    delete: (pod) => {
      const key = ownerKey(pod);
      if (!key) return;
      deletes.deletionObserved(key, keyOf(pod));
      queue.add(key);
    },
  });
  const enqueueForNode = (before: Node | undefined, after: Node | undefined) => {
    for (const ds of dsInformer.cache.list()) {
      const a = before ? nodeShouldRunDaemonPod(before, ds) : undefined;
      const b = after ? nodeShouldRunDaemonPod(after, ds) : undefined;
      if (a?.shouldRun !== b?.shouldRun || a?.shouldContinueRunning !== b?.shouldContinueRunning) queue.add(keyOf(ds));
    }
  };
  nodeInformer.on({
    add: (node) => enqueueForNode(undefined, node),
    update: (old, node) => enqueueForNode(old, node),
    delete: (node) => enqueueForNode(node, undefined),
  });
  crInformer.on({
    add: enqueueFor,
    update: (old, cr) => {
      const before = ownerKey(old);
      if (before && before !== ownerKey(cr)) queue.add(before);
      enqueueFor(cr);
    },
    delete: (cr) => {
      const key = ownerKey(cr);
      if (key) queue.add(key);
    },
  });

  const claimPods = (ds: DaemonSet): Promise<Pod[]> =>
    claim({
      owner: ds,
      ownerApiVersion: KIND.apiVersion,
      ownerKind: KIND.kind,
      candidates: podInformer.cache.byIndex('namespace', ds.metadata!.namespace!),
      selects: (pod: Pod) => selects(ds, pod),
      patch: (pod: Pod, patch) => ctx.client.patch(pods, pod.metadata!.namespace, pod.metadata!.name!, 'strategic', patch),
    });

  /** snapshot: the revision of the current template, named by its hash and the collision count. */
  async function snapshot(ds: DaemonSet, revision: number): Promise<ControllerRevision> {
    const meta = ds.metadata!;
    const hash = podTemplateHash(ds.spec?.template, ds.status?.collisionCount);
    const rev: ControllerRevision = {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: `${meta.name}-${hash}`,
        namespace: meta.namespace,
        labels: { ...ds.spec?.template?.metadata?.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash },
        ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
        ownerReferences: [controllerRef({ metadata: { name: meta.name!, uid: meta.uid! } }, KIND.apiVersion, KIND.kind)],
      },
      data: daemonSetPatch(ds),
      revision,
    };
    try {
      return await ctx.client.create<ControllerRevision>(controllerRevisions, meta.namespace, rev);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409 && err.reason === 'AlreadyExists')) throw err;
      const existing = await ctx.client.get<ControllerRevision>(controllerRevisions, meta.namespace, rev.metadata!.name!);
      if (matchesRevision(ds, existing)) return existing;
      // Another template took this name: bump collisionCount (on the latest copy) and retry the key.
      const fresh = await ctx.client.get<DaemonSet>(daemonsets, meta.namespace, meta.name!);
      if ((fresh.status?.collisionCount ?? 0) !== (ds.status?.collisionCount ?? 0)) {
        throw new Error(
          `found a stale collision count (${ds.status?.collisionCount ?? 0}, expected ${fresh.status?.collisionCount ?? 0}) of DaemonSet "${meta.name}" while processing; will retry until it is updated`,
          { cause: err },
        );
      }
      const status = { ...fresh.status, collisionCount: (fresh.status?.collisionCount ?? 0) + 1 };
      await ctx.client.update(daemonsets, { ...fresh, status }, 'status');
      log.info({ daemonset: keyOf(ds), collisionCount: status.collisionCount }, 'hash collision; collisionCount bumped');
      throw err;
    }
  }

  /** constructHistory: the current revision (created, deduplicated or renumbered as needed) and the old ones. */
  async function constructHistory(ds: DaemonSet, owned: Pod[]): Promise<{ cur: ControllerRevision; old: ControllerRevision[] }> {
    const ns = ds.metadata!.namespace!;
    const claimed = await claimControllerRevisions(ctx.client, ds, KIND, crInformer.cache.byIndex('namespace', ns), (r) => selects(ds, r));
    const revisions: ControllerRevision[] = [];
    for (const r of claimed) {
      if (r.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL]) revisions.push(r);
      else {
        const labelled = structuredClone(r);
        labelled.metadata!.labels = { ...labelled.metadata!.labels, [CONTROLLER_REVISION_HASH_LABEL]: r.metadata!.name! };
        revisions.push(await ctx.client.update<ControllerRevision>(controllerRevisions, labelled));
      }
    }
    const { current, old, currentRevision } = splitHistory(ds, revisions);
    let cur: ControllerRevision;
    if (current.length === 0) cur = await snapshot(ds, currentRevision);
    else {
      cur = keptCurrent(current);
      const hash = cur.metadata!.labels![CONTROLLER_REVISION_HASH_LABEL];
      for (const dup of current) {
        if (dup === cur) continue;
        // Pods of a duplicate take the kept revision's hash before the duplicate goes.
        for (const pod of owned) {
          if (pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash) continue;
          await ctx.client.patch(pods, ns, pod.metadata!.name!, 'strategic', {
            metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: hash } },
          });
        }
        await ctx.client.delete(controllerRevisions, ns, dup.metadata!.name!);
      }
      if ((cur.revision ?? 0) < currentRevision) {
        cur = await ctx.client.update<ControllerRevision>(controllerRevisions, { ...structuredClone(cur), revision: currentRevision });
      }
    }
    return { cur, old };
  }

  function newPod(ds: DaemonSet, template: ReturnType<typeof createPodTemplate>, node: string): Pod {
    const pod = podFromTemplate(template, ds.metadata!, KIND);
    pod.spec = { ...pod.spec!, affinity: nodeNameAffinity(template.spec?.affinity, node) };
    return pod;
  }

  const namespaceTerminating = (err: unknown) =>
    err instanceof StatusError && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');

  /** syncNodes: deletes `victims` and creates a daemon Pod on each node of `createOn` (in slow-start batches). */
  async function syncNodes(ds: DaemonSet, key: string, plan: NodePlan, hash: string): Promise<string[]> {
    const failures: string[] = [];
    for (const e of plan.events) ctx.events.event(ds, e.type, e.reason, e.message);
    if (plan.createOn.length) creates.expectCreations(key, plan.createOn.length);
    if (plan.delete.length) deletes.expectDeletions(key, plan.delete.map(keyOf));
    const template = createPodTemplate(ds.spec?.template, templateGeneration(ds), hash);
    const ns = ds.metadata!.namespace;
    const doDeletes = Promise.all(
      plan.delete.map(async (pod) => {
        try {
          await ctx.client.delete(pods, ns, pod.metadata!.name!);
          ctx.events.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata!.name}`);
        } catch (err) {
          deletes.deletionObserved(key, keyOf(pod));
          if (err instanceof StatusError && err.code === 404) return;
          ctx.events.event(ds, 'Warning', 'FailedDelete', `Error deleting: ${(err as Error).message}`);
          failures.push((err as Error).message);
        }
      }),
    );
    let pos = 0;
    for (const size of slowStartBatches(plan.createOn.length)) {
      const batch = plan.createOn.slice(pos, pos + size);
      pos += size;
      const before = failures.length;
      await Promise.all(
        batch.map(async (node) => {
          try {
            const made = await ctx.client.create<Pod>(pods, ns, newPod(ds, template, node));
            ctx.events.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${made.metadata!.name}`);
          } catch (err) {
            creates.creationObserved(key);
            if (namespaceTerminating(err)) return;
            ctx.events.event(ds, 'Warning', 'FailedCreate', `Error creating: ${(err as Error).message}`);
            failures.push((err as Error).message);
          }
        }),
      );
      if (failures.length > before) {
        // The batches never sent will never be observed.
        for (let i = pos; i < plan.createOn.length; i++) creates.creationObserved(key);
        break;
      }
    }
    await doDeletes;
    return failures;
  }

  async function reconcile(key: string, item?: ReconcileItem) {
    const ds = dsInformer.cache.get(key);
    if (!ds) {
      creates.delete(key);
      deletes.delete(key);
      return;
    }
    if (isEmptySelector(selectorFromLabelSelector(ds.spec?.selector))) {
      ctx.events.event(ds, 'Warning', 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    // A DaemonSet being deleted may have lost its revisions already: its status cannot be trusted.
    if (ds.metadata!.deletionTimestamp) return;
    const nodeList = nodeInformer.cache.list();
    const owned = await claimPods(ds);
    const { cur, old } = await constructHistory(ds, owned);
    const hash = cur.metadata!.labels![CONTROLLER_REVISION_HASH_LABEL];
    const now = ctx.clock.now();
    let byNode = podsByNode(owned);
    let failures: string[] = [];
    let requeueAfterMs: number | undefined;
    const observe = satisfied(key);
    item?.note(nodesNotes(ds, nodeList, byNode));
    if (!observe) item?.note({ decision: 'wait: creates or deletes it made are not all observed yet (expectations)' });
    if (observe) {
      const plan = planManage(ds, nodeList, byNode, hash, now, backoff, ctx.speed);
      item?.note(planNotes('manage', plan));
      requeueAfterMs = plan.requeueAfterMs;
      failures = await syncNodes(ds, key, plan, hash);
      if (satisfied(key) && (ds.spec?.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate') {
        byNode = podsByNode(await claimPods(ds));
        const rolling = planRollingUpdate(ds, nodeList, byNode, hash, ctx.clock.now(), ctx.speed);
        item?.note(planNotes('rolling update', rolling));
        failures.push(...(await syncNodes(ds, key, rolling, hash)));
      }
      const live = podInformer.cache.byIndex('namespace', ds.metadata!.namespace!).filter((p) => controllerOf(p)?.uid === ds.metadata!.uid);
      for (const r of historyToDelete(ds, old, live)) {
        try {
          await ctx.client.delete(controllerRevisions, r.metadata!.namespace, r.metadata!.name!);
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404))
            throw new Error('failed to clean up revisions of DaemonSet', { cause: err });
        }
      }
      byNode = podsByNode(
        podInformer.cache.byIndex('namespace', ds.metadata!.namespace!).filter((p) => controllerOf(p)?.uid === ds.metadata!.uid),
      );
    }
    const computed = computeStatus(ds, nodeList, byNode, hash, ctx.clock.now(), observe, ctx.speed);
    if (!deepEqual(computed.status, ds.status ?? {})) await writeStatus(ctx.client, daemonsets, ds, computed.status);
    if (failures.length) throw new Error(failures.join('; '));
    const after = [requeueAfterMs, computed.requeueAfterMs].filter((x): x is number => x !== undefined);
    return after.length ? { requeueAfterMs: Math.min(...after) } : undefined;
  }

  log.debug('configured');
  return { name, queue, informers: [dsInformer, podInformer, nodeInformer, crInformer], reconcile };
}
