// The ReplicaSet controller's decisions as pure functions: how many Pods to
// create, which Pods to delete first (kube's ActivePodsWithRanks order), the
// slow-start batch sizes, and the status a ReplicaSet should report.
import type { ReplicaSetCondition, ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import type { Pod, PodCondition } from 'kubernetes-types/core/v1.js';
import type { ReplicaSetLike } from '../deployment/util.ts';
import { matchesLabels, selectorFromLabelSelector } from '../../../shared/labels/label-selector.ts';

/** kube's --replicaset-burst... : at most this many creates or deletes per sync. */
export const BURST_REPLICAS = 500;

/** True for a Pod that counts as a replica: not terminal and not being deleted. */
export function isActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

/** The Pod's Ready condition, if any. */
export function readyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** True when the Pod is Ready. */
export function isReady(pod: Pod): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** True when the Pod has been Ready for at least `minReadySeconds` at `now`. */
export function isAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const c = readyCondition(pod);
  if (c?.status !== 'True') return false;
  if (!minReadySeconds) return true;
  const since = Date.parse(c.lastTransitionTime ?? '');
  return Number.isFinite(since) && since + minReadySeconds * 1000 <= now;
}

/** What a sync should do about the replica count. */
export interface ReplicaPlan {
  create: number;
  delete: Pod[];
}

/** Compares replicas wanted with active Pods owned. */
export function planReplicas(rs: ReplicaSetLike, activePods: Pod[], now: number): ReplicaPlan {
  const want = rs.spec?.replicas ?? 1;
  const diff = activePods.length - want;
  if (diff < 0) return { create: Math.min(-diff, BURST_REPLICAS), delete: [] };
  if (diff > 0) return { create: 0, delete: podsToDelete(activePods, Math.min(diff, BURST_REPLICAS), now) };
  return { create: 0, delete: [] };
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

function restarts(pod: Pod): number {
  return Math.max(0, ...(pod.status?.containerStatuses ?? []).map((s) => s.restartCount ?? 0));
}

function deletionCost(pod: Pod): number {
  const v = Number(pod.metadata?.annotations?.['controller.kubernetes.io/pod-deletion-cost'] ?? 0);
  return Number.isFinite(v) ? v : 0;
}

/** Buckets a duration on a log2 scale, as kube's LogarithmicScaleDown ranking does. */
function logBucket(ms: number): number {
  return ms <= 0 ? 0 : Math.floor(Math.log2(ms / 1000 + 1));
}

/**
 * The `n` Pods to delete first, in kube's order: unassigned before assigned,
 * Pending before Unknown before Running, not ready before ready, lower
 * deletion cost first, more Pods of this set on the same node first, ready
 * for less time first, more restarts first, newer first.
 */
export function podsToDelete(pods: Pod[], n: number, now: number): Pod[] {
  const perNode = new Map<string, number>();
  for (const p of pods) if (p.spec?.nodeName) perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
  const readySince = (p: Pod) => Date.parse(readyCondition(p)?.lastTransitionTime ?? '') || 0;
  const created = (p: Pod) => Date.parse(p.metadata?.creationTimestamp ?? '') || 0;
  const sorted = [...pods].sort((a, b) => {
    const assignedA = a.spec?.nodeName ? 1 : 0;
    const assignedB = b.spec?.nodeName ? 1 : 0;
    if (assignedA !== assignedB) return assignedA - assignedB;
    const phaseA = PHASE_RANK[a.status?.phase ?? ''] ?? 0;
    const phaseB = PHASE_RANK[b.status?.phase ?? ''] ?? 0;
    if (phaseA !== phaseB) return phaseA - phaseB;
    const readyA = isReady(a) ? 1 : 0;
    const readyB = isReady(b) ? 1 : 0;
    if (readyA !== readyB) return readyA - readyB;
    const costA = deletionCost(a);
    const costB = deletionCost(b);
    if (costA !== costB) return costA - costB;
    const doubledA = perNode.get(a.spec?.nodeName ?? '') ?? 0;
    const doubledB = perNode.get(b.spec?.nodeName ?? '') ?? 0;
    if (doubledA !== doubledB) return doubledB - doubledA;
    if (readyA && readyB) {
      const rA = logBucket(now - readySince(a));
      const rB = logBucket(now - readySince(b));
      if (rA !== rB) return rA - rB;
    }
    const restartA = restarts(a);
    const restartB = restarts(b);
    if (restartA !== restartB) return restartB - restartA;
    const cA = logBucket(now - created(a));
    const cB = logBucket(now - created(b));
    if (cA !== cB) return cA - cB;
    return 0;
  });
  return sorted.slice(0, n);
}

/** kube's slowStartBatch sizes: 1, 2, 4, ... until `count` is reached. */
export function slowStartBatches(count: number, initial = 1): number[] {
  const out: number[] = [];
  let remaining = count;
  let size = Math.min(remaining, initial);
  while (size > 0) {
    out.push(size);
    remaining -= size;
    size = Math.min(2 * size, remaining);
  }
  return out;
}

/** The status a ReplicaSet should report, and when to look again for Pods about to become available. */
export function computeStatus(
  rs: ReplicaSetLike,
  activePods: Pod[],
  now: number,
  failure?: string,
  speed = 1,
): { status: ReplicaSetStatus; requeueAfterMs?: number } {
  // Like every control-plane duration, minReadySeconds plays out `speed` times faster.
  const minReady = (rs.spec?.minReadySeconds ?? 0) / speed;
  const templateLabels = rs.spec?.template?.metadata?.labels ?? {};
  const templateSelector = selectorFromLabelSelector({ matchLabels: templateLabels });
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  let soonest: number | undefined;
  for (const p of activePods) {
    if (matchesLabels(templateSelector, p.metadata?.labels)) fullyLabeled++;
    if (!isReady(p)) continue;
    ready++;
    if (isAvailable(p, minReady, now)) available++;
    else {
      const at = Date.parse(readyCondition(p)!.lastTransitionTime!) + minReady * 1000 - now;
      soonest = soonest === undefined ? at : Math.min(soonest, at);
    }
  }
  // Zero counts are omitted, as kube's JSON (omitempty) has them; replicas is always there.
  const status: ReplicaSetStatus = { replicas: activePods.length };
  if (fullyLabeled) status.fullyLabeledReplicas = fullyLabeled;
  if (ready) status.readyReplicas = ready;
  if (available) status.availableReplicas = available;
  if (rs.metadata?.generation) status.observedGeneration = rs.metadata.generation;
  const conditions: ReplicaSetCondition[] = (rs.status?.conditions ?? []).filter((c) => c.type !== 'ReplicaFailure');
  if (failure) {
    const previous = rs.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
    conditions.push({
      type: 'ReplicaFailure',
      status: 'True',
      lastTransitionTime: previous?.lastTransitionTime ?? new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      reason: 'FailedCreate',
      message: failure,
    });
  }
  if (conditions.length) status.conditions = conditions;
  return { status, requeueAfterMs: soonest !== undefined ? Math.max(soonest, 0) + 1000 : undefined };
}

/** True when `pod` matches the ReplicaSet's selector. */
export function selects(rs: ReplicaSetLike, pod: Pod): boolean {
  return matchesLabels(selectorFromLabelSelector(rs.spec?.selector), pod.metadata?.labels);
}
