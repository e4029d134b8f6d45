// The garbage collector: follows every served resource (but Events and
// Leases) to keep the ownership graph of graph.ts, and acts as kube's does.
// Background: a dependent whose owners are all gone is deleted. Foreground:
// an owner with the foregroundDeletion finalizer has its dependents deleted
// and loses the finalizer once no blocking dependent is left. Orphan: an
// owner with the orphan finalizer has its references removed from its
// dependents, then loses the finalizer. Queue keys are "delete/UID" and
// "orphan/UID"; decisions come from plan.ts.
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import type { KubeObject } from '../../../shared/api/object.ts';
import { findResourceByKind, RESOURCES } from '../../../shared/api/resources.ts';
import { refreshDiscovery } from './discovery.ts';
import { apiVersionOf, type ResourceType } from '../../../shared/api/resource-type.ts';
import type { OwnerReference } from '../../../shared/controller/owner-refs.ts';
import { ItemExponentialLimiter } from '../../../shared/workqueue/rate-limiters.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import {
  blockingDependents,
  FOREGROUND,
  ORPHAN,
  OwnershipGraph,
  type GraphNode,
  type Identity,
  type ObservedObject,
  type QueueAction,
} from './graph.ts';
import {
  classifyOwner,
  decideForDependent,
  deleteOwnerRefsPatch,
  groupOf,
  removeFinalizerPatch,
  unblockOwnerRefsPatch,
  type RefClass,
} from './plan.ts';

/** Resources not worth the memory of a graph node: nothing owns or is owned through them in practice. */
const UNWATCHED = new Set(['events', 'leases']);
/** How often a finalizer removal is retried at once after a concurrent change, as client-go's DefaultBackoff steps. */
const FINALIZER_ATTEMPTS = 5;

const isNotFound = (err: unknown) => err instanceof StatusError && err.code === 404;
const isConflict = (err: unknown) => err instanceof StatusError && (err.code === 409 || err.code === 422);

/** Builds the garbage collector. */
export function garbageCollectorController(ctx: ControllerContext): ControllerParts {
  const name = 'garbage-collector';
  const log = ctx.log.child({ controller: name });
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  // Requeues of a virtual node that exists but has not been observed yet are not failures: back off quietly.
  const unobserved = new ItemExponentialLimiter(5, 1000_000);
  const resolve = (apiVersion: string, kind: string): ResourceType | undefined => findResourceByKind(groupOf(apiVersion), kind);
  const graph = new OwnershipGraph((apiVersion, kind) => resolve(apiVersion, kind)?.namespaced);

  const apply = (actions: QueueAction[]) => {
    for (const a of actions) {
      const key = `${a.queue}/${a.uid}`;
      if (a.rateLimited) queue.addRateLimited(key);
      else queue.add(key);
    }
  };

  // Only stored resources can own or be owned: the create-only reviews are computed, never listed.
  const watched = new Set<string>();
  const watchable = (rt: ResourceType) => !UNWATCHED.has(rt.plural) && rt.verbs.includes('watch');
  const monitor = (rt: ResourceType) => {
    watched.add(`${rt.group}/${rt.version}/${rt.plural}`);
    const inf = ctx.informers.informerFor<KubeObject>(rt);
    const observed = (obj: KubeObject): ObservedObject => ({
      identity: identityOf(rt, obj),
      owners: obj.metadata?.ownerReferences ?? [],
      deletionTimestamp: obj.metadata?.deletionTimestamp,
      finalizers: obj.metadata?.finalizers,
    });
    inf.on({
      add: (obj) => apply(graph.observe(observed(obj))),
      update: (old, obj) => apply(graph.observe(observed(obj), observed(old))),
      delete: (obj) => apply(graph.observeDelete(identityOf(rt, obj))),
    });
    return inf;
  };
  const informers = RESOURCES.filter(watchable).map(monitor);
  // Resources that come and go (custom resources) are found through discovery, as kube's GC resyncs its monitors.
  const resync = async () => {
    for (const rt of await refreshDiscovery(ctx.client)) {
      if (watchable(rt) && !watched.has(`${rt.group}/${rt.version}/${rt.plural}`)) monitor(rt);
    }
  };
  const RESYNC_MS = 30_000;
  const tick = () => {
    if (queue.isShuttingDown) return;
    void resync().finally(() => ctx.clock.setTimeout(tick, RESYNC_MS / ctx.speed));
  };
  ctx.clock.setTimeout(tick, 1000);

  /** GETs the object at `id`; undefined when it is not there (404, or another object under that name). */
  async function getLive(rt: ResourceType, id: Identity): Promise<KubeObject | undefined> {
    try {
      const obj = await ctx.client.get<KubeObject>(rt, rt.namespaced ? id.namespace : undefined, id.name);
      return obj?.metadata?.uid === id.uid ? obj : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  function resourceOf(id: Identity): ResourceType {
    const rt = resolve(id.apiVersion, id.kind);
    if (!rt) throw new Error(`unable to find the resource for ${id.apiVersion}, Kind=${id.kind}`);
    return rt;
  }

  /** The class of each reference of `dependent`, verifying each owner with a live GET; undefined when a reference is invalid. */
  async function classifyReferences(dependent: GraphNode, refs: OwnerReference[]): Promise<Map<string, RefClass> | undefined> {
    const classes = new Map<string, RefClass>();
    for (const ref of refs) {
      const rt = resolve(ref.apiVersion, ref.kind);
      if (!rt) throw new Error(`unable to find the resource for ${ref.apiVersion}, Kind=${ref.kind}`);
      if (rt.namespaced && !dependent.identity.namespace) {
        // A cluster-scoped object cannot be owned by a namespaced one; retrying will not help.
        const d = dependent.identity;
        ctx.events.event(
          { apiVersion: d.apiVersion, kind: d.kind, metadata: { name: d.name, uid: d.uid } },
          'Warning',
          'OwnerRefInvalidNamespace',
          `ownerRef [${ref.apiVersion}/${ref.kind}, namespace: , name: ${ref.name}, uid: ${ref.uid}] does not exist in namespace ""`,
        );
        return undefined;
      }
      const ownerId: Identity = {
        apiVersion: ref.apiVersion,
        kind: ref.kind,
        name: ref.name,
        uid: ref.uid,
        namespace: rt.namespaced ? dependent.identity.namespace : '',
      };
      if (graph.absent.has(ownerId)) {
        classes.set(ref.uid, 'dangling');
        continue;
      }
      const owner = await getLive(rt, ownerId);
      if (!owner) graph.absent.add(ownerId);
      classes.set(ref.uid, classifyOwner(ref, owner));
    }
    return classes;
  }

  async function deleteObject(rt: ResourceType, id: Identity, policy: string): Promise<void> {
    log.debug({ object: id, policy }, 'deleting object');
    try {
      await ctx.client.delete(rt, rt.namespaced ? id.namespace : undefined, id.name, {
        propagationPolicy: policy,
        preconditions: { uid: id.uid },
      });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async function patchObject(rt: ResourceType, id: Identity, type: 'strategic' | 'json', patch: unknown): Promise<void> {
    try {
      await ctx.client.patch(rt, rt.namespaced ? id.namespace : undefined, id.name, type, patch);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** Removes `finalizer` from the live object, re-reading it after a concurrent change. */
  async function removeFinalizer(node: GraphNode, finalizer: string): Promise<void> {
    const rt = resourceOf(node.identity);
    for (let attempt = 0; attempt < FINALIZER_ATTEMPTS; attempt++) {
      const obj = await getLive(rt, node.identity);
      if (!obj) return;
      const patch = removeFinalizerPatch(obj, finalizer);
      if (!patch) return;
      try {
        await ctx.client.patch(rt, rt.namespaced ? node.identity.namespace : undefined, node.identity.name, 'json', patch);
        log.debug({ object: node.identity, finalizer }, 'removed finalizer');
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err)) throw err;
      }
    }
    throw new Error(
      `could not remove the ${finalizer} finalizer from ${node.identity.kind} ${node.identity.name} after ${FINALIZER_ATTEMPTS} attempts; will retry later`,
    );
  }

  /** A foreground owner: done once no blocking dependent is left, else push the blocking ones along. */
  async function processDeletingDependents(node: GraphNode): Promise<void> {
    const blocking = blockingDependents(node);
    if (blocking.length === 0) return removeFinalizer(node, FOREGROUND);
    for (const dep of blocking) if (!dep.deletingDependents) queue.add(`delete/${dep.identity.uid}`);
  }

  /** kube's attemptToDeleteItem; false when the node turned out not to exist. */
  async function attemptToDelete(node: GraphNode): Promise<boolean> {
    // Being deleted is a one-way trip: its dependents are handled when it is gone.
    if (node.beingDeleted && !node.deletingDependents) return true;
    const id = node.identity;
    const rt = resourceOf(id);
    const latest = rt.namespaced && !id.namespace ? undefined : await getLive(rt, id);
    if (!latest) {
      apply(graph.virtualDelete(id));
      return false;
    }
    if (node.deletingDependents) {
      await processDeletingDependents(node);
      return true;
    }
    const refs: OwnerReference[] = latest.metadata!.ownerReferences ?? [];
    if (refs.length === 0) return true;
    const classes = await classifyReferences(node, refs);
    if (!classes) return true;
    const deps = [...node.dependents];
    const action = decideForDependent(latest, classes, {
      count: deps.length,
      anyDeletingDependents: deps.some((d) => d.deletingDependents),
    });
    switch (action.type) {
      case 'none':
        break;
      case 'removeRefs':
        log.debug({ object: id, owners: action.uids }, 'removing references to gone or foreground-deleting owners');
        await patchObject(rt, id, 'strategic', deleteOwnerRefsPatch(id.uid, action.uids));
        break;
      case 'delete':
        if (action.unblock) await patchObject(rt, id, 'strategic', unblockOwnerRefsPatch(latest));
        await deleteObject(rt, id, action.policy);
        break;
    }
    return true;
  }

  /** kube's attemptToOrphanWorker: drop the owner from every dependent, then its orphan finalizer. */
  async function orphan(owner: GraphNode): Promise<void> {
    const uid = owner.identity.uid;
    await Promise.all(
      [...owner.dependents].map(async (dep) => {
        try {
          await patchObject(resourceOf(dep.identity), dep.identity, 'strategic', deleteOwnerRefsPatch(dep.identity.uid, [uid]));
        } catch (err) {
          // A uid precondition failure: that dependent is gone and another took its name.
          if (!(err instanceof StatusError && err.code === 409)) throw err;
        }
      }),
    );
    await removeFinalizer(owner, ORPHAN);
  }

  async function reconcile(key: string) {
    const slash = key.indexOf('/');
    const kind = key.slice(0, slash);
    const node = graph.get(key.slice(slash + 1));
    if (!node) {
      unobserved.forget(key);
      return;
    }
    if (kind === 'orphan') return orphan(node);
    const exists = await attemptToDelete(node);
    if (exists && !node.observed) {
      // Named by a dependent, exists, but its informer has not shown it yet: look again later.
      return { requeueAfterMs: unobserved.when(key) };
    }
    unobserved.forget(key);
    return undefined;
  }

  log.debug({ resources: informers.length }, 'configured');
  return { name, queue, informers, reconcile };
}

/** The identity of an object of `rt`. */
export function identityOf(rt: ResourceType, obj: KubeObject): Identity {
  const m: ObjectMeta = obj.metadata ?? {};
  return { apiVersion: apiVersionOf(rt), kind: rt.kind, namespace: m.namespace ?? '', name: m.name ?? '', uid: m.uid ?? '' };
}

export { FOREGROUND, ORPHAN };
