// The namespace controller: for a Namespace being deleted, deletes every
// namespaced object in it (Pods first, as kube's OrderedNamespaceDeletion
// does, then every other resource), looks again after an estimate while
// content remains (a Pod's grace period, a finalizer), keeps the
// NamespaceDeletion* / NamespaceContentRemaining / NamespaceFinalizersRemaining
// conditions, and finally removes "kubernetes" from spec.finalizers through
// /finalize so the apiserver removes the Namespace. Decisions in plan.ts.
import type { Namespace, Pod } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import type { KubeObject } from '../../../shared/api/object.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { refreshDiscovery } from '../garbagecollector/discovery.ts';
import type { ResourceType } from '../../../shared/api/resource-type.ts';
import { KubeClient } from '../../../shared/client/kube-client.ts';
import { BucketLimiter, ItemExponentialLimiter, MaxOfLimiter } from '../../../shared/workqueue/rate-limiters.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import {
  DELETION_GRACE_MS,
  estimatePodTermination,
  failureConditions,
  finalizedSpecFinalizers,
  KUBERNETES_FINALIZER,
  outcomeOf,
  requeueAfterMs,
  timestamp,
  updateConditions,
  type ResourceOutcome,
} from './plan.ts';

const namespaces = findResource('', 'v1', 'namespaces')!;
const pods = findResource('', 'v1', 'pods')!;
const CONFLICT_ATTEMPTS = 5;

const isNotFound = (err: unknown) => err instanceof StatusError && err.code === 404;
const isConflict = (err: unknown) => err instanceof StatusError && err.code === 409;

/** Builds the namespace controller. */
export function namespaceController(ctx: ControllerContext): ControllerParts {
  const name = 'namespace';
  const log = ctx.log.child({ controller: name });
  // kube's nsControllerRateLimiter: retry a failing namespace at least every minute.
  const rateLimiter = new MaxOfLimiter(new ItemExponentialLimiter(5, 60_000), new BucketLimiter(10, 100, ctx.clock));
  const queue = new WorkQueue({ clock: ctx.clock, rateLimiter, metrics: queueMetrics(ctx.registry, name) });
  const nsInformer = ctx.informers.informerFor<Namespace>(namespaces);
  // Every namespaced resource served, custom ones included: asked of discovery at each pass, as kube's controller does.
  const content = async () =>
    (await refreshDiscovery(ctx.client)).filter((rt) => rt.namespaced && rt !== pods && rt.verbs.includes('deletecollection'));

  const enqueue = (ns: Namespace) => {
    if (!ns.metadata?.deletionTimestamp) return;
    queue.addAfter(ns.metadata.name!, DELETION_GRACE_MS / ctx.speed);
  };
  nsInformer.on({ add: enqueue, update: (_old, ns) => enqueue(ns) });

  /** Runs `write` on the latest Namespace, reading it again after a conflict; undefined once it is gone. */
  async function retryOnConflict(ns: Namespace, write: (ns: Namespace) => Promise<Namespace>): Promise<Namespace | undefined> {
    let current = ns;
    for (let attempt = 1; ; attempt++) {
      try {
        return await write(current);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        if (!isConflict(err) || attempt >= CONFLICT_ATTEMPTS) throw err;
      }
      try {
        current = await ctx.client.get<Namespace>(namespaces, undefined, ns.metadata!.name!);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    }
  }

  /** Deletes every object of `rt` in the namespace and reports what is left. */
  async function deleteResource(rt: ResourceType, namespace: string, deletedAtMs: number): Promise<ResourceOutcome> {
    let estimate = 0;
    try {
      if (rt === pods) {
        const list = await ctx.client.list<Pod>(pods, { namespace });
        estimate = estimatePodTermination(list.items ?? [], deletedAtMs, ctx.clock.now(), ctx.speed);
      }
      // The namespace controller never forces: Pods keep their grace period and go when their kubelet confirms.
      await ctx.client.request('DELETE', KubeClient.path(rt, namespace), {
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
      });
      const left = await ctx.client.list<KubeObject>(rt, { namespace });
      return outcomeOf(rt, namespace, left.items ?? [], estimate);
    } catch (err) {
      return {
        groupResource: `${rt.plural}.${rt.group}`,
        estimateSeconds: estimate,
        remaining: 0,
        finalizers: {},
        error: (err as Error).message,
      };
    }
  }

  async function writeConditions(ns: Namespace, outcomes: ResourceOutcome[], errors: string[], withTotals: boolean): Promise<void> {
    const now = timestamp(ctx.clock.now());
    const conditions = updateConditions(ns.status?.conditions, failureConditions(outcomes, errors, withTotals, now), now);
    if (!conditions) return;
    try {
      const next: Namespace = { ...ns, status: { ...ns.status, conditions } };
      await ctx.client.update(namespaces, next, 'status');
    } catch (err) {
      // As kube: a condition that cannot be written does not stop the deletion.
      log.warn({ namespace: ns.metadata!.name, err: (err as Error).message }, 'could not update namespace conditions');
    }
  }

  /** kube's deleteAllContent: the longest estimate of what remains, and the errors met. */
  async function deleteAllContent(ns: Namespace): Promise<{ estimate: number; errors: string[] }> {
    const namespace = ns.metadata!.name!;
    const deletedAt = Date.parse(ns.metadata!.deletionTimestamp!);
    const podOutcome = await deleteResource(pods, namespace, deletedAt);
    if (podOutcome.remaining > 0 || podOutcome.error) {
      // Nothing else goes while Pods remain: they may still need their ConfigMaps, Secrets, policies...
      const errors = podOutcome.error ? [podOutcome.error] : [];
      await writeConditions(ns, [podOutcome], errors, false);
      return { estimate: podOutcome.estimateSeconds, errors };
    }
    const outcomes = [podOutcome, ...(await Promise.all((await content()).map((rt) => deleteResource(rt, namespace, deletedAt))))];
    const errors = outcomes.flatMap((o) => (o.error ? [o.error] : []));
    await writeConditions(ns, outcomes, errors, true);
    return { estimate: Math.max(0, ...outcomes.map((o) => o.estimateSeconds)), errors };
  }

  async function reconcile(key: string) {
    let ns: Namespace | undefined;
    try {
      ns = await ctx.client.get<Namespace>(namespaces, undefined, key);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    if (!ns.metadata!.deletionTimestamp) return undefined;
    if (ns.status?.phase !== 'Terminating') {
      ns = await retryOnConflict(ns, (cur) => {
        const next: Namespace = { ...cur, status: { ...cur.status, phase: 'Terminating' } };
        return ctx.client.update<Namespace>(namespaces, next, 'status');
      });
      if (!ns) return undefined;
    }
    if (!(ns.spec?.finalizers ?? []).includes(KUBERNETES_FINALIZER)) return undefined;
    const { estimate, errors } = await deleteAllContent(ns);
    if (errors.length > 0) throw new Error(`deletion of namespace ${key} failed: ${errors.join('; ')}`);
    if (estimate > 0) {
      log.debug({ namespace: key, estimate }, 'content remaining after deletion');
      return { requeueAfterMs: requeueAfterMs(estimate, ctx.speed) };
    }
    const finalized = await retryOnConflict(ns, (cur) => {
      const next: Namespace = { ...cur, spec: { ...cur.spec, finalizers: finalizedSpecFinalizers(cur.spec?.finalizers) } };
      return ctx.client.update<Namespace>(namespaces, next, 'finalize');
    });
    if (finalized) log.info({ namespace: key }, 'namespace content removed; finalized');
    return undefined;
  }

  log.debug('configured');
  return { name, queue, informers: [nsInformer], reconcile };
}
