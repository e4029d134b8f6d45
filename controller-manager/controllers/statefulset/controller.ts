// The StatefulSet controller (kube's stateful_set.go, stateful_set_control.go
// and stateful_pod_control.go): adopts its Pods and ControllerRevisions,
// keeps the current and update revisions, creates, fixes and deletes Pods and
// their claims as plan.ts decides, writes status, trims the revision history,
// and looks again after minReadySeconds. Decisions are in plan.ts and
// revision.ts; this file reads the caches and writes through the API.
import type { ControllerRevision, StatefulSet, StatefulSetStatus } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { claim, writeStatus } from '../../../shared/controller/claim.ts';
import { controllerOf } from '../../../shared/controller/owner-refs.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { matchesLabels, selectorFromLabelSelector } from '../../../shared/labels/label-selector.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import type { ReconcileItem } from '../../../shared/controller/stepper.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import {
  claimControllerRevisions,
  controllerRevisions,
  createControllerRevision,
  listControllerRevisions,
  revisionsToTruncate,
  updateControllerRevision,
} from '../history/history.ts';
import {
  claimName,
  claimOwnerRefsFor,
  claimsFor,
  hasUnexpectedController,
  identityMatches,
  isClaimOwnerUpToDate,
  isMemberOf,
  ordinalOf,
  podRevision,
  replicasOf,
  SET_KIND,
  storageMatches,
  updateIdentity,
  updateStorage,
} from './identity.ts';
import { claimsMatchRetention, planStatefulSet, statusToWrite, type Unit } from './plan.ts';
import { statefulSetNotes } from './notes.ts';
import { PendingWrites } from './pending.ts';
import { applyRevision, chooseUpdateRevision } from './revision.ts';

const statefulsets = findResource('apps', 'v1', 'statefulsets')!;
const pods = findResource('', 'v1', 'pods')!;
const pvcs = findResource('', 'v1', 'persistentvolumeclaims')!;

/** kube's MaxBatchSize: the most in-flight writes of one slow-start batch. */
const MAX_BATCH = 500;

const isNotFound = (err: unknown) => err instanceof StatusError && err.code === 404;
const isAlreadyExists = (err: unknown) => err instanceof StatusError && err.code === 409 && err.reason === 'AlreadyExists';
const isConflict = (err: unknown) => err instanceof StatusError && err.code === 409 && err.reason !== 'AlreadyExists';
const message = (err: unknown) => (err as Error).message;

/** An error already reported as an event: it fails the sync without another word. */
class SyncError extends Error {}

/** Builds the StatefulSet controller. */
export function statefulSetController(ctx: ControllerContext): ControllerParts {
  const name = 'statefulset';
  const log = ctx.log.child({ controller: name });
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const pending = new PendingWrites(ctx.clock);
  const setInformer = ctx.informers.informerFor<StatefulSet>(statefulsets);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  const pvcInformer = ctx.informers.informerFor<PersistentVolumeClaim>(pvcs);
  const revInformer = ctx.informers.informerFor<ControllerRevision>(controllerRevisions);
  setInformer.cache.addIndex('uid', (s) => [s.metadata!.uid!]);

  const selects = (set: StatefulSet, labels: Record<string, string> | undefined) => {
    try {
      return matchesLabels(selectorFromLabelSelector(set.spec?.selector), labels);
    } catch {
      return false;
    }
  };
  /** resolveControllerRef: the set a controller reference names, if it is still that set. */
  const ownerKey = (obj: Pod): string | undefined => {
    const ref = controllerOf(obj);
    if (ref?.kind !== 'StatefulSet') return undefined;
    const set = setInformer.cache.get(`${obj.metadata!.namespace}/${ref.name}`);
    return set?.metadata?.uid === ref.uid ? keyOf(set) : undefined;
  };
  const enqueueMatching = (ns: string | undefined, labels: Record<string, string> | undefined) => {
    for (const set of setInformer.cache.byIndex('namespace', ns ?? '')) if (selects(set, labels)) queue.add(keyOf(set));
  };

  setInformer.on({
    add: (s) => queue.add(keyOf(s)),
    update: (_o, s) => queue.add(keyOf(s)),
    delete: (s) => {
      pending.forget(keyOf(s));
      queue.add(keyOf(s));
    },
  });
  podInformer.on({
    add: (pod) => {
      const key = ownerKey(pod);
      if (key) {
        pending.observed(key, keyOf(pod));
        queue.add(key);
      } else if (!controllerOf(pod)) enqueueMatching(pod.metadata!.namespace, pod.metadata!.labels);
    },
    update: (old, pod) => {
      if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
      const key = ownerKey(pod);
      const oldKey = ownerKey(old);
      if (oldKey && oldKey !== key) queue.add(oldKey);
      if (key) {
        if (pod.metadata!.deletionTimestamp) pending.observed(key, keyOf(pod));
        queue.add(key);
      } else if (!controllerOf(pod)) enqueueMatching(pod.metadata!.namespace, pod.metadata!.labels);
    },
    delete: (pod) => {
      const key = ownerKey(pod);
      if (!key) return;
      pending.observed(key, keyOf(pod));
      queue.add(key);
    },
  });
  // A claim going away may unblock a Pod whose stale claim held it back.
  pvcInformer.on({ delete: (c) => enqueueMatching(c.metadata!.namespace, c.metadata!.labels) });
  revInformer.on({});

  const podEvent = (set: StatefulSet, verb: string, pod: Pod, err?: unknown) => {
    const podName = pod.metadata!.name;
    const setName = set.metadata!.name;
    const title = verb[0].toUpperCase() + verb.slice(1);
    if (err === undefined)
      ctx.events.event(set, 'Normal', `Successful${title}`, `${verb} Pod ${podName} in StatefulSet ${setName} successful`);
    else {
      ctx.events.event(set, 'Warning', `Failed${title}`, `${verb} Pod ${podName} in StatefulSet ${setName} failed error: ${message(err)}`);
    }
  };
  const claimEvent = (set: StatefulSet, pod: Pod, c: PersistentVolumeClaim, err?: unknown) => {
    const setName = set.metadata!.name;
    if (err === undefined) {
      ctx.events.event(
        set,
        'Normal',
        'SuccessfulCreate',
        `create Claim ${c.metadata!.name} Pod ${pod.metadata!.name} in StatefulSet ${setName} success`,
      );
    } else {
      ctx.events.event(
        set,
        'Warning',
        'FailedCreate',
        `create Claim ${c.metadata!.name} for Pod ${pod.metadata!.name} in StatefulSet ${setName} failed error: ${message(err)}`,
      );
    }
  };

  /** Claims by name: the cache, and what this sync wrote before the cache saw it. */
  type ClaimView = (name: string) => PersistentVolumeClaim | undefined;
  const claimView = (ns: string, written: Map<string, PersistentVolumeClaim>): ClaimView => {
    return (n) => written.get(n) ?? pvcInformer.cache.get(`${ns}/${n}`);
  };

  /** createPersistentVolumeClaims: the Pod's missing claims; an error names every claim that failed. */
  async function createClaims(set: StatefulSet, pod: Pod, view: ClaimView, written: Map<string, PersistentVolumeClaim>) {
    const errs: string[] = [];
    for (const c of claimsFor(set, ordinalOf(pod)).values()) {
      const existing = view(c.metadata!.name!);
      if (existing) {
        if (existing.metadata?.deletionTimestamp) errs.push(`pvc ${c.metadata!.name} is being deleted`);
        continue;
      }
      try {
        written.set(c.metadata!.name!, await ctx.client.create<PersistentVolumeClaim>(pvcs, set.metadata!.namespace, c));
        claimEvent(set, pod, c);
      } catch (err) {
        errs.push(`failed to create PVC ${c.metadata!.name}: ${message(err)}`);
        if (!isAlreadyExists(err)) claimEvent(set, pod, c, err);
      }
    }
    if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
  }

  /** UpdatePodClaimForRetentionPolicy: each existing claim's refs brought in line with the policy. */
  async function fixRetention(set: StatefulSet, pod: Pod, view: ClaimView, written: Map<string, PersistentVolumeClaim>) {
    for (const t of set.spec?.volumeClaimTemplates ?? []) {
      const n = claimName(set, t, ordinalOf(pod));
      const c = view(n);
      if (!c) continue;
      if (hasUnexpectedController(c, set, pod)) {
        ctx.events.event(
          set,
          'Warning',
          'ConflictingController',
          `PersistentVolumeClaim ${n} has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim`,
        );
      }
      if (isClaimOwnerUpToDate(c, set, pod)) continue;
      const next = structuredClone(c);
      next.metadata!.ownerReferences = claimOwnerRefsFor(c, set, pod);
      if (!next.metadata!.ownerReferences.length) delete next.metadata!.ownerReferences;
      try {
        written.set(n, await ctx.client.update<PersistentVolumeClaim>(pvcs, next));
      } catch (err) {
        throw new Error(`could not update claim ${n} for delete policy ownerRefs: ${message(err)}`, { cause: err });
      }
    }
  }

  /** The ops of one unit, as StatefulPodControl runs them. */
  async function runUnit(
    set: StatefulSet,
    updateSet: StatefulSet,
    unit: Unit,
    key: string,
    view: ClaimView,
    written: Map<string, PersistentVolumeClaim>,
  ) {
    const pod = unit.pod;
    for (const op of unit.ops) {
      if (op === 'create') {
        try {
          await createClaims(set, pod, view, written);
        } catch (err) {
          podEvent(set, 'create', pod, err);
          throw new SyncError(message(err));
        }
        let created: Pod | undefined;
        let failure: unknown;
        pending.expect(key, keyOf(pod));
        try {
          created = await ctx.client.create<Pod>(pods, set.metadata!.namespace, pod);
        } catch (err) {
          pending.observed(key, keyOf(pod));
          // Another sync got there first; the cache will show it.
          if (isAlreadyExists(err)) throw err;
          failure = err;
        }
        try {
          await fixRetention(set, created ?? pod, view, written);
        } catch (err) {
          podEvent(set, 'update', pod, err);
          throw new SyncError(message(err));
        }
        podEvent(set, 'create', pod, failure);
        if (failure) throw new SyncError(message(failure));
      } else if (op === 'delete') {
        pending.expect(key, keyOf(pod));
        try {
          await ctx.client.delete(pods, pod.metadata!.namespace, pod.metadata!.name!);
          podEvent(set, 'delete', pod);
        } catch (err) {
          pending.observed(key, keyOf(pod));
          podEvent(set, 'delete', pod, err);
          if (!isNotFound(err)) throw new SyncError(message(err));
        }
      } else if (op === 'claims') {
        await createClaims(set, pod, view, written);
        try {
          await fixRetention(set, pod, view, written);
        } catch (err) {
          podEvent(set, 'update', pod, err);
          throw new SyncError(message(err));
        }
      } else if (op === 'retention') {
        await fixRetention(updateSet, pod, view, written);
      } else {
        await updatePod(updateSet, pod, view, written);
      }
    }
  }

  /** UpdateStatefulPod: identity, storage and retention made right, retried once on a conflict. */
  async function updatePod(set: StatefulSet, cached: Pod, view: ClaimView, written: Map<string, PersistentVolumeClaim>) {
    let pod = structuredClone(cached);
    let attempted = false;
    let failure: unknown;
    for (let attempt = 0; attempt < 2; attempt++) {
      let consistent = true;
      if (!identityMatches(set, pod)) {
        updateIdentity(set, pod);
        consistent = false;
      }
      try {
        if (!storageMatches(set, pod)) {
          updateStorage(set, pod);
          consistent = false;
          await createClaims(set, pod, view, written);
        }
        if (!claimsMatchRetention(set, pod, view)) {
          await fixRetention(set, pod, view, written);
          consistent = false;
        }
      } catch (err) {
        podEvent(set, 'update', pod, err);
        throw new SyncError(message(err));
      }
      if (consistent) return;
      attempted = true;
      try {
        await ctx.client.update<Pod>(pods, pod);
        failure = undefined;
        break;
      } catch (err) {
        failure = err;
        if (!isConflict(err)) break;
        pod = structuredClone(podInformer.cache.get(keyOf(cached)) ?? cached);
      }
    }
    if (attempted) podEvent(set, 'update', pod, failure);
    if (failure) throw new SyncError(message(failure));
  }

  /** runForAll: one by one under OrderedReady, else in slow-start batches; the first failure stops. */
  async function runPhase(units: Unit[], monotonic: boolean, run: (u: Unit) => Promise<void>) {
    if (monotonic) {
      for (const u of units) await run(u);
      return;
    }
    let i = 0;
    for (let size = Math.min(1, units.length); size > 0; size = Math.min(2 * size, units.length - i, MAX_BATCH)) {
      const results = await Promise.allSettled(units.slice(i, i + size).map(run));
      i += size;
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason as Error;
    }
  }

  /** getStatefulSetRevisions: the current and update revisions, creating or renumbering the update one. */
  async function revisionsFor(set: StatefulSet, revisions: ControllerRevision[]) {
    let collisionCount = set.status?.collisionCount ?? 0;
    const choice = chooseUpdateRevision(set, revisions, collisionCount);
    let update: ControllerRevision;
    if (choice.kind === 'latest') update = choice.revision;
    else if (choice.kind === 'renumber') update = await updateControllerRevision(ctx.client, choice.revision, choice.to);
    else {
      const made = await createControllerRevision(ctx.client, set, choice.revision, collisionCount);
      update = made.revision;
      collisionCount = made.collisionCount;
    }
    const current = revisions.find((r) => r.metadata!.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount };
  }

  async function reconcile(key: string, item?: ReconcileItem) {
    const set = setInformer.cache.get(key);
    if (!set) return;
    try {
      selectorFromLabelSelector(set.spec?.selector);
    } catch (err) {
      // Not transient: retrying will not help.
      log.warn({ key, err: message(err) }, 'invalid selector');
      return;
    }
    const ns = set.metadata!.namespace!;
    const selectsObj = (o: { metadata?: { labels?: Record<string, string> } }) => selects(set, o.metadata?.labels);

    // adoptOrphanRevisions, then the revisions of this set.
    let revisions = listControllerRevisions(revInformer.cache.byIndex('namespace', ns), set, selectsObj);
    if (revisions.some((r) => !controllerOf(r)) && !set.metadata!.deletionTimestamp) {
      await claimControllerRevisions(ctx.client, set, SET_KIND, revisions, selectsObj);
      revisions = revisions.map((r) => revInformer.cache.get(keyOf(r)) ?? r);
    }
    const owned = await claim({
      owner: set,
      ownerApiVersion: SET_KIND.apiVersion,
      ownerKind: SET_KIND.kind,
      candidates: podInformer.cache.byIndex('namespace', ns),
      selects: (pod: Pod) => selectsObj(pod) && isMemberOf(set, pod),
      patch: (pod: Pod, patch) => ctx.client.patch(pods, ns, pod.metadata!.name!, 'strategic', patch),
    });

    const { current, update, collisionCount } = await revisionsFor(set, revisions);
    const minReadyMs = ((set.spec?.minReadySeconds ?? 0) * 1000) / ctx.speed;
    const written = new Map<string, PersistentVolumeClaim>();
    const view = claimView(ns, written);
    const updateSet = applyRevision(set, update);
    const plan = planStatefulSet({
      set,
      currentSet: applyRevision(set, current),
      updateSet,
      currentRevision: current.metadata!.name!,
      updateRevision: update.metadata!.name!,
      collisionCount,
      pods: owned,
      claim: view,
      now: ctx.clock.now(),
      minReadyMs,
    });

    let failure: Error | undefined;
    item?.note(statefulSetNotes(set, owned, plan, pending.satisfied(key)));
    if (pending.satisfied(key)) {
      try {
        for (const phase of plan.phases) {
          await runPhase(phase, plan.monotonic, (u) => runUnit(set, updateSet, u, key, view, written));
        }
      } catch (err) {
        failure = err as Error;
      }
    }
    await writeSetStatus(set, plan.status);
    await truncateHistory(set, owned, revisions, current, update);
    if (failure) {
      if (!(failure instanceof SyncError) && !isAlreadyExists(failure)) log.debug({ key, err: message(failure) }, 'sync failed');
      throw failure;
    }
    if (minReadyMs > 0 && (plan.status.availableReplicas ?? 0) !== replicasOf(set)) return { requeueAfterMs: minReadyMs };
    return undefined;
  }

  async function writeSetStatus(set: StatefulSet, planned: StatefulSetStatus) {
    const status = statusToWrite(set, planned);
    if (status) await writeStatus(ctx.client, statefulsets, set, status);
  }

  /** truncateHistory: revisions no Pod and neither status revision uses, beyond revisionHistoryLimit. */
  async function truncateHistory(
    set: StatefulSet,
    owned: Pod[],
    revisions: ControllerRevision[],
    current: ControllerRevision,
    update: ControllerRevision,
  ) {
    const live = new Set([current.metadata!.name!, update.metadata!.name!, ...owned.map(podRevision)]);
    const limit = set.spec?.revisionHistoryLimit ?? 10;
    if (limit < 0) return;
    for (const r of revisionsToTruncate(revisions, live, limit)) {
      try {
        await ctx.client.delete(controllerRevisions, r.metadata!.namespace, r.metadata!.name!);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  log.debug('configured');
  return { name, queue, informers: [setInformer, podInformer, pvcInformer, revInformer], reconcile };
}
