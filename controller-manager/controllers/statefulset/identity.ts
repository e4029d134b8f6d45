// A StatefulSet's Pods and claims as kube's stateful_set_utils.go sees them:
// ordinals parsed from Pod names, the stable identity (name, hostname,
// subdomain, pod-name and pod-index labels), the claims named
// TEMPLATE-SET-ORDINAL, the Pod predicates the controller orders by, and the
// ownerReferences that persistentVolumeClaimRetentionPolicy puts on claims.
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod, PodCondition, Volume } from 'kubernetes-types/core/v1.js';
import type { OwnerReference as MetaOwnerReference } from 'kubernetes-types/meta/v1.js';
import { scaledValue } from '../deployment/util.ts';

/** The label naming the revision a Pod was made from (apps.StatefulSetRevisionLabel). */
export const REVISION_LABEL = 'controller-revision-hash';
/** apps.StatefulSetPodNameLabel. */
export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** apps.PodIndexLabel. */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

export const SET_KIND = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
export const POD_KIND = { apiVersion: 'v1', kind: 'Pod' };

type Named = { metadata?: { name?: string; uid?: string; namespace?: string } };

const POD_NAME = /^(.*)-([0-9]+)$/;

/** The parent set's name and the ordinal in a Pod's name; ordinal -1 when the name has none. */
export function parentAndOrdinal(name: string | undefined): { parent: string; ordinal: number } {
  const m = POD_NAME.exec(name ?? '');
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  // ParseInt(..., 10, 32): an ordinal beyond int32 does not parse.
  return { parent: m[1], ordinal: n <= 2 ** 31 - 1 ? n : -1 };
}

/** The Pod's ordinal, -1 when its name has none. */
export function ordinalOf(pod: Pod): number {
  return parentAndOrdinal(pod.metadata?.name).ordinal;
}

/** spec.ordinals.start, or 0. */
export function startOrdinal(set: StatefulSet): number {
  return set.spec?.ordinals?.start ?? 0;
}

/** The last ordinal the set wants (inclusive). */
export function endOrdinal(set: StatefulSet): number {
  return startOrdinal(set) + replicasOf(set) - 1;
}

/** spec.replicas, defaulted. */
export function replicasOf(set: StatefulSet): number {
  return set.spec?.replicas ?? 1;
}

/** True when the Pod's ordinal is one the set wants. */
export function inOrdinalRange(pod: Pod, set: StatefulSet): boolean {
  const o = ordinalOf(pod);
  return o >= startOrdinal(set) && o <= endOrdinal(set);
}

/** NAME-ORDINAL. */
export function podName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata!.name}-${ordinal}`;
}

/** TEMPLATE-SET-ORDINAL. */
export function claimName(set: StatefulSet, template: PersistentVolumeClaim, ordinal: number): string {
  return `${template.metadata?.name}-${set.metadata!.name}-${ordinal}`;
}

/** True when the Pod's name says it belongs to the set. */
export function isMemberOf(set: StatefulSet, pod: Pod): boolean {
  return parentAndOrdinal(pod.metadata?.name).parent === set.metadata!.name;
}

/** True when the Pod carries the identity the set gives its ordinal. */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod.metadata?.name);
  return (
    ordinal >= 0 &&
    parent === set.metadata!.name &&
    pod.metadata?.name === podName(set, ordinal) &&
    pod.metadata?.namespace === set.metadata!.namespace &&
    pod.metadata?.labels?.[POD_NAME_LABEL] === pod.metadata?.name
  );
}

/** True when the Pod mounts every claim of the set's templates under the template's name. */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const v = volumes.get(t.metadata?.name ?? '');
    if (v?.persistentVolumeClaim?.claimName !== claimName(set, t, ordinal)) return false;
  }
  return true;
}

/** The claims a Pod of the set needs, by template name: the template, renamed, with the selector's labels. */
export function claimsFor(set: StatefulSet, ordinal: number): Map<string, PersistentVolumeClaim> {
  const out = new Map<string, PersistentVolumeClaim>();
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const c = structuredClone(t);
    // A template's status (Pending, defaulted by the apiserver) is not the claim's to send.
    const { status: _status, ...rest } = c as PersistentVolumeClaim & { status?: unknown };
    const claim: PersistentVolumeClaim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...rest };
    claim.metadata = {
      ...c.metadata,
      name: claimName(set, t, ordinal),
      namespace: set.metadata!.namespace,
      labels: { ...c.metadata?.labels, ...set.spec?.selector?.matchLabels },
    };
    out.set(t.metadata?.name ?? '', claim);
  }
  return out;
}

/** kube's updateStorage: the templates' claims as volumes, then the Pod's other volumes. */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const claims = claimsFor(set, ordinalOf(pod));
  const volumes: Volume[] = [...claims].map(([name, c]) => ({
    name,
    persistentVolumeClaim: { claimName: c.metadata!.name! },
  }));
  for (const v of pod.spec?.volumes ?? []) if (!claims.has(v.name)) volumes.push(v);
  pod.spec = { ...pod.spec!, volumes };
}

/** kube's updateIdentity: name, namespace and the pod-name and pod-index labels. */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ordinal = ordinalOf(pod);
  const meta = (pod.metadata ??= {});
  meta.name = podName(set, ordinal);
  meta.namespace = set.metadata!.namespace;
  meta.labels = { ...meta.labels, [POD_NAME_LABEL]: meta.name, [POD_INDEX_LABEL]: String(ordinal) };
}

/** A new Pod of the set at `ordinal`, from the set's template (GetPodFromTemplate + initIdentity + updateStorage). */
export function newStatefulSetPod(set: StatefulSet, ordinal: number): Pod {
  const t = set.spec?.template ?? {};
  const meta = set.metadata!;
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(set, ordinal),
      generateName: `${meta.name}-`,
      namespace: meta.namespace,
      labels: { ...t.metadata?.labels },
      ...(t.metadata?.annotations ? { annotations: { ...t.metadata.annotations } } : {}),
      ...(t.metadata?.finalizers ? { finalizers: [...t.metadata.finalizers] } : {}),
      ownerReferences: [controllerRefTo(set, SET_KIND)],
    },
    spec: structuredClone(t.spec ?? { containers: [] }),
  };
  updateIdentity(set, pod);
  // Set only at creation: hostname and subdomain are immutable afterwards.
  pod.spec!.hostname = pod.metadata!.name;
  if (set.spec?.serviceName) pod.spec!.subdomain = set.spec.serviceName;
  updateStorage(set, pod);
  return pod;
}

/**
 * kube's newVersionedStatefulSetPod: a Pod below the partition (or, with no
 * rollingUpdate, below status.currentReplicas) is made at the current
 * revision, any other at the update revision.
 */
export function newVersionedPod(
  currentSet: StatefulSet,
  updateSet: StatefulSet,
  currentRevision: string,
  updateRevision: string,
  ordinal: number,
): Pod {
  const us = currentSet.spec?.updateStrategy;
  const start = startOrdinal(currentSet);
  // kube's condition, with Go's && binding tighter than ||.
  const atCurrent =
    (us?.type === 'RollingUpdate' && !us.rollingUpdate && ordinal < start + (currentSet.status?.currentReplicas ?? 0)) ||
    (!!us?.rollingUpdate && ordinal < start + (us.rollingUpdate.partition ?? 0));
  const pod = newStatefulSetPod(atCurrent ? currentSet : updateSet, ordinal);
  pod.metadata!.labels![REVISION_LABEL] = atCurrent ? currentRevision : updateRevision;
  return pod;
}

/** The revision a Pod was made from. */
export function podRevision(pod: Pod): string {
  return pod.metadata?.labels?.[REVISION_LABEL] ?? '';
}

/** True once the apiserver has the Pod (it has a phase). */
export const isCreated = (pod: Pod) => !!pod.status?.phase;
export const isPending = (pod: Pod) => pod.status?.phase === 'Pending';
export const isFailed = (pod: Pod) => pod.status?.phase === 'Failed';
export const isSucceeded = (pod: Pod) => pod.status?.phase === 'Succeeded';
export const isTerminating = (pod: Pod) => !!pod.metadata?.deletionTimestamp;

function readyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

/** Running with condition Ready. */
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && readyCondition(pod)?.status === 'True';
}

/** podutil.IsPodAvailable: Ready for at least minReadySeconds (ms here) at `now`. */
export function isRunningAndAvailable(pod: Pod, minReadyMs: number, now: number): boolean {
  const c = readyCondition(pod);
  if (c?.status !== 'True') return false;
  if (minReadyMs <= 0) return true;
  const since = Date.parse(c.lastTransitionTime ?? '');
  return Number.isFinite(since) && since + minReadyMs <= now;
}

/** Not available, or on its way out. */
export function isUnavailable(pod: Pod, minReadyMs: number, now: number): boolean {
  return !isRunningAndAvailable(pod, minReadyMs, now) || isTerminating(pod);
}

/** getStatefulSetMaxUnavailable: the int or percent of replicas (rounded down), at least 1. */
export function maxUnavailableOf(set: StatefulSet): number {
  const v = set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  return Math.max(1, scaledValue(v, replicasOf(set), false));
}

// ---- claims and the retention policy ----

/** The retention policy, Retain/Retain when unset. */
export function retentionPolicy(set: StatefulSet): { whenDeleted: string; whenScaled: string } {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: p?.whenDeleted || 'Retain', whenScaled: p?.whenScaled || 'Retain' };
}

/** metav1.NewControllerRef. */
export function controllerRefTo(owner: Named, kind: { apiVersion: string; kind: string }): MetaOwnerReference {
  return { ...kind, name: owner.metadata!.name!, uid: owner.metadata!.uid!, controller: true, blockOwnerDeletion: true };
}

const matchesRef = (ref: MetaOwnerReference, obj: Named, kind: { apiVersion: string; kind: string }) =>
  ref.apiVersion === kind.apiVersion && ref.kind === kind.kind && ref.name === obj.metadata?.name;

const refs = (claim: PersistentVolumeClaim) => claim.metadata?.ownerReferences ?? [];

function hasOwnerRef(claim: PersistentVolumeClaim, owner: Named): boolean {
  return refs(claim).some((r) => r.uid === owner.metadata?.uid);
}

/** A ref to the object's name and kind with another uid: a previous incarnation's. */
export function hasStaleOwnerRef(claim: PersistentVolumeClaim, obj: Named, kind: { apiVersion: string; kind: string }): boolean {
  const ref = refs(claim).find((r) => matchesRef(r, obj, kind));
  return !!ref && ref.uid !== obj.metadata?.uid;
}

/** Under a deleting policy, a controller of the claim that is neither the set nor the Pod (or a stale one of them). */
export function hasUnexpectedController(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  const policy = retentionPolicy(set);
  if (policy.whenScaled === 'Retain' && policy.whenDeleted === 'Retain') return false;
  for (const ref of refs(claim)) {
    if (matchesRef(ref, set, SET_KIND)) {
      if (ref.uid !== set.metadata?.uid) return true;
      continue;
    }
    if (matchesRef(ref, pod, POD_KIND)) {
      if (ref.uid !== pod.metadata?.uid) return true;
      continue;
    }
    if (ref.controller) return true;
  }
  return false;
}

function hasNonControllerOwner(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  return refs(claim).some((r) => (r.uid === set.metadata?.uid || r.uid === pod.metadata?.uid) && !r.controller);
}

/**
 * kube's isClaimOwnerUpToDate: Retain/Retain wants no ref of ours,
 * whenDeleted=Delete a ref to the set, whenScaled=Delete a ref to the Pod
 * once the Pod is scaled away (and then none to the set).
 */
export function isClaimOwnerUpToDate(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  if (hasStaleOwnerRef(claim, set, SET_KIND) || hasStaleOwnerRef(claim, pod, POD_KIND)) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const { whenScaled, whenDeleted } = retentionPolicy(set);
  const scaledDown = !inOrdinalRange(pod, set);
  const setRef = hasOwnerRef(claim, set);
  const podRef = hasOwnerRef(claim, pod);
  if (whenScaled === 'Delete' && whenDeleted === 'Delete') return scaledDown !== setRef && scaledDown === podRef;
  if (whenScaled === 'Delete') return !setRef && scaledDown === podRef;
  if (whenDeleted === 'Delete') return setRef && !podRef;
  return !setRef && !podRef;
}

/** kube's updateClaimOwnerRefForSetAndPod: the claim's refs with ours rewritten to match the policy. */
export function claimOwnerRefsFor(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): MetaOwnerReference[] {
  const unexpected = hasUnexpectedController(claim, set, pod);
  const out = refs(claim).filter((r) => !matchesRef(r, set, SET_KIND) && !matchesRef(r, pod, POD_KIND));
  if (unexpected) return out;
  const add = (owner: Named, kind: { apiVersion: string; kind: string }) => {
    if (!out.some((r) => r.uid === owner.metadata?.uid)) out.push(controllerRefTo(owner, kind));
  };
  const { whenScaled, whenDeleted } = retentionPolicy(set);
  const scaledDown = !inOrdinalRange(pod, set);
  if (whenScaled === 'Delete' && scaledDown) add(pod, POD_KIND);
  if (whenDeleted === 'Delete' && (whenScaled !== 'Delete' || !scaledDown)) add(set, SET_KIND);
  return out;
}
