// The disruption controller: keeps each PodDisruptionBudget's status
// (expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed, the
// DisruptionAllowed condition, disruptedPods) up to date, which the
// apiserver's eviction subresource relies on.
import type { Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from 'kubernetes-types/policy/v1.js';
import { findResource } from '../../../shared/api/resources.ts';
import { controllerOf } from '../../../shared/controller/owner-refs.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { matchesLabels, selectorFromLabelSelector } from '../../../shared/labels/label-selector.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { budgetStatus } from './plan.ts';

const pdbs = findResource('policy', 'v1', 'poddisruptionbudgets')!;
const pods = findResource('', 'v1', 'pods')!;
const replicasets = findResource('apps', 'v1', 'replicasets')!;
const deployments = findResource('apps', 'v1', 'deployments')!;
const statefulsets = findResource('apps', 'v1', 'statefulsets')!;
const replicationcontrollers = findResource('', 'v1', 'replicationcontrollers')!;

/** How long an evicted Pod counts as disrupted before its deletion must have been seen (kube: 2 minutes). */
const DISRUPTED_POD_TIMEOUT_MS = 2 * 60_000;

/** Builds the disruption controller. */
export function disruptionController(ctx: ControllerContext): ControllerParts {
  const name = 'disruption';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const pdbInformer = ctx.informers.informerFor<PodDisruptionBudget>(pdbs);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  const rsInformer = ctx.informers.informerFor<ReplicaSet>(replicasets);
  const dInformer = ctx.informers.informerFor<Deployment>(deployments);
  const stsInformer = ctx.informers.informerFor<StatefulSet>(statefulsets);
  const rcInformer = ctx.informers.informerFor<ReplicationController>(replicationcontrollers);

  const enqueueForPod = (pod: Pod) => {
    for (const pdb of pdbInformer.cache.byIndex('namespace', pod.metadata!.namespace!)) {
      if (pdb.spec?.selector && matchesLabels(selectorFromLabelSelector(pdb.spec.selector), pod.metadata!.labels)) queue.add(keyOf(pdb));
    }
  };
  pdbInformer.on({ add: (p) => queue.add(keyOf(p)), update: (_o, p) => queue.add(keyOf(p)), delete: () => {} });
  podInformer.on({ add: enqueueForPod, update: (_o, p) => enqueueForPod(p), delete: enqueueForPod });

  /** The summed replicas of the Pods' controllers (ReplicationControllers, ReplicaSets or their Deployment, StatefulSets; kube's finders). */
  function controllerScale(matched: Pod[]): number | undefined {
    const seen = new Map<string, number>();
    for (const pod of matched) {
      const ref = controllerOf(pod);
      if (!ref) return undefined;
      const ns = pod.metadata!.namespace;
      if (ref.kind === 'ReplicaSet') {
        const rs = rsInformer.cache.get(`${ns}/${ref.name}`);
        if (!rs) return undefined;
        const dRef = controllerOf(rs);
        const d = dRef?.kind === 'Deployment' ? dInformer.cache.get(`${ns}/${dRef.name}`) : undefined;
        const owner = d ?? rs;
        seen.set(owner.metadata!.uid!, owner.spec?.replicas ?? 1);
      } else if (ref.kind === 'ReplicationController') {
        const rc = rcInformer.cache.get(`${ns}/${ref.name}`);
        if (!rc) return undefined;
        seen.set(rc.metadata!.uid!, rc.spec?.replicas ?? 1);
      } else if (ref.kind === 'StatefulSet') {
        const sts = stsInformer.cache.get(`${ns}/${ref.name}`);
        if (!sts) return undefined;
        seen.set(sts.metadata!.uid!, sts.spec?.replicas ?? 1);
      } else return undefined;
    }
    return [...seen.values()].reduce((a, b) => a + b, 0);
  }

  async function reconcile(key: string) {
    const pdb = pdbInformer.cache.get(key);
    if (!pdb) return;
    const selector = selectorFromLabelSelector(pdb.spec?.selector);
    const matched = podInformer.cache
      .byIndex('namespace', pdb.metadata!.namespace!)
      .filter((p) => matchesLabels(selector, p.metadata!.labels));
    const now = ctx.clock.now();
    // Evicted Pods stay "disrupted" until their deletion is seen, or for two minutes.
    const disruptedPods: Record<string, string> = {};
    let recheck: number | undefined;
    for (const [podName, at] of Object.entries<string>(pdb.status?.disruptedPods ?? {})) {
      const pod = matched.find((p) => p.metadata!.name === podName);
      const age = now - Date.parse(at);
      if (!pod || pod.metadata!.deletionTimestamp || age > DISRUPTED_POD_TIMEOUT_MS) continue;
      disruptedPods[podName] = at;
      recheck = Math.min(recheck ?? Infinity, DISRUPTED_POD_TIMEOUT_MS - age);
    }
    const b = budgetStatus(pdb, matched, controllerScale(matched), new Set(Object.keys(disruptedPods)));
    const allowed = b.disruptionsAllowed > 0;
    const previous = pdb.status?.conditions?.find((c) => c.type === 'DisruptionAllowed');
    const status: PodDisruptionBudgetStatus = {
      ...(Object.keys(disruptedPods).length ? { disruptedPods } : {}),
      disruptionsAllowed: b.disruptionsAllowed,
      currentHealthy: b.currentHealthy,
      desiredHealthy: b.desiredHealthy,
      expectedPods: b.expectedPods,
      observedGeneration: pdb.metadata!.generation,
      conditions: [
        {
          type: 'DisruptionAllowed',
          status: allowed ? 'True' : 'False',
          reason: allowed ? 'SufficientPods' : 'InsufficientPods',
          message: '',
          observedGeneration: pdb.metadata!.generation,
          lastTransitionTime:
            previous && previous.status === (allowed ? 'True' : 'False')
              ? previous.lastTransitionTime
              : new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        },
      ],
    };
    const next: PodDisruptionBudget = { ...pdb, status };
    if (!deepEqual(status, pdb.status ?? {})) await ctx.client.update(pdbs, next, 'status');
    return recheck !== undefined ? { requeueAfterMs: recheck + 1000 } : undefined;
  }

  return { name, queue, informers: [pdbInformer, podInformer, rsInformer, dInformer, stsInformer, rcInformer], reconcile };
}
