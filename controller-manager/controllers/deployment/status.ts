// A Deployment's status and conditions as pure functions: the replica sums,
// Available (MinimumReplicasAvailable / MinimumReplicasUnavailable) and
// Progressing (NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated,
// NewReplicaSetAvailable, ProgressDeadlineExceeded, DeploymentPaused,
// DeploymentResumed) with kube's reasons, messages and timestamp rules.
import type { DeploymentCondition, DeploymentStatus } from 'kubernetes-types/apps/v1.js';
import {
  actualReplicaCount,
  availableReplicaCount,
  maxUnavailable,
  readyReplicaCount,
  replicaCount,
  type DeploymentLike,
  type ReplicaSetLike,
} from './util.ts';

/** A DeploymentCondition. */
export type Condition = DeploymentCondition;

/** RFC 3339 with whole seconds. */
export function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A new condition stamped `now`. */
export function condition(
  type: string,
  status: 'True' | 'False' | 'Unknown',
  reason: string | undefined,
  message: string | undefined,
  now: number,
): Condition {
  return { type, status, lastUpdateTime: stamp(now), lastTransitionTime: stamp(now), reason, message };
}

/** The condition of `type` in `status`. */
export function getCondition(status: DeploymentStatus | undefined, type: string): Condition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** SetDeploymentCondition: no-op for the same status and reason; keeps the transition time when only the reason changes. */
export function setCondition(status: DeploymentStatus, c: Condition): void {
  const current = getCondition(status, c.type);
  if (current && current.status === c.status && current.reason === c.reason) return;
  if (current && current.status === c.status) c.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((x) => x.type !== c.type), c];
}

/** Removes the condition of `type`. */
export function removeCondition(status: DeploymentStatus, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((x) => x.type !== type);
}

/** calculateStatus: sums over ReplicaSets plus the Available condition. */
export function calculateStatus(
  d: DeploymentLike,
  allRSs: (ReplicaSetLike | undefined)[],
  newRS: ReplicaSetLike | undefined,
  now: number,
): DeploymentStatus {
  const available = availableReplicaCount(allRSs);
  const unavailable = Math.max(replicaCount(allRSs) - available, 0);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata?.generation ?? 0,
    replicas: actualReplicaCount(allRSs),
    updatedReplicas: actualReplicaCount(newRS ? [newRS] : []),
    readyReplicas: readyReplicaCount(allRSs),
    availableReplicas: available,
    unavailableReplicas: unavailable,
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  status.conditions = structuredClone(d.status?.conditions ?? []);
  const replicas = d.spec?.replicas ?? 1;
  if (available >= replicas - maxUnavailable(d)) {
    setCondition(status, condition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now));
  } else {
    setCondition(
      status,
      condition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', now),
    );
  }
  return status;
}

/** kube omits zero counts (omitempty); replicas-like fields stay when non-zero only. */
export function compactStatus(status: DeploymentStatus): DeploymentStatus {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(status)) {
    if (v === 0 || v === undefined || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out;
}

/** DeploymentComplete: every replica updated and available, and the latest generation observed. */
export function isComplete(d: DeploymentLike, status: DeploymentStatus): boolean {
  const replicas = d.spec?.replicas ?? 1;
  return (
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas &&
    (status.availableReplicas ?? 0) === replicas &&
    (status.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0)
  );
}

/** DeploymentProgressing: something moved since the last status. */
export function isProgressing(d: DeploymentLike, status: DeploymentStatus): boolean {
  const old: DeploymentStatus = d.status ?? {};
  return (
    (status.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    actualOld(status) < actualOld(old) ||
    (status.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (status.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** Pods not yet updated: kube compares old-pod counts (replicas - updated). */
function actualOld(s: DeploymentStatus): number {
  return (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
}

/** DeploymentTimedOut: no progress for progressDeadlineSeconds (divided by `speed`). */
export function isTimedOut(d: DeploymentLike, status: DeploymentStatus, now: number, speed: number): boolean {
  const deadline = d.spec?.progressDeadlineSeconds;
  if (deadline === undefined || deadline === null) return false;
  const c = getCondition(status, 'Progressing');
  if (!c) return false;
  if (c.reason === 'ProgressDeadlineExceeded') return true;
  if (c.reason === 'NewReplicaSetAvailable') return false;
  return Date.parse(c.lastUpdateTime ?? '') + (deadline * 1000) / speed < now;
}

/**
 * syncRolloutStatus's decision: the status with the Progressing condition
 * updated, and when to look again for a deadline that may pass.
 */
export function rolloutStatus(
  d: DeploymentLike,
  allRSs: (ReplicaSetLike | undefined)[],
  newRS: ReplicaSetLike | undefined,
  now: number,
  speed: number,
): { status: DeploymentStatus; recheckInMs?: number } {
  const status = calculateStatus(d, allRSs, newRS, now);
  const hasDeadline = d.spec?.progressDeadlineSeconds !== undefined && d.spec?.progressDeadlineSeconds !== null;
  if (!hasDeadline) removeCondition(status, 'Progressing');
  const current = getCondition(status, 'Progressing');
  const complete = status.replicas === status.updatedReplicas && current?.reason === 'NewReplicaSetAvailable';
  if (hasDeadline && !complete) {
    const rsName = newRS?.metadata?.name;
    if (isComplete(d, status)) {
      const msg = rsName
        ? `ReplicaSet "${rsName}" has successfully progressed.`
        : `Deployment "${d.metadata!.name}" has successfully progressed.`;
      setCondition(status, condition('Progressing', 'True', 'NewReplicaSetAvailable', msg, now));
    } else if (isProgressing(d, status)) {
      const msg = rsName ? `ReplicaSet "${rsName}" is progressing.` : `Deployment "${d.metadata!.name}" is progressing.`;
      const c = condition('Progressing', 'True', 'ReplicaSetUpdated', msg, now);
      if (current?.status === 'True') c.lastTransitionTime = current.lastTransitionTime;
      removeCondition(status, 'Progressing');
      setCondition(status, c);
    } else if (isTimedOut(d, status, now, speed)) {
      const msg = rsName
        ? `ReplicaSet "${rsName}" has timed out progressing.`
        : `Deployment "${d.metadata!.name}" has timed out progressing.`;
      setCondition(status, condition('Progressing', 'False', 'ProgressDeadlineExceeded', msg, now));
    }
  }
  const failure = allRSs.map((rs) => rs?.status?.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True')).find(Boolean);
  if (failure) setCondition(status, condition('ReplicaFailure', 'True', failure.reason, failure.message, now));
  else removeCondition(status, 'ReplicaFailure');
  let recheckInMs: number | undefined;
  const after = getCondition(status, 'Progressing');
  if (hasDeadline && after && after.reason !== 'NewReplicaSetAvailable' && after.reason !== 'ProgressDeadlineExceeded') {
    recheckInMs = Math.max(Date.parse(after.lastUpdateTime ?? '') + (d.spec!.progressDeadlineSeconds! * 1000) / speed - now, 0) + 1000;
  }
  return { status, recheckInMs };
}
