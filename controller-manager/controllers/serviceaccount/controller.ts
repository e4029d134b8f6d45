// The ServiceAccount controller: every active Namespace has a "default"
// ServiceAccount, created when the Namespace appears and again whenever it
// is deleted. Keys are Namespace names; the decision is in plan.ts.
import type { Namespace, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { isNamespaceTerminating, SERVICE_ACCOUNTS_TO_ENSURE, serviceAccountsToCreate } from './plan.ts';

const namespaces = findResource('', 'v1', 'namespaces')!;
const serviceaccounts = findResource('', 'v1', 'serviceaccounts')!;

/** Builds the ServiceAccount controller. */
export function serviceAccountController(ctx: ControllerContext): ControllerParts {
  const name = 'serviceaccount';
  const log = ctx.log.child({ controller: name });
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const nsInformer = ctx.informers.informerFor<Namespace>(namespaces);
  const saInformer = ctx.informers.informerFor<ServiceAccount>(serviceaccounts);

  nsInformer.on({ add: (ns) => queue.add(ns.metadata!.name!), update: (_old, ns) => queue.add(ns.metadata!.name!) });
  saInformer.on({
    delete: (sa) => {
      if (SERVICE_ACCOUNTS_TO_ENSURE.includes(sa.metadata?.name ?? '')) queue.add(sa.metadata!.namespace!);
    },
  });

  async function reconcile(key: string) {
    const ns = nsInformer.cache.get(key);
    const missing = serviceAccountsToCreate(ns, (sa) => saInformer.cache.get(`${key}/${sa}`) !== undefined);
    const failures: string[] = [];
    for (const sa of missing) {
      try {
        await ctx.client.create(serviceaccounts, key, sa);
        log.debug({ namespace: key, serviceAccount: sa.metadata!.name }, 'created service account');
      } catch (err) {
        if (err instanceof StatusError && err.code === 409) continue;
        // A namespace that started terminating (or went) meanwhile needs nothing.
        if (isNamespaceTerminating(err) || (err instanceof StatusError && err.code === 404)) continue;
        failures.push((err as Error).message);
      }
    }
    if (failures.length > 0) throw new Error(failures.join('; '));
  }

  log.debug('configured');
  return { name, queue, informers: [nsInformer, saInformer], reconcile };
}
