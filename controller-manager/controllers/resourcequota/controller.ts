// The resource quota controller: keeps each ResourceQuota's status.hard
// (from spec.hard) and status.used (recomputed from what its namespace
// holds) current, as kube's does. Keys are quotas (namespace/name); a change
// to any watched object queues every quota of its namespace, and every quota
// is recomputed again after the sync period (kube's 5 minutes, divided by
// --speed). The decision is in plan.ts.
import type { ResourceQuota } from 'kubernetes-types/core/v1.js';
import { findResource } from '../../../shared/api/resources.ts';
import type { KubeObject } from '../../../shared/api/object.ts';
import type { Informer } from '../../../shared/informer/informer.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { desiredStatus, sameStatus, type Counted } from './plan.ts';

/** kube's --resource-quota-sync-period. */
export const SYNC_PERIOD_MS = 5 * 60 * 1000;

/** The resources whose objects the controller counts (kube counts any; ksim watches these). */
const WATCHED: Array<[string, string, string]> = [
  ['', 'v1', 'pods'],
  ['', 'v1', 'services'],
  ['', 'v1', 'configmaps'],
  ['', 'v1', 'secrets'],
  ['', 'v1', 'persistentvolumeclaims'],
  ['', 'v1', 'replicationcontrollers'],
  ['', 'v1', 'resourcequotas'],
  ['apps', 'v1', 'deployments'],
  ['apps', 'v1', 'replicasets'],
];

/** Builds the resource quota controller. */
export function resourceQuotaController(ctx: ControllerContext): ControllerParts {
  const name = 'resourcequota';
  const log = ctx.log.child({ controller: name });
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const quotas = findResource('', 'v1', 'resourcequotas')!;
  const informers = new Map<string, Informer<KubeObject>>();
  for (const [group, version, plural] of WATCHED) {
    const rt = findResource(group, version, plural);
    if (rt) informers.set(`${group}/${plural}`, ctx.informers.informerFor<KubeObject>(rt));
  }
  const quotaInformer = informers.get('/resourcequotas') as unknown as Informer<ResourceQuota>;

  const queueNamespace = (obj: KubeObject) => {
    for (const q of quotaInformer.cache.byIndex('namespace', obj.metadata?.namespace ?? ''))
      queue.add(`${q.metadata!.namespace}/${q.metadata!.name}`);
  };
  for (const [key, inf] of informers) {
    if (key === '/resourcequotas') {
      inf.on({
        add: (q) => queue.add(`${q.metadata!.namespace}/${q.metadata!.name}`),
        update: (_o, q) => queue.add(`${q.metadata!.namespace}/${q.metadata!.name}`),
        delete: (q) => queueNamespace(q),
      });
    } else {
      inf.on({ add: queueNamespace, update: (_o, n) => queueNamespace(n), delete: queueNamespace });
    }
  }

  async function reconcile(key: string) {
    const quota = quotaInformer.cache.get(key);
    if (!quota) return;
    const ns = quota.metadata!.namespace!;
    const status = desiredStatus(quota, (r: Counted) => informers.get(`${r.group}/${r.plural}`)?.cache.byIndex('namespace', ns));
    if (!sameStatus(quota.status, status)) {
      // An optimistic write: a charge admission made meanwhile is a conflict, and the key is tried again.
      await ctx.client.update(quotas, { ...structuredClone(quota), status }, 'status');
      log.debug({ key, used: status.used }, 'updated quota usage');
    }
    return { requeueAfterMs: SYNC_PERIOD_MS / ctx.speed };
  }

  log.debug('configured');
  return { name, queue, informers: [...informers.values()], reconcile };
}
