// The Deployment controller: owns ReplicaSets named by the pod-template
// hash, rolls from old to new (RollingUpdate within maxSurge and
// maxUnavailable, or Recreate), scales proportionally during a rollout,
// honours pause, keeps revisionHistoryLimit old ReplicaSets for rollback,
// and reports status and conditions. The arithmetic lives in util.ts and
// status.ts; this file reads the caches and writes through the API.
import type { Deployment, DeploymentStatus, ReplicaSet, ReplicaSetSpec } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { claim, ignoreNotFound } from '../../../shared/controller/claim.ts';
import { controllerOf, controllerRef } from '../../../shared/controller/owner-refs.ts';
import { keyOf } from '../../../shared/informer/cache.ts';
import { matchesLabels, selectorFromLabelSelector } from '../../../shared/labels/label-selector.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import { WorkQueue } from '../../../shared/workqueue/work-queue.ts';
import { queueMetrics } from '../../../shared/workqueue/queue-metrics.ts';
import type { ControllerContext, ControllerParts } from '../../context.ts';
import { compactStatus, condition, getCondition, rolloutStatus, calculateStatus, setCondition, isComplete } from './status.ts';
import {
  activeReplicaSets,
  availableReplicaCount,
  byCreation,
  DESIRED_REPLICAS,
  findNewReplicaSet,
  maxRevision,
  maxSurge,
  maxUnavailable,
  newReplicaSetReplicas,
  POD_TEMPLATE_HASH,
  podTemplateHash,
  proportion,
  replicaCount,
  newReplicaSetAnnotations,
  replicasAnnotations,
  REVISION,
  revisionOf,
  specReplicas,
  isRolling,
} from './util.ts';
import type { ReconcileItem } from '../../../shared/controller/stepper.ts';

const deployments = findResource('apps', 'v1', 'deployments')!;
const replicasets = findResource('apps', 'v1', 'replicasets')!;
const pods = findResource('', 'v1', 'pods')!;

/** `spec` with minReadySeconds set, or absent when 0: kube's int32 omitempty never writes a zero. */
function withMinReadySeconds<S extends { minReadySeconds?: number }>(
  spec: S,
  seconds: number,
): Omit<S, 'minReadySeconds'> & { minReadySeconds?: number } {
  const { minReadySeconds: _, ...rest } = spec;
  return seconds ? { ...rest, minReadySeconds: seconds } : rest;
}

/** Builds the Deployment controller. */
export function deploymentController(ctx: ControllerContext): ControllerParts {
  const name = 'deployment';
  const queue = new WorkQueue({ clock: ctx.clock, metrics: queueMetrics(ctx.registry, name) });
  const dInformer = ctx.informers.informerFor<Deployment>(deployments);
  const rsInformer = ctx.informers.informerFor<ReplicaSet>(replicasets);
  const podInformer = ctx.informers.informerFor<Pod>(pods);
  dInformer.cache.addIndex('uid', (d) => [d.metadata!.uid!]);
  rsInformer.cache.addIndex('controller', (rs) => [controllerOf(rs)?.uid ?? '']);
  podInformer.cache.addIndex('controller', (p) => [controllerOf(p)?.uid ?? '']);

  const selects = (d: Deployment, obj: { metadata?: ObjectMeta }) =>
    matchesLabels(selectorFromLabelSelector(d.spec?.selector), obj.metadata?.labels);
  const ownerOf = (rs: ReplicaSet): string | undefined => {
    const ref = controllerOf(rs);
    if (ref?.kind !== 'Deployment') return undefined;
    const d = dInformer.cache.byIndex('uid', ref.uid)[0];
    return d ? keyOf(d) : undefined;
  };
  const enqueueForRS = (rs: ReplicaSet) => {
    const key = ownerOf(rs);
    if (key) queue.add(key);
    else if (!controllerOf(rs))
      for (const d of dInformer.cache.byIndex('namespace', rs.metadata!.namespace!)) if (selects(d, rs)) queue.add(keyOf(d));
  };

  dInformer.on({ add: (d) => queue.add(keyOf(d)), update: (_o, d) => queue.add(keyOf(d)), delete: (d) => queue.add(keyOf(d)) });
  rsInformer.on({
    add: enqueueForRS,
    update: (old, rs) => {
      const before = ownerOf(old);
      if (before && before !== ownerOf(rs)) queue.add(before);
      enqueueForRS(rs);
    },
    delete: enqueueForRS,
  });
  podInformer.on({
    // A Recreate rollout waits for old Pods to go away.
    delete: (pod) => {
      const ref = controllerOf(pod);
      const rs = ref ? rsInformer.cache.get(`${pod.metadata!.namespace}/${ref.name}`) : undefined;
      if (rs) enqueueForRS(rs);
    },
  });

  const now = () => ctx.clock.now();

  /**
   * Records the Deployment's revision annotation with an update, as kube's
   * controller does (its RBAC role may update Deployments, not patch them);
   * a stale `d` is a conflict, and the key is retried.
   */
  async function setRevision(d: Deployment, revision: string): Promise<void> {
    const next = structuredClone(d);
    next.metadata!.annotations = { ...next.metadata!.annotations, [REVISION]: revision };
    const updated = await ctx.client.update<Deployment>(deployments, next);
    d.metadata = updated.metadata;
  }
  async function writeStatus(d: Deployment, status: DeploymentStatus): Promise<void> {
    const compact = compactStatus(status);
    if (deepEqual(compact, d.status ?? {})) return;
    const next: Deployment = { ...d, status: compact };
    await ctx.client.update(deployments, next, 'status');
    d.status = compact;
  }

  const updateReplicaSet = (rs: ReplicaSet) => ctx.client.update<ReplicaSet>(replicasets, rs);

  async function scaleReplicaSet(rs: ReplicaSet, size: number, d: Deployment, operation?: 'up' | 'down'): Promise<ReplicaSet> {
    // Only the replica annotations change here: an old ReplicaSet being
    // scaled down keeps its own change-cause and revision (kube's scaleReplicaSet).
    const annotations = { ...rs.metadata!.annotations, ...replicasAnnotations(d) };
    const sizeChanged = specReplicas(rs) !== size;
    if (!sizeChanged && deepEqual(annotations, rs.metadata!.annotations ?? {})) return rs;
    const updated = await updateReplicaSet({
      ...rs,
      metadata: { ...rs.metadata, annotations },
      spec: { ...rs.spec!, replicas: size },
    });
    if (sizeChanged) {
      const op = operation ?? (specReplicas(rs) < size ? 'up' : 'down');
      ctx.events.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${op} replica set ${rs.metadata!.name} from ${specReplicas(rs)} to ${size}`,
      );
    }
    return updated;
  }

  /** The new ReplicaSet (created when asked and missing) and the old ones, with revisions synced. */
  async function newAndOld(d: Deployment, rsList: ReplicaSet[], create: boolean): Promise<{ newRS?: ReplicaSet; oldRSs: ReplicaSet[] }> {
    const existing = findNewReplicaSet(d, rsList);
    const oldRSs = rsList.filter((rs) => rs !== existing);
    const newRevision = maxRevision(oldRSs) + 1;
    if (existing) {
      // The replica annotations too, which kube leaves to scaling: ksim's
      // rollout reads them right after this.
      const annotations = { ...newReplicaSetAnnotations(d, existing, newRevision, true), ...replicasAnnotations(d) };
      let rs = existing;
      const minReady = d.spec?.minReadySeconds ?? 0;
      if (!deepEqual(annotations, existing.metadata!.annotations ?? {}) || (existing.spec?.minReadySeconds ?? 0) !== minReady) {
        rs = await updateReplicaSet({
          ...existing,
          metadata: { ...existing.metadata, annotations },
          spec: withMinReadySeconds(existing.spec!, minReady),
        });
      }
      const rev = rs.metadata!.annotations?.[REVISION];
      const status = structuredClone(d.status ?? {});
      let changed = false;
      if (rev && d.metadata!.annotations?.[REVISION] !== rev) {
        await setRevision(d, rev);
      }
      if (!getCondition(status, 'Progressing')) {
        setCondition(status, condition('Progressing', 'True', 'FoundNewReplicaSet', `Found new replica set "${rs.metadata!.name}"`, now()));
        changed = true;
      }
      if (changed) await writeStatus(d, status);
      return { newRS: rs, oldRSs };
    }
    if (!create) return { oldRSs };
    const dSpec = d.spec!;
    const template = structuredClone(dSpec.template);
    const hash = podTemplateHash(dSpec.template, d.status?.collisionCount);
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH]: hash } };
    const selector = structuredClone(dSpec.selector ?? {});
    selector.matchLabels = { ...selector.matchLabels, [POD_TEMPLATE_HASH]: hash };
    const metadata: ObjectMeta = {
      name: `${d.metadata!.name}-${hash}`,
      namespace: d.metadata!.namespace,
      labels: template.metadata.labels,
      ownerReferences: [controllerRef({ metadata: { name: d.metadata!.name!, uid: d.metadata!.uid! } }, 'apps/v1', 'Deployment')],
    };
    const spec = withMinReadySeconds<ReplicaSetSpec>({ replicas: 0, selector, template }, d.spec?.minReadySeconds ?? 0);
    const draft: ReplicaSet = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata, spec };
    spec.replicas = newReplicaSetReplicas(d, [...oldRSs, draft], draft);
    metadata.annotations = newReplicaSetAnnotations(d, draft, newRevision, false);
    let created: ReplicaSet;
    try {
      created = await ctx.client.create<ReplicaSet>(replicasets, d.metadata!.namespace, draft);
    } catch (err) {
      if (!(err instanceof StatusError && err.reason === 'AlreadyExists')) throw err;
      // A ReplicaSet of that name with another template: a hash collision. Bump and retry.
      const status = structuredClone(d.status ?? {});
      status.collisionCount = (status.collisionCount ?? 0) + 1;
      await writeStatus(d, status);
      throw new Error(`hash collision for ReplicaSet ${metadata.name}; collisionCount is now ${status.collisionCount}`, { cause: err });
    }
    if (specReplicas(created) > 0) {
      ctx.events.event(
        d,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${created.metadata!.name} from 0 to ${specReplicas(created)}`,
      );
    }
    await setRevision(d, String(newRevision));
    const status = structuredClone(d.status ?? {});
    setCondition(
      status,
      condition('Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${created.metadata!.name}"`, now()),
    );
    await writeStatus(d, status);
    return { newRS: created, oldRSs };
  }

  /** Proportional scaling (kube's scale()): runs when spec.replicas changed or while paused. */
  async function scale(d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<void> {
    const replicas = d.spec?.replicas ?? 1;
    const active = activeReplicaSets([...oldRSs, newRS]);
    if (active.length <= 1) {
      const target = active[0] ?? newRS ?? [...oldRSs].sort(byCreation).reverse()[0];
      if (target && specReplicas(target) !== replicas) await scaleReplicaSet(target, replicas, d);
      return;
    }
    if (
      newRS &&
      specReplicas(newRS) === replicas &&
      Number(newRS.metadata!.annotations?.[DESIRED_REPLICAS]) === replicas &&
      (newRS.status?.availableReplicas ?? 0) === replicas
    ) {
      for (const rs of activeReplicaSets(oldRSs)) await scaleReplicaSet(rs, 0, d);
      return;
    }
    if (!isRolling(d)) return;
    const allowed = replicas > 0 ? replicas + maxSurge(d) : 0;
    const toAdd = allowed - replicaCount(active);
    // Largest first; ties go to the newest when growing and to the oldest when shrinking.
    const sorted = [...active].sort((a, b) => specReplicas(b) - specReplicas(a) || (toAdd > 0 ? -byCreation(a, b) : byCreation(a, b)));
    let added = 0;
    const sizes = new Map<ReplicaSet, number>();
    for (const rs of sorted) {
      const p = toAdd !== 0 ? proportion(rs, d, toAdd, added) : 0;
      sizes.set(rs, specReplicas(rs) + p);
      added += p;
    }
    if (toAdd !== 0 && sorted.length) sizes.set(sorted[0], Math.max(sizes.get(sorted[0])! + toAdd - added, 0));
    const op = toAdd > 0 ? 'up' : 'down';
    for (const rs of sorted) await scaleReplicaSet(rs, sizes.get(rs)!, d, op);
  }

  async function cleanup(d: Deployment, oldRSs: ReplicaSet[]): Promise<void> {
    const limit = d.spec?.revisionHistoryLimit;
    if (limit === undefined || limit === null) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata!.deletionTimestamp);
    const diff = cleanable.length - limit;
    if (diff <= 0) return;
    const byRevision = [...cleanable].sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (const rs of byRevision.slice(0, diff)) {
      if (
        (rs.status?.replicas ?? 0) !== 0 ||
        specReplicas(rs) !== 0 ||
        (rs.metadata!.generation ?? 0) > (rs.status?.observedGeneration ?? 0)
      )
        continue;
      await ignoreNotFound(ctx.client.delete(replicasets, rs.metadata!.namespace, rs.metadata!.name!));
    }
  }

  async function syncRollout(
    d: Deployment,
    allRSs: (ReplicaSet | undefined)[],
    newRS: ReplicaSet | undefined,
  ): Promise<{ requeueAfterMs?: number } | void> {
    const { status, recheckInMs } = rolloutStatus(d, allRSs.filter(Boolean), newRS, now(), ctx.speed);
    await writeStatus(d, status);
    return recheckInMs !== undefined ? { requeueAfterMs: recheckInMs } : undefined;
  }

  async function rolloutRolling(d: Deployment, rsList: ReplicaSet[], item?: ReconcileItem) {
    const { newRS, oldRSs } = await newAndOld(d, rsList, true);
    const all = [...oldRSs, newRS];
    const replicas = d.spec?.replicas ?? 1;
    const sizeOf = (rs: ReplicaSet) => ({
      name: rs.metadata!.name,
      replicas: specReplicas(rs),
      available: rs.status?.availableReplicas ?? 0,
    });
    item?.note({
      step: 'rolling update',
      want: { replicas, maxSurge: maxSurge(d), maxUnavailable: maxUnavailable(d) },
      have: { newReplicaSet: newRS && sizeOf(newRS), oldReplicaSets: activeReplicaSets(oldRSs).map(sizeOf), total: replicaCount(all) },
    });
    // Scale up the new ReplicaSet within maxSurge.
    if (newRS && specReplicas(newRS) !== replicas) {
      const target = specReplicas(newRS) > replicas ? replicas : newReplicaSetReplicas(d, all, newRS);
      const maxTotal = replicas + maxSurge(d);
      item?.note({
        surge: `at most replicas + maxSurge = ${replicas} + ${maxSurge(d)} = ${maxTotal} Pods; there are ${replicaCount(all)}`,
        decision:
          target !== specReplicas(newRS)
            ? `scale the new ReplicaSet ${newRS.metadata!.name} from ${specReplicas(newRS)} to ${target}`
            : `the new ReplicaSet stays at ${target}: no room to surge`,
      });
      if (target !== specReplicas(newRS)) {
        await scaleReplicaSet(newRS, target, d);
        return syncRollout(d, all, newRS);
      }
    }
    // Scale down old ReplicaSets within maxUnavailable.
    if (await reconcileOld(d, all, activeReplicaSets(oldRSs), newRS, item)) return syncRollout(d, all, newRS);
    const statusNow = calculateStatus(d, all.filter(Boolean), newRS, now());
    if (isComplete(d, statusNow)) await cleanup(d, oldRSs);
    return syncRollout(d, all, newRS);
  }

  async function reconcileOld(
    d: Deployment,
    all: (ReplicaSet | undefined)[],
    oldRSs: ReplicaSet[],
    newRS: ReplicaSet | undefined,
    item?: ReconcileItem,
  ): Promise<boolean> {
    if (replicaCount(oldRSs) === 0) return false;
    const replicas = d.spec?.replicas ?? 1;
    const minAvailable = replicas - maxUnavailable(d);
    const newUnavailable = specReplicas(newRS) - (newRS?.status?.availableReplicas ?? 0);
    const total = replicaCount(all.filter(Boolean));
    const maxScaledDown = total - minAvailable - newUnavailable;
    item?.note({
      unavailable: `at least replicas - maxUnavailable = ${replicas} - ${maxUnavailable(d)} = ${minAvailable} available`,
      scaleDown: `at most total - minAvailable - new unavailable = ${total} - ${minAvailable} - ${newUnavailable} = ${Math.max(0, maxScaledDown)} old Pods may go`,
    });
    if (maxScaledDown <= 0) return false;
    let cleaned = 0;
    // First drop unhealthy old replicas: they cost no availability.
    for (const rs of [...oldRSs].sort(byCreation)) {
      if (cleaned >= maxScaledDown) break;
      const unhealthy = specReplicas(rs) - (rs.status?.availableReplicas ?? 0);
      if (specReplicas(rs) === 0 || unhealthy <= 0) continue;
      const down = Math.min(maxScaledDown - cleaned, unhealthy);
      const target = specReplicas(rs) - down;
      await scaleReplicaSet(rs, target, d);
      rs.spec = { ...rs.spec!, replicas: target };
      cleaned += down;
    }
    // Then scale down healthy old replicas while availability stays above minAvailable.
    const available = availableReplicaCount(all.filter(Boolean));
    let scaled = 0;
    if (available > minAvailable) {
      const total = available - minAvailable;
      for (const rs of [...oldRSs].sort(byCreation)) {
        if (scaled >= total) break;
        if (specReplicas(rs) === 0) continue;
        const down = Math.min(specReplicas(rs), total - scaled);
        await scaleReplicaSet(rs, specReplicas(rs) - down, d);
        scaled += down;
      }
    }
    return cleaned + scaled > 0;
  }

  async function rolloutRecreate(d: Deployment, rsList: ReplicaSet[]) {
    let { newRS, oldRSs } = await newAndOld(d, rsList, false);
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldRSs)) {
      await scaleReplicaSet(rs, 0, d);
      scaledDown = true;
    }
    if (scaledDown) return syncRollout(d, [...oldRSs, newRS], newRS);
    const oldPodsLeft =
      oldRSs.some((rs) => (rs.status?.replicas ?? 0) > 0) ||
      oldRSs.some((rs) =>
        podInformer.cache.byIndex('controller', rs.metadata!.uid!).some((p) => !['Succeeded', 'Failed'].includes(p.status?.phase ?? '')),
      );
    if (oldPodsLeft) return syncRollout(d, [...oldRSs, newRS], newRS);
    if (!newRS) ({ newRS, oldRSs } = await newAndOld(d, rsList, true));
    if (newRS && specReplicas(newRS) !== (d.spec?.replicas ?? 1)) await scaleReplicaSet(newRS, d.spec?.replicas ?? 1, d, 'up');
    const all = [...oldRSs, newRS];
    if (isComplete(d, calculateStatus(d, all.filter(Boolean), newRS, now()))) await cleanup(d, oldRSs);
    return syncRollout(d, all, newRS);
  }

  async function reconcile(key: string, item?: ReconcileItem) {
    const cached = dInformer.cache.get(key);
    if (!cached) return;
    const d = structuredClone(cached);
    const candidates = rsInformer.cache.byIndex('namespace', d.metadata!.namespace!);
    const rsList: ReplicaSet[] = (
      await claim({
        owner: d,
        ownerApiVersion: 'apps/v1',
        ownerKind: 'Deployment',
        candidates,
        selects: (rs) => selects(d, rs),
        patch: (rs: ReplicaSet, patch) => ctx.client.patch(replicasets, rs.metadata!.namespace, rs.metadata!.name!, 'strategic', patch),
      })
    ).map((rs: ReplicaSet) => structuredClone(rs));
    if (d.metadata!.deletionTimestamp) {
      const { newRS, oldRSs } = await newAndOld(d, rsList, false);
      await writeStatus(d, calculateStatus(d, [...oldRSs, newRS].filter(Boolean), newRS, now()));
      return;
    }
    // Pause and resume are recorded as Progressing=Unknown, as kube does.
    const progressing = getCondition(d.status, 'Progressing');
    if (d.spec?.paused && progressing?.reason !== 'DeploymentPaused') {
      const status = structuredClone(d.status ?? {});
      setCondition(status, condition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused', now()));
      await writeStatus(d, status);
    } else if (!d.spec?.paused && progressing?.reason === 'DeploymentPaused') {
      const status = structuredClone(d.status ?? {});
      setCondition(status, condition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed', now()));
      await writeStatus(d, status);
    }
    const replicas = d.spec?.replicas ?? 1;
    const scalingEvent = (() => {
      const probe = findNewReplicaSet(d, rsList);
      return activeReplicaSets([...rsList.filter((rs) => rs !== probe), probe]).some((rs) => {
        const desired = rs.metadata!.annotations?.[DESIRED_REPLICAS];
        return desired !== undefined && Number(desired) !== replicas;
      });
    })();
    if (d.spec?.paused || scalingEvent) {
      item?.note({ step: d.spec?.paused ? 'paused: proportional scale only' : 'proportional scale', want: { replicas } });
      const { newRS, oldRSs } = await newAndOld(d, rsList, false);
      await scale(d, newRS, oldRSs);
      if (d.spec?.paused) await cleanup(d, oldRSs);
      const fresh = [...oldRSs, newRS].filter(Boolean);
      const status = calculateStatus(d, fresh, newRS, now());
      await writeStatus(d, status);
      return;
    }
    if (!isRolling(d)) item?.note({ step: 'recreate', want: { replicas } });
    return isRolling(d) ? rolloutRolling(d, rsList, item) : rolloutRecreate(d, rsList);
  }

  return { name, queue, informers: [dInformer, rsInformer, podInformer], reconcile };
}
