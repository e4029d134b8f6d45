// The arithmetic of Deployments as pure functions, following kube's
// deployment util: surge and unavailability from int-or-percent values,
// revisions and their annotations, template hashing, finding the new and old
// ReplicaSets, and sums over ReplicaSets.
import type { DeploymentSpec, DeploymentStatus, ReplicaSetSpec, ReplicaSetStatus } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { deepEqual } from '../../../shared/util/deep-equal.ts';

/** A Deployment as the arithmetic reads it: every spec field may be absent (an apps/v1 Deployment is one). */
export interface DeploymentLike {
  metadata?: ObjectMeta;
  spec?: Partial<DeploymentSpec>;
  status?: DeploymentStatus;
}

/** A ReplicaSet as the arithmetic reads it (an apps/v1 ReplicaSet is one). */
export interface ReplicaSetLike {
  metadata?: ObjectMeta;
  spec?: Partial<ReplicaSetSpec>;
  status?: Partial<ReplicaSetStatus>;
}

export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';
export const POD_TEMPLATE_HASH = 'pod-template-hash';

/** Annotations a Deployment does not pass on to its ReplicaSets. */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);

/** An int-or-percent scaled against `total`, rounding up or down as kube does. */
export function scaledValue(v: number | string | undefined, total: number, roundUp: boolean): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) {
    const n = Number(v);
    if (Number.isInteger(n)) return n;
    throw new Error(`invalid value for IntOrString: invalid value "${v}"`);
  }
  const exact = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** kube's ResolveFenceposts: maxSurge rounds up, maxUnavailable down, and both 0 means unavailable 1. */
export function fenceposts(d: DeploymentLike): { surge: number; unavailable: number } {
  const ru = d.spec?.strategy?.rollingUpdate ?? {};
  const replicas = d.spec?.replicas ?? 1;
  const surge = scaledValue(ru.maxSurge ?? '25%', replicas, true);
  let unavailable = scaledValue(ru.maxUnavailable ?? '25%', replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

/** True for the RollingUpdate strategy (the default). */
export function isRolling(d: DeploymentLike): boolean {
  return (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

/** MaxSurge(d): 0 unless rolling. */
export function maxSurge(d: DeploymentLike): number {
  return isRolling(d) ? fenceposts(d).surge : 0;
}

/** MaxUnavailable(d): 0 unless rolling with replicas, never above replicas. */
export function maxUnavailable(d: DeploymentLike): number {
  const replicas = d.spec?.replicas ?? 1;
  if (!isRolling(d) || replicas === 0) return 0;
  return Math.min(fenceposts(d).unavailable, replicas);
}

/** spec.replicas of a ReplicaSet (0 when absent in our objects, which the apiserver always defaults). */
export const specReplicas = (rs: ReplicaSetLike | undefined): number => rs?.spec?.replicas ?? 0;

/** Sum of spec.replicas. */
export const replicaCount = (rss: (ReplicaSetLike | undefined)[]): number => rss.reduce((n, rs) => n + specReplicas(rs), 0);
/** Sum of status.replicas. */
export const actualReplicaCount = (rss: (ReplicaSetLike | undefined)[]): number =>
  rss.reduce((n, rs) => n + (rs?.status?.replicas ?? 0), 0);
/** Sum of status.readyReplicas. */
export const readyReplicaCount = (rss: (ReplicaSetLike | undefined)[]): number =>
  rss.reduce((n, rs) => n + (rs?.status?.readyReplicas ?? 0), 0);
/** Sum of status.availableReplicas. */
export const availableReplicaCount = (rss: (ReplicaSetLike | undefined)[]): number =>
  rss.reduce((n, rs) => n + (rs?.status?.availableReplicas ?? 0), 0);

/** ReplicaSets that still have Pods, or want some. */
export function activeReplicaSets<R extends ReplicaSetLike>(rss: (R | undefined)[]): R[] {
  return rss.filter((rs): rs is R => !!rs && specReplicas(rs) > 0);
}

/** The revision a ReplicaSet carries, 0 when none. */
export function revisionOf(obj: { metadata?: ObjectMeta } | undefined): number {
  const v = Number(obj?.metadata?.annotations?.[REVISION] ?? 0);
  return Number.isFinite(v) ? v : 0;
}

/** The highest revision among `rss`. */
export function maxRevision(rss: ReplicaSetLike[]): number {
  return rss.reduce((m, rs) => Math.max(m, revisionOf(rs)), 0);
}

const created = (o: { metadata?: ObjectMeta }) => Date.parse(o.metadata?.creationTimestamp ?? '') || 0;

/** Oldest first, then by name, as ReplicaSetsByCreationTimestamp sorts. */
export function byCreation(a: { metadata?: ObjectMeta }, b: { metadata?: ObjectMeta }): number {
  const nameA = a.metadata!.name!;
  const nameB = b.metadata!.name!;
  return created(a) - created(b) || (nameA < nameB ? -1 : nameA > nameB ? 1 : 0);
}

/** Drops null, {} and [] recursively: Go's omitempty makes them the same as absent. */
function withoutEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEmpty);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const y = withoutEmpty(x);
      if (y === null || y === undefined) continue;
      if (typeof y === 'object' && Object.keys(y).length === 0) continue;
      out[k] = y;
    }
    return out;
  }
  return v;
}

/** Templates equal once the pod-template-hash label is ignored (and empty values count as absent). */
export function equalIgnoringHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  const strip = (t: PodTemplateSpec | undefined) => {
    const c = withoutEmpty(structuredClone(t ?? {})) as PodTemplateSpec;
    if (c.metadata?.labels) delete c.metadata.labels[POD_TEMPLATE_HASH];
    return withoutEmpty(c);
  };
  return deepEqual(strip(a), strip(b));
}

/** The ReplicaSet whose template is the Deployment's (the oldest such, if several). */
export function findNewReplicaSet<R extends ReplicaSetLike>(d: DeploymentLike, rss: R[]): R | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoringHash(rs.spec?.template, d.spec?.template));
}

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A JSON rendering with sorted keys: the same template always hashes the same. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * The pod-template-hash: FNV-1a (32 bit) of the template plus the collision
 * count, its decimal digits mapped onto kube's safe alphabet (rand.SafeEncodeString).
 * kube hashes its Go struct dump, so values differ from a real cluster's; the shape is the same.
 */
export function podTemplateHash(template: PodTemplateSpec | undefined, collisionCount?: number): string {
  let text = canonical(template);
  if (collisionCount) text += String(collisionCount);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return String(h)
    .split('')
    .map((c) => SAFE_ALPHABET[c.charCodeAt(0) % SAFE_ALPHABET.length])
    .join('');
}

/** kube's deployment controller caps revision-history at this many characters. */
export const MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000;

/**
 * copyDeploymentAnnotationsToReplicaSet: the Deployment's annotations (but
 * not the ones the controller owns, nor last-applied) added to `annotations`,
 * which is changed in place. Keys the Deployment lacks are left alone. Only
 * the new ReplicaSet gets this: an old one keeps the change-cause it was
 * rolled out with, which is what `kubectl rollout history` lists.
 */
export function copyDeploymentAnnotations(d: DeploymentLike, annotations: Record<string, string>): void {
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) if (!NOT_COPIED.has(k)) annotations[k] = v;
}

/** A revision annotation as kube's strconv.ParseInt reads it: '' is 0, anything else not an integer is undefined. */
function parseRevision(v: string | undefined): number | undefined {
  if (v === undefined || v === '') return 0;
  return /^[+-]?\d+$/.test(v) ? Number(v) : undefined;
}

/**
 * kube's SetNewReplicaSetAnnotations: the annotations the Deployment's new
 * ReplicaSet should carry. The Deployment's annotations are copied; the
 * revision moves up to `newRevision` if it is lower, and a ReplicaSet that
 * had a revision before (a rollback to it) appends that one to
 * revision-history, dropping the oldest entries beyond `limitChars`. A
 * ReplicaSet about to be created (`exists` false) also gets the replica
 * annotations.
 */
export function newReplicaSetAnnotations(
  d: DeploymentLike,
  rs: ReplicaSetLike,
  newRevision: number,
  exists: boolean,
  limitChars = MAX_REV_HISTORY_LENGTH_IN_CHARS,
): Record<string, string> {
  const out: Record<string, string> = { ...rs.metadata?.annotations };
  copyDeploymentAnnotations(d, out);
  const had = out[REVISION];
  const old = parseRevision(had);
  if (old === undefined) return out; // kube gives up on a revision it cannot read
  if (old < newRevision) {
    out[REVISION] = String(newRevision);
    if (had !== undefined) {
      const history = out[REVISION_HISTORY] ?? '';
      if (history === '') out[REVISION_HISTORY] = had;
      else {
        const kept = history.split(',');
        let total = history.length + had.length + 1;
        let start = 0;
        while (total > limitChars && start < kept.length) total -= kept[start++].length + 1;
        if (total <= limitChars) out[REVISION_HISTORY] = [...kept.slice(start), had].join(',');
      }
    }
  }
  if (!exists) Object.assign(out, replicasAnnotations(d));
  return out;
}

/** kube's SetReplicasAnnotations values: desired-replicas and max-replicas (replicas + maxSurge). */
export function replicasAnnotations(d: DeploymentLike): Record<string, string> {
  const replicas = d.spec?.replicas ?? 1;
  return { [DESIRED_REPLICAS]: String(replicas), [MAX_REPLICAS]: String(replicas + maxSurge(d)) };
}

/** NewRSNewReplicas: how big the new ReplicaSet may be now. */
export function newReplicaSetReplicas(d: DeploymentLike, allRSs: (ReplicaSetLike | undefined)[], newRS: ReplicaSetLike): number {
  const replicas = d.spec?.replicas ?? 1;
  if (!isRolling(d)) return replicas;
  const current = replicaCount(allRSs);
  const maxTotal = replicas + maxSurge(d);
  if (current >= maxTotal) return specReplicas(newRS);
  const up = Math.min(maxTotal - current, replicas - specReplicas(newRS));
  return specReplicas(newRS) + up;
}

/** A ReplicaSet's share of a proportional scale (kube's GetProportion). */
export function proportion(rs: ReplicaSetLike | undefined, d: DeploymentLike, toAdd: number, added: number): number {
  if (!rs || specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: ReplicaSetLike, d: DeploymentLike): number {
  const replicas = d.spec?.replicas ?? 1;
  if (replicas === 0) return -specReplicas(rs);
  const deploymentReplicas = replicas + maxSurge(d);
  const annotated = Number(rs.metadata?.annotations?.[MAX_REPLICAS]);
  const base = Number.isFinite(annotated) && annotated > 0 ? annotated : (d.status?.replicas ?? 0);
  if (base === 0) return 0;
  return Math.round((specReplicas(rs) * deploymentReplicas) / base) - specReplicas(rs);
}
