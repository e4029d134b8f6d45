// The HorizontalPodAutoscaler controller (kube's horizontalpodautoscaling):
// every --horizontal-pod-autoscaler-sync-period (15 s, divided by --speed)
// each HPA reads its target's scale subresource, the Pods its selector
// names (from the Pod informer) and their PodMetrics from metrics.k8s.io,
// lets plan.ts decide, writes the new scale and the HPA's status, and
// records kube's events. Its memory (recent recommendations and scale events)
// lives here, per HPA, as kube's controller keeps it in memory.
import type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { findResource, findResourceByKind } from '../../../shared/api/resources.ts';
import type { ResourceType } from '../../../shared/api/resource-type.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import type { RateLimiter } from '../../../shared/workqueue/rate-limiters.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import type { ReconcileItem } from '../../../shared/controller/stepper.ts';
import type { ControllerContext } from '../../context.ts';
import { newMemory, type HPAMemory } from './behavior.ts';
import { hpaNotes } from './notes.ts';
import { planSync, rescaled, type MetricsResult, type Observed } from './plan.ts';
import { defaultCalculatorConfig, type PodMetrics } from './replica-calculator.ts';

const hpas = findResource('autoscaling', 'v2', 'horizontalpodautoscalers')!;
const pods = findResource('', 'v1', 'pods')!;

/** kube's --horizontal-pod-autoscaler-sync-period and --horizontal-pod-autoscaler-downscale-stabilization. */
export const SYNC_PERIOD_MS = 15_000;
export const DOWNSCALE_STABILIZATION_MS = 300_000;

/** NewDefaultHPARateLimiter: every key waits one sync period, failed or not. */
function fixedInterval(ms: number): RateLimiter {
  const counts = new Map<string, number>();
  return {
    when: (key) => {
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return ms;
    },
    forget: (key) => void counts.delete(key),
    retries: (key) => counts.get(key) ?? 0,
  };
}

/** The resource a scaleTargetRef names ("apps/v1" Deployment -> apps deployments), if ksim serves it. */
function targetResource(apiVersion: string | undefined, kind: string): ResourceType | undefined {
  const group = apiVersion && apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return findResourceByKind(group, kind);
}

/** Builds the HPA controller; the caller runs it with runController. */
export function horizontalPodAutoscalerController(ctx: ControllerContext) {
  const name = 'horizontalpodautoscaling';
  const syncPeriod = SYNC_PERIOD_MS / ctx.speed;
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name), rateLimiter: fixedInterval(syncPeriod) });
  const hpaInformer = ctx.informers.informerFor<HorizontalPodAutoscaler>(hpas);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  const memories = new Map<string, HPAMemory>();
  const log = ctx.log.child({ controller: name });
  const config = {
    ...defaultCalculatorConfig(ctx.speed),
    downscaleStabilizationMs: DOWNSCALE_STABILIZATION_MS / ctx.speed,
    secondMs: 1000 / ctx.speed,
  };

  // As kube: adds and updates wait for the next sync period (the queue holds a key once).
  hpaInformer.on({
    add: (hpa) => queue.addRateLimited(keyOf(hpa)),
    update: (_old, hpa) => queue.addRateLimited(keyOf(hpa)),
    delete: (hpa) => memories.delete(keyOf(hpa)),
  });

  async function getScale(hpa: HorizontalPodAutoscaler): Promise<{ rt: ResourceType; scale: Scale } | { error: string }> {
    const ref = hpa.spec!.scaleTargetRef;
    const rt = targetResource(ref.apiVersion, ref.kind);
    if (!rt || !rt.subresources.includes('scale'))
      return { error: `no matches for kind "${ref.kind}" in group "${ref.apiVersion?.split('/')[0] ?? ''}"` };
    try {
      return { rt, scale: await ctx.client.get<Scale>(rt, hpa.metadata!.namespace, ref.name, 'scale') };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  async function fetchMetrics(namespace: string, selector: string): Promise<MetricsResult> {
    try {
      const list = await ctx.client.request<{ items?: PodMetrics[] }>('GET', `/apis/metrics.k8s.io/v1beta1/namespaces/${namespace}/pods`, {
        query: { labelSelector: selector },
      });
      return { items: list?.items ?? [] };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  async function reconcile(key: string, item?: ReconcileItem) {
    const cached = hpaInformer.cache.get(key);
    if (!cached) {
      memories.delete(key);
      return;
    }
    const hpa = structuredClone(cached);
    const namespace = hpa.metadata!.namespace!;
    let memory = memories.get(key);
    if (!memory) memories.set(key, (memory = newMemory()));
    const target = await getScale(hpa);
    const scale = 'error' in target ? target : target.scale;
    const selector = 'error' in scale ? '' : (scale.status?.selector ?? '');
    const usesResources = (hpa.spec?.metrics ?? []).some((m) => m.type === 'Resource');
    const metrics = selector && usesResources ? await fetchMetrics(namespace, selector) : { items: [] };
    const obs: Observed = {
      hpa,
      scale,
      pods: podInformer.cache.byIndex('namespace', namespace),
      metrics: () => metrics,
      now: ctx.clock.now(),
      memory,
      config,
    };
    let plan = planSync(obs);
    item?.note(hpaNotes(plan));
    if (plan.rescale && !('error' in target)) {
      let writeError: string | undefined;
      try {
        const next = structuredClone(target.scale);
        next.spec = { ...next.spec, replicas: plan.rescale.to };
        await ctx.client.update(target.rt, next as Scale & { metadata: object }, 'scale');
      } catch (err) {
        writeError = (err as Error).message;
      }
      plan = rescaled(plan, obs, writeError);
    }
    for (const e of plan.events) ctx.events.event(hpa, e.type, e.reason, e.message);
    if (!deepEqual(plan.status, cached.status ?? {})) {
      try {
        await ctx.client.update(hpas, { ...hpa, status: plan.status }, 'status');
      } catch (err) {
        ctx.events.event(hpa, 'Warning', 'FailedUpdateStatus', (err as Error).message);
        throw new Error(`failed to update status for ${hpa.metadata!.name}: ${(err as Error).message}`, { cause: err });
      }
    }
    if (plan.error) throw new Error(plan.error);
    return { requeueAfterMs: syncPeriod };
  }

  log.debug('configured');
  return { name, queue, informers: [hpaInformer, podInformer], reconcile };
}
