// The StatefulSet controller's decisions as a pure function, after kube's
// updateStatefulSet (stateful_set_control.go): which Pods to create, fix or
// delete this sync, in which phases, and the status to report.
//
// Phases run in order: the replicas in the ordinal range, then the claims of
// condemned Pods (beyond the range) for the retention policy, then the
// condemned Pods themselves (highest ordinal first), then the rolling update
// (with kube v1.35's MaxUnavailableStatefulSet on). Under OrderedReady
// ("monotonic") the plan stops at the first Pod that blocks progress and the
// applier runs units one by one; under Parallel every unit of a phase may run
// at once (in slow-start batches) and only an error stops the sync.
import type { StatefulSet, StatefulSetStatus } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import {
  claimsFor,
  endOrdinal,
  hasStaleOwnerRef,
  identityMatches,
  inOrdinalRange,
  isClaimOwnerUpToDate,
  isCreated,
  isFailed,
  isPending,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
  isUnavailable,
  maxUnavailableOf,
  newVersionedPod,
  ordinalOf,
  POD_KIND,
  podRevision,
  replicasOf,
  retentionPolicy,
  startOrdinal,
  storageMatches,
  claimName,
} from './identity.ts';

/** One thing done to one Pod: its claims and the Pod itself, as kube's StatefulPodControl methods. */
export type Op =
  /** CreateStatefulPod: missing claims, the Pod, then the claims' retention refs. */
  | 'create'
  /** DeleteStatefulPod. */
  | 'delete'
  /** UpdateStatefulPod against the update revision: identity, storage, retention refs. */
  | 'update'
  /** createMissingPersistentVolumeClaims, for a Pending Pod. */
  | 'claims'
  /** UpdatePodClaimForRetentionPolicy, for a condemned Pod. */
  | 'retention';

/** The ops for one Pod, run in order. */
export interface Unit {
  pod: Pod;
  ops: Op[];
}

/** What a sync does and reports. */
export interface StatefulSetPlan {
  status: StatefulSetStatus;
  /** Each phase's units; a phase runs only once the one before it is done without error. */
  phases: Unit[][];
  /** OrderedReady: units run one at a time. */
  monotonic: boolean;
  /** Why the plan stopped where it did (which ordinal it waits on), for step-through notes. */
  wait?: string;
}

/** What the plan is made from. */
export interface PlanInput {
  set: StatefulSet;
  /** The set with the current and the update revision's template applied. */
  currentSet: StatefulSet;
  updateSet: StatefulSet;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
  /** The Pods the set owns. */
  pods: Pod[];
  /** The set's namespace's claims, by name. */
  claim: (name: string) => PersistentVolumeClaim | undefined;
  now: number;
  /** minReadySeconds in milliseconds, already scaled by the cluster's speed. */
  minReadyMs: number;
}

interface Counts {
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
}

/** kube's computeReplicaStatus over every list. */
function count(input: PlanInput, lists: Pod[][]): Counts {
  const c: Counts = { replicas: 0, readyReplicas: 0, availableReplicas: 0, currentReplicas: 0, updatedReplicas: 0 };
  for (const list of lists) {
    for (const pod of list) {
      if (isCreated(pod)) c.replicas++;
      if (isRunningAndReady(pod)) {
        c.readyReplicas++;
        if (isRunningAndAvailable(pod, input.minReadyMs, input.now)) c.availableReplicas++;
      }
      if (isCreated(pod) && !isTerminating(pod)) {
        const rev = podRevision(pod);
        if (rev === input.currentRevision) c.currentReplicas++;
        if (rev === input.updateRevision) c.updatedReplicas++;
      }
    }
  }
  return c;
}

/** The status object as kube writes it: zero counts omitted (omitempty) except replicas and availableReplicas. */
function statusOf(input: PlanInput, c: Counts): StatefulSetStatus {
  const s: StatefulSetStatus = { replicas: c.replicas, availableReplicas: c.availableReplicas };
  if (input.set.metadata?.generation) s.observedGeneration = input.set.metadata.generation;
  if (c.readyReplicas) s.readyReplicas = c.readyReplicas;
  if (c.currentReplicas) s.currentReplicas = c.currentReplicas;
  if (c.updatedReplicas) s.updatedReplicas = c.updatedReplicas;
  if (input.currentRevision) s.currentRevision = input.currentRevision;
  if (input.updateRevision) s.updateRevision = input.updateRevision;
  s.collisionCount = input.collisionCount;
  return s;
}

/** True when every claim of a Pod matches the retention policy (a missing claim matches: it is made later). */
export function claimsMatchRetention(set: StatefulSet, pod: Pod, claim: PlanInput['claim']): boolean {
  const ordinal = ordinalOf(pod);
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const c = claim(claimName(set, t, ordinal));
    if (c && !isClaimOwnerUpToDate(c, set, pod)) return false;
  }
  return true;
}

/** PodClaimIsStale: under whenScaled=Delete, a claim still owned by an earlier Pod of the same name blocks the new Pod. */
export function podClaimIsStale(set: StatefulSet, pod: Pod, claim: PlanInput['claim']): boolean {
  if (retentionPolicy(set).whenScaled === 'Retain') return false;
  for (const c of claimsFor(set, ordinalOf(pod)).values()) {
    const existing = claim(c.metadata!.name!);
    if (existing && hasStaleOwnerRef(existing, pod, POD_KIND)) return true;
  }
  return false;
}

/** Sorts Pods highest ordinal first. */
const descending = (a: Pod, b: Pod) => ordinalOf(b) - ordinalOf(a);

/** See the file comment. */
export function planStatefulSet(input: PlanInput): StatefulSetPlan {
  const { set, updateSet, minReadyMs, now } = input;
  const monotonic = set.spec?.podManagementPolicy !== 'Parallel';
  const start = startOrdinal(set);
  const replicas: Pod[] = new Array(replicasOf(set));
  const condemned: Pod[] = [];
  for (const pod of input.pods) {
    if (inOrdinalRange(pod, set)) replicas[ordinalOf(pod) - start] = pod;
    else if (ordinalOf(pod) >= 0) condemned.push(pod);
  }
  for (let ord = start; ord <= endOrdinal(set); ord++) {
    if (!replicas[ord - start]) {
      replicas[ord - start] = newVersionedPod(input.currentSet, updateSet, input.currentRevision, input.updateRevision, ord);
    }
  }
  condemned.sort(descending);

  // The first unavailable Pod: of the replicas in order, else of the condemned lowest first.
  let firstUnavailable: Pod | undefined = replicas.find((p) => isUnavailable(p, minReadyMs, now));
  if (!firstUnavailable) firstUnavailable = [...condemned].reverse().find((p) => isUnavailable(p, minReadyMs, now));

  const phases: Unit[][] = [];
  const finish = (adjust?: (s: StatefulSetStatus) => void, wait?: string): StatefulSetPlan => {
    const status = statusOf(input, count(input, [replicas, condemned]));
    adjust?.(status);
    return wait ? { status, phases, monotonic, wait } : { status, phases, monotonic };
  };
  if (set.metadata?.deletionTimestamp) return { status: statusOf(input, count(input, [input.pods])), phases, monotonic };

  // 1. The replicas.
  const replicaUnits: Unit[] = [];
  phases.push(replicaUnits);
  for (const pod of replicas) {
    const { unit, blocked, why } = processReplica(input, pod, monotonic);
    if (unit.ops.length) replicaUnits.push(unit);
    if (blocked && monotonic) return finish(undefined, why);
  }

  // 2. The condemned Pods' claims, for whenScaled.
  const retentionUnits: Unit[] = [];
  phases.push(retentionUnits);
  for (const pod of condemned) {
    if (!claimsMatchRetention(updateSet, pod, input.claim)) retentionUnits.push({ pod, ops: ['retention'] });
  }

  // 3. The condemned Pods, highest ordinal first; under OrderedReady only while the rest is healthy.
  const condemnedUnits: Unit[] = [];
  phases.push(condemnedUnits);
  for (const pod of condemned) {
    if (isTerminating(pod)) {
      if (monotonic) return finish(undefined, `OrderedReady waits for condemned pod ${ordinalOf(pod)} to finish terminating`);
      continue;
    }
    if (monotonic && pod !== firstUnavailable && (!isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReadyMs, now))) {
      return finish(undefined, `OrderedReady waits: condemned pod ${ordinalOf(pod)} is not Ready and another Pod is unavailable`);
    }
    condemnedUnits.push({ pod, ops: ['delete'] });
    // Under OrderedReady one Pod goes at a time.
    if (monotonic) return finish();
  }

  // 4. The rolling update.
  const us = set.spec?.updateStrategy;
  if (us?.type === 'OnDelete')
    return finish(undefined, 'updateStrategy OnDelete: a Pod moves to the update revision only when it is deleted');
  const updateMin = us?.rollingUpdate?.partition ?? 0;
  const maxUnavailable = maxUnavailableOf(set);
  const unavailable = replicas.filter((p) => isUnavailable(p, minReadyMs, now)).length;
  if (unavailable > maxUnavailable)
    return finish(undefined, `rolling update waits: unavailable ${unavailable} > maxUnavailable ${maxUnavailable}`);
  const updateUnits: Unit[] = [];
  phases.push(updateUnits);
  const budget = maxUnavailable - unavailable;
  for (let target = replicas.length - 1; target >= updateMin && updateUnits.length < budget; target--) {
    const pod = replicas[target];
    if (podRevision(pod) !== input.updateRevision && !isTerminating(pod)) updateUnits.push({ pod, ops: ['delete'] });
  }
  return finish((s) => {
    const current = (s.currentReplicas ?? 0) - updateUnits.length;
    if (current > 0) s.currentReplicas = current;
    else delete s.currentReplicas;
  });
}

/** kube's processReplica: the ops for one replica, and whether it blocks an OrderedReady set. */
function processReplica(input: PlanInput, pod: Pod, monotonic: boolean): { unit: Unit; blocked: boolean; why?: string } {
  const { set, updateSet, minReadyMs, now } = input;
  const unit: Unit = { pod, ops: [] };
  const ord = ordinalOf(pod);
  // A finished Pod (Failed, or Succeeded after an eviction) is deleted; its successor comes once it is gone.
  if (isFailed(pod) || isSucceeded(pod)) {
    if (!isTerminating(pod)) unit.ops.push('delete');
    return { unit, blocked: true, why: `pod ${ord} has ${pod.status?.phase}: delete it, its successor is created once it is gone` };
  }
  if (!isCreated(pod)) {
    if (podClaimIsStale(set, pod, input.claim))
      return { unit, blocked: true, why: `pod ${ord} waits: a claim of it is still being deleted` };
    unit.ops.push('create');
    return { unit, blocked: monotonic, why: `OrderedReady: create pod ${ord}, then wait for it to be Running and Ready` };
  }
  if (isPending(pod)) unit.ops.push('claims');
  if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReadyMs, now))) {
    const state = isTerminating(pod)
      ? 'to finish terminating'
      : !isRunningAndReady(pod)
        ? 'to be Running and Ready'
        : 'to be available (minReadySeconds)';
    return { unit, blocked: true, why: `OrderedReady waits for pod ${ord} ${state}` };
  }
  if (!identityMatches(set, pod) || !storageMatches(set, pod) || !claimsMatchRetention(updateSet, pod, input.claim)) {
    unit.ops.push('update');
  }
  return { unit, blocked: false };
}

/**
 * completeRollingUpdate and inconsistentStatus: the status to write (the
 * rollout marked complete once every replica is updated and ready), or
 * undefined when the set already reports it.
 */
export function statusToWrite(set: StatefulSet, planned: StatefulSetStatus): StatefulSetStatus | undefined {
  const status = { ...planned };
  const want = replicasOf(set);
  if (
    set.spec?.updateStrategy?.type === 'RollingUpdate' &&
    (status.updatedReplicas ?? 0) === want &&
    (status.readyReplicas ?? 0) === want &&
    status.replicas === want
  ) {
    if (status.updatedReplicas) status.currentReplicas = status.updatedReplicas;
    else delete status.currentReplicas;
    if (status.updateRevision) status.currentRevision = status.updateRevision;
  }
  const old: StatefulSetStatus = set.status ?? { replicas: 0 };
  const inconsistent =
    (status.observedGeneration ?? 0) > (old.observedGeneration ?? 0) ||
    status.replicas !== (old.replicas ?? 0) ||
    (status.currentReplicas ?? 0) !== (old.currentReplicas ?? 0) ||
    (status.readyReplicas ?? 0) !== (old.readyReplicas ?? 0) ||
    (status.updatedReplicas ?? 0) !== (old.updatedReplicas ?? 0) ||
    (status.currentRevision ?? '') !== (old.currentRevision ?? '') ||
    (status.availableReplicas ?? 0) !== (old.availableReplicas ?? 0) ||
    (status.updateRevision ?? '') !== (old.updateRevision ?? '');
  return inconsistent ? status : undefined;
}
