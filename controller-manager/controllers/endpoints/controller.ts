// The Endpoints controller (kube's "endpoint" controller): for every Service
// with a selector, an Endpoints object of the same name listing the matching
// Pods; the Endpoints of a deleted Service is deleted. Services without a
// selector are left alone (their Endpoints are the user's). Decisions come
// from plan.ts; this file wires informers and API writes.
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { keyOf, splitKey } from '../../../shared/informer/cache.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { OwnWrites } from '../endpointslice/own-writes.ts';
import { TriggerTimeTracker } from '../endpointslice/trigger-time.ts';
import { managesService, queueServicesForPods, serviceSelects } from '../endpointslice/util.ts';
import { CONTROLLER_NAME, LABEL_MANAGED_BY, planEndpoints } from './plan.ts';

const services = findResource('', 'v1', 'services')!;
const pods = findResource('', 'v1', 'pods')!;
const endpoints = findResource('', 'v1', 'endpoints')!;
/** Leader-election records once lived in Endpoints; kube never deletes those. */
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

const isNotFound = (err: unknown) => err instanceof StatusError && err.code === 404;

/** Builds the controller; the caller runs it with runController. */
export function endpointsController(ctx: ControllerContext): ControllerParts {
  const name = 'endpoint';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const svcInformer = ctx.informers.informerFor<Service>(services);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  const epInformer = ctx.informers.informerFor<Endpoints>(endpoints);
  const written = new OwnWrites<Endpoints>(ctx.clock);
  const triggers = new TriggerTimeTracker();
  const log = ctx.log.child({ controller: name });

  queueServicesForPods(queue, svcInformer, podInformer, keyOf);
  epInformer.on({
    // kube's checkLeftoverEndpoints: at start-up every Endpoints this
    // controller made is looked at once, so one whose Service went away
    // meanwhile is deleted. (kube looks at every Endpoints; only those with
    // the managed-by label here, so a user's own Endpoints are never removed.)
    add: (ep) => {
      if (written.observe(ep)) return;
      if (ep.metadata?.labels?.[LABEL_MANAGED_BY] === CONTROLLER_NAME && !ep.metadata?.annotations?.[LEADER_ANNOTATION])
        queue.add(keyOf(ep));
    },
    update: (_old, ep) => void written.observe(ep),
    // A deleted Endpoints whose Service still selects Pods is made again.
    delete: (ep) => {
      if (!written.observeDelete(ep)) queue.add(keyOf(ep));
    },
  });

  async function reconcile(key: string) {
    const { namespace, name: svcName } = splitKey(key);
    const svc = svcInformer.cache.get(key);
    const current = written.one(key, epInformer.cache.get(key));
    if (!svc) {
      triggers.delete(key);
      if (!current) {
        written.forget(key);
        return;
      }
      // kube deletes the Endpoints of a deleted Service explicitly.
      try {
        await ctx.client.delete(endpoints, namespace, svcName);
        written.deleted(key, current);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        written.forget(key);
      }
      return;
    }
    if (!managesService(svc)) return;
    const matching = podInformer.cache.byIndex('namespace', namespace).filter((pod) => serviceSelects(svc, pod));
    // Computed on every sync, so the tracker's state moves even when nothing is written.
    const trigger = triggers.compute(key, svc, matching);
    const plan = planEndpoints(svc, matching, current, trigger);
    if (plan.action === 'none') return;
    try {
      const saved =
        plan.action === 'create'
          ? await ctx.client.create(endpoints, namespace, plan.endpoints)
          : await ctx.client.update(endpoints, plan.endpoints);
      written.wrote(key, saved);
      log.debug({ key, action: plan.action }, 'endpoints written');
    } catch (err) {
      // The namespace is going away: creates will keep failing, drop the key.
      if (plan.action === 'create' && err instanceof StatusError && err.code === 403 && /being terminated/.test(err.message)) return;
      const reason = plan.action === 'create' ? 'FailedToCreateEndpoint' : 'FailedToUpdateEndpoint';
      const message =
        plan.action === 'create'
          ? `Failed to create endpoint for service ${namespace}/${svcName}: ${(err as Error).message}`
          : `Failed to update endpoint ${namespace}/${svcName}: ${(err as Error).message}`;
      ctx.events.event(plan.endpoints, 'Warning', reason, message);
      throw err;
    }
  }

  log.debug('configured');
  return { name, queue, informers: [svcInformer, podInformer, epInformer], reconcile };
}
