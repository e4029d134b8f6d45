// The EndpointSlice controller: for every Service with a selector, the
// discovery.k8s.io/v1 EndpointSlices listing the matching Pods, owned by the
// Service and labelled with its name and this controller's managed-by value.
// Decisions come from plan.ts; this file wires informers and API writes.
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { keyOf, splitKey } from '../../../shared/informer/cache.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { OwnWrites } from './own-writes.ts';
import { CONTROLLER_NAME, LABEL_MANAGED_BY, LABEL_SERVICE_NAME, planSlices } from './plan.ts';
import { TriggerTimeTracker } from './trigger-time.ts';
import { formatRFC3339Nano, LAST_CHANGE_TRIGGER_TIME, managesService, queueServicesForPods, serviceSelects } from './util.ts';

const services = findResource('', 'v1', 'services')!;
const pods = findResource('', 'v1', 'pods')!;
const nodes = findResource('', 'v1', 'nodes')!;
const endpointslices = findResource('discovery.k8s.io', 'v1', 'endpointslices')!;
const SERVICE_INDEX = 'endpointslice-controller:service';

const isNotFound = (err: unknown) => err instanceof StatusError && err.code === 404;
const managed = (s: EndpointSlice) => s.metadata?.labels?.[LABEL_MANAGED_BY] === CONTROLLER_NAME;
/** ServiceControllerKey: the key of the Service a slice belongs to, from its service-name label. */
const serviceKeyOf = (s: EndpointSlice): string | undefined => {
  const svc = s.metadata?.labels?.[LABEL_SERVICE_NAME];
  return svc ? `${s.metadata?.namespace}/${svc}` : undefined;
};

/** addTriggerTimeAnnotation: set to the trigger time, or removed when there is none. */
function withTriggerTime(slice: EndpointSlice, trigger: number | undefined): EndpointSlice {
  const annotations = { ...slice.metadata?.annotations };
  if (trigger !== undefined) annotations[LAST_CHANGE_TRIGGER_TIME] = formatRFC3339Nano(trigger);
  else delete annotations[LAST_CHANGE_TRIGGER_TIME];
  const { annotations: _old, ...rest } = slice.metadata ?? {};
  return { ...slice, metadata: Object.keys(annotations).length > 0 ? { ...rest, annotations } : rest };
}

/** Builds the controller; the caller runs it with runController. */
export function endpointSliceController(ctx: ControllerContext): ControllerParts {
  const name = 'endpointslice';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const svcInformer = ctx.informers.informerFor<Service>(services);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  const nodeInformer = ctx.informers.informerFor<Node>(nodes);
  const sliceInformer = ctx.informers.informerFor<EndpointSlice>(endpointslices);
  sliceInformer.cache.addIndex(SERVICE_INDEX, (s) => {
    const key = managed(s) ? serviceKeyOf(s) : undefined;
    return key ? [key] : [];
  });
  const written = new OwnWrites<EndpointSlice>(ctx.clock);
  const triggers = new TriggerTimeTracker();
  const log = ctx.log.child({ controller: name });

  queueServicesForPods(queue, svcInformer, podInformer, keyOf);
  // A slice changed or deleted by someone else sends its Service back to the queue; echoes of our own writes do not.
  sliceInformer.on({
    add: (s) => {
      const key = serviceKeyOf(s);
      if (!written.observe(s) && managed(s) && key) queue.add(key);
    },
    update: (old, s) => {
      const key = serviceKeyOf(s);
      const echo = written.observe(s);
      if (!key) return;
      if (managed(old) !== managed(s) || (managed(s) && !echo)) queue.add(key);
      const oldKey = serviceKeyOf(old);
      if (oldKey && oldKey !== key && managed(old)) queue.add(oldKey);
    },
    delete: (s) => {
      const key = serviceKeyOf(s);
      if (!written.observeDelete(s) && managed(s) && key) queue.add(key);
    },
  });

  async function reconcile(key: string) {
    const { namespace } = splitKey(key);
    const svc = svcInformer.cache.get(key);
    const existing = written.view(key, sliceInformer.cache.byIndex(SERVICE_INDEX, key));
    if (!svc) {
      triggers.delete(key);
      // kube leaves this to the garbage collector (the slices are owned by
      // the Service); deleting them here too keeps a cluster without one clean.
      await Promise.all(existing.map((s) => deleteSlice(key, s)));
      return;
    }
    if (!managesService(svc)) return;
    const matching = podInformer.cache.byIndex('namespace', namespace).filter((pod) => serviceSelects(svc, pod));
    const trigger = triggers.compute(key, svc, matching);
    const plan = planSlices({ service: svc, pods: matching, node: (n) => nodeInformer.cache.get(n), existing });
    try {
      // No new slices for a Service being deleted: the garbage collector would race them.
      if (!svc.metadata?.deletionTimestamp) {
        for (const slice of plan.create) {
          const saved = await ctx.client.create<EndpointSlice>(endpointslices, namespace, withTriggerTime(slice, trigger));
          written.wrote(key, saved);
        }
      }
      for (const slice of plan.update) {
        const saved = await ctx.client.update<EndpointSlice>(endpointslices, withTriggerTime(slice, trigger));
        written.wrote(key, saved);
      }
      for (const slice of plan.delete) await deleteSlice(key, slice);
    } catch (err) {
      if (err instanceof StatusError && err.code === 403 && /being terminated/.test(err.message)) return;
      ctx.events.event(
        svc,
        'Warning',
        'FailedToUpdateEndpointSlices',
        `Error updating Endpoint Slices for Service ${key}: ${(err as Error).message}`,
      );
      throw err;
    }
    const changes = plan.create.length + plan.update.length + plan.delete.length;
    if (changes > 0)
      log.debug({ key, created: plan.create.length, updated: plan.update.length, deleted: plan.delete.length }, 'endpoint slices written');
    // Pods on Nodes not (yet) in the cache were left out: try again, with backoff.
    if (plan.skipped.length > 0) throw new Error(plan.skipped.join('; '));
  }

  async function deleteSlice(key: string, slice: EndpointSlice) {
    try {
      await ctx.client.delete(endpointslices, slice.metadata?.namespace, slice.metadata?.name ?? '');
      written.deleted(key, slice);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  log.debug('configured');
  return { name, queue, informers: [svcInformer, podInformer, nodeInformer, sliceInformer], reconcile };
}
