// The clusterrole-aggregation controller: keeps each ClusterRole that has an
// aggregationRule (admin, edit, view and any the user makes) holding the
// union of the rules of the ClusterRoles its selectors match. Any ClusterRole
// change may alter any aggregate, so every change queues every aggregated
// role, as kube's controller does. Keys are ClusterRole names; the decision
// is in plan.ts.
import type { ClusterRole } from 'kubernetes-types/rbac/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { planAggregation } from './plan.ts';

const clusterroles = findResource('rbac.authorization.k8s.io', 'v1', 'clusterroles')!;

/** Builds the clusterrole-aggregation controller. */
export function clusterRoleAggregationController(ctx: ControllerContext): ControllerParts {
  const name = 'clusterrole-aggregation';
  const log = ctx.log.child({ controller: name });
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const informer = ctx.informers.informerFor<ClusterRole>(clusterroles);

  const enqueueAggregated = () => {
    for (const cr of informer.cache.list()) if (cr.aggregationRule) queue.add(cr.metadata!.name!);
  };
  informer.on({ add: enqueueAggregated, update: enqueueAggregated, delete: enqueueAggregated });

  async function reconcile(key: string) {
    const role = informer.cache.get(key);
    if (!role) return;
    const next = planAggregation(role, informer.cache.list());
    if (!next) return;
    try {
      await ctx.client.update(clusterroles, next);
      log.debug({ key, rules: next.rules?.length ?? 0 }, 'aggregated cluster role rules');
    } catch (err) {
      // Gone meanwhile: nothing to aggregate. A conflict is retried from the newer copy.
      if (err instanceof StatusError && err.code === 404) return;
      throw err;
    }
  }

  log.debug('configured');
  return { name, queue, informers: [informer], reconcile };
}
