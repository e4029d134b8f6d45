// ControllerRevision history, as kube's pkg/controller/history: the one
// implementation the DaemonSet and StatefulSet controllers share.
//
// A ControllerRevision snapshots a parent's pod template as a strategic merge
// patch (`data`) with a revision number. The API:
//
//   templatePatch(template)                   the patch both controllers store: {"spec":{"template":{..., "$patch":"replace"}}}
//   goJson(value)                             Go's json.Marshal of decoded JSON (sorted keys, HTML escapes): the bytes kube compares
//   hashControllerRevision(rev, probe?)       kube's HashControllerRevision: FNV-1 32 of data (+ probe), safe-encoded
//   controllerRevisionName(prefix, hash)      NAME-HASH, the prefix cut to 223 characters
//   newControllerRevision(parent, kind, labels, data, revision, collisionCount)
//                                             a revision owned by `parent`, named NAME-HASH and labelled
//                                             controller.kubernetes.io/hash=HASH (REVISION_DATA_HASH_LABEL)
//   listControllerRevisions(revisions, parent, selects)
//                                             those that select and are controlled by `parent` or orphaned
//   controlledRevisions(revisions, parent)    those controlled by `parent` only
//   sortControllerRevisions(revs)             by revision, then creation time, then name (a new sorted array)
//   equalRevision(a, b), findEqualRevisions(revs, needle)
//   nextRevision(revs), maxRevision(revs)     revision numbers
//   revisionsToTruncate(revs, live, limit)    the oldest non-live revisions beyond the history limit (StatefulSet's rule)
//   createControllerRevision(client, parent, rev, collisionCount)
//                                             creates it, retrying with collisionCount+1 while the name is taken
//                                             by different data; answers the revision and the count used
//   updateControllerRevision(client, rev, revision)
//                                             sets its revision number (re-reading on conflict)
//   claimControllerRevisions(client, parent, kind, revisions, selects)
//                                             adopts orphans that match and releases those that stop matching
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import type { PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import type { KubeObject } from '../../../shared/api/object.ts';
import { findResource } from '../../../shared/api/resources.ts';
import type { KubeClient } from '../../../shared/client/kube-client.ts';
import { claim } from '../../../shared/controller/claim.ts';
import { controllerOf, controllerRef } from '../../../shared/controller/owner-refs.ts';

/** The label DaemonSet and StatefulSet Pods (and a DaemonSet's own revisions) carry their revision's hash in. */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';
/** history.ControllerRevisionHashLabel: the hash of a revision's data, on the revisions newControllerRevision makes. */
export const REVISION_DATA_HASH_LABEL = 'controller.kubernetes.io/hash';

export const controllerRevisions = findResource('apps', 'v1', 'controllerrevisions')!;

/** kube keeps revision names within a DNS subdomain: 253 less the hash room. */
const MAX_PREFIX = 223;
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** An owner of revisions: a DaemonSet or StatefulSet as read from the apiserver. */
export interface RevisionParent extends KubeObject {
  metadata?: KubeObject['metadata'];
}

const HTML_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => HTML_ESCAPES[c]);
}

/** Go's json.Marshal of a decoded JSON value (maps sort their keys; <, > and & are escaped as Go does). */
export function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (typeof v === 'string') return goString(v);
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${goString(k)}:${goJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * The patch both controllers store: the template (as Go marshals the struct:
 * metadata always there, creationTimestamp left out since kube 1.34's
 * omitzero) with $patch: replace, under spec.
 * Its keys come in Go's sorted order, so the bytes the apiserver hands back
 * are the ones kubectl computes when it checks whether a revision is current.
 */
export function templatePatch(template: PodTemplateSpec | undefined): Record<string, unknown> {
  const t = structuredClone(template ?? {}) as Record<string, unknown>;
  t.metadata ??= {};
  t.$patch = 'replace';
  return JSON.parse(goJson({ spec: { template: t } })) as Record<string, unknown>;
}

/** FNV-1 (not 1a) 32-bit, as Go's fnv.New32, continuing from `h`. */
export function fnv1(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (const b of bytes) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h;
}

/** rand.SafeEncodeString: each character mapped onto an alphabet with no vowels. */
export function safeEncode(s: string): string {
  let out = '';
  for (const c of s) out += SAFE_ALPHABET[c.codePointAt(0)! % SAFE_ALPHABET.length];
  return out;
}

/** kube's HashControllerRevision: the hash of the revision's data bytes and the probe (collision count). */
export function hashControllerRevision(rev: { data?: unknown }, probe?: number): string {
  const enc = new TextEncoder();
  let h = fnv1(enc.encode(rev.data === undefined ? '' : goJson(rev.data)));
  if (probe !== undefined) h = fnv1(enc.encode(String(probe)), h);
  return safeEncode(String(h));
}

/** NAME-HASH, with the prefix cut so the name stays a valid DNS subdomain. */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > MAX_PREFIX ? prefix.slice(0, MAX_PREFIX) : prefix}-${hash}`;
}

/** kube's NewControllerRevision: owned by `parent`, with the template's labels and the hash label. */
export function newControllerRevision(
  parent: RevisionParent,
  parentKind: { apiVersion: string; kind: string },
  templateLabels: Record<string, string> | undefined,
  data: unknown,
  revision: number,
  collisionCount?: number,
): ControllerRevision {
  const meta = parent.metadata!;
  const rev: ControllerRevision = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      namespace: meta.namespace,
      labels: { ...templateLabels },
      ownerReferences: [controllerRef({ metadata: { name: meta.name!, uid: meta.uid! } }, parentKind.apiVersion, parentKind.kind)],
    },
    data: data as object,
    revision,
  };
  const hash = hashControllerRevision(rev, collisionCount);
  rev.metadata!.name = controllerRevisionName(meta.name!, hash);
  rev.metadata!.labels![REVISION_DATA_HASH_LABEL] = hash;
  return rev;
}

/** Revisions that `selects` accepts and that `parent` controls or nobody does (kube's ListControllerRevisions). */
export function listControllerRevisions(
  revisions: ControllerRevision[],
  parent: RevisionParent,
  selects: (rev: ControllerRevision) => boolean,
): ControllerRevision[] {
  const uid = parent.metadata!.uid;
  return revisions.filter((r) => {
    if (r.metadata?.namespace !== parent.metadata!.namespace || !selects(r)) return false;
    const ref = controllerOf(r);
    return !ref || ref.uid === uid;
  });
}

/** Revisions whose controller is `parent` (what kubectl rollout history lists). */
export function controlledRevisions(revisions: ControllerRevision[], parent: RevisionParent): ControllerRevision[] {
  return revisions.filter((r) => controllerOf(r)?.uid === parent.metadata!.uid);
}

const created = (r: ControllerRevision) => Date.parse(r.metadata?.creationTimestamp ?? '') || 0;

/** Oldest first: by revision, then creation time, then name (a new array). */
export function sortControllerRevisions(revs: ControllerRevision[]): ControllerRevision[] {
  return [...revs].sort((a, b) => {
    const byRev = (a.revision ?? 0) - (b.revision ?? 0);
    if (byRev) return byRev;
    const byTime = created(a) - created(b);
    if (byTime) return byTime;
    const na = a.metadata?.name ?? '';
    const nb = b.metadata?.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
}

/** kube's EqualRevision: differing controller.kubernetes.io/hash labels mean different; else the data must be equal. */
export function equalRevision(a: ControllerRevision | undefined, b: ControllerRevision | undefined): boolean {
  if (!a || !b) return a === b;
  const ha = a.metadata?.labels?.[REVISION_DATA_HASH_LABEL];
  const hb = b.metadata?.labels?.[REVISION_DATA_HASH_LABEL];
  if (ha !== undefined && hb !== undefined && ha !== hb) return false;
  return goJson(a.data) === goJson(b.data);
}

/** The revisions equal to `needle`. */
export function findEqualRevisions(revs: ControllerRevision[], needle: ControllerRevision): ControllerRevision[] {
  return revs.filter((r) => equalRevision(r, needle));
}

/** The highest revision number, 0 for none. */
export function maxRevision(revs: ControllerRevision[]): number {
  return revs.reduce((m, r) => Math.max(m, r.revision ?? 0), 0);
}

/** The number a new revision takes: one past the last of the sorted list, 1 for none. */
export function nextRevision(revs: ControllerRevision[]): number {
  if (revs.length === 0) return 1;
  const sorted = sortControllerRevisions(revs);
  return (sorted[sorted.length - 1].revision ?? 0) + 1;
}

/**
 * StatefulSet's truncateHistory: of the revisions not named in `live`, the
 * oldest ones beyond `limit` (the ones to delete), oldest first.
 */
export function revisionsToTruncate(revs: ControllerRevision[], live: Set<string>, limit: number): ControllerRevision[] {
  const history = sortControllerRevisions(revs).filter((r) => !live.has(r.metadata!.name!));
  return history.length <= limit ? [] : history.slice(0, history.length - limit);
}

/**
 * kube's CreateControllerRevision: names the revision with the hash of its
 * data and `collisionCount`; a name taken by equal data answers that
 * revision, a name taken by other data retries with the count one higher.
 * Answers the revision and the collision count in the end.
 */
export async function createControllerRevision(
  client: KubeClient,
  parent: RevisionParent,
  rev: ControllerRevision,
  collisionCount: number,
): Promise<{ revision: ControllerRevision; collisionCount: number }> {
  const ns = parent.metadata!.namespace;
  const clone = structuredClone(rev);
  for (;;) {
    clone.metadata!.name = controllerRevisionName(parent.metadata!.name!, hashControllerRevision(rev, collisionCount));
    try {
      return { revision: await client.create<ControllerRevision>(controllerRevisions, ns, clone), collisionCount };
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409 && err.reason === 'AlreadyExists')) throw err;
      const exists = await client.get<ControllerRevision>(controllerRevisions, ns, clone.metadata!.name);
      if (goJson(exists.data) === goJson(clone.data)) return { revision: exists, collisionCount };
      collisionCount++;
    }
  }
}

/** kube's UpdateControllerRevision: sets the revision number, re-reading the object once on a conflict. */
export async function updateControllerRevision(client: KubeClient, rev: ControllerRevision, revision: number): Promise<ControllerRevision> {
  if (rev.revision === revision) return rev;
  try {
    return await client.update<ControllerRevision>(controllerRevisions, { ...rev, revision });
  } catch (err) {
    if (!(err instanceof StatusError && err.code === 409)) throw err;
    const fresh = await client.get<ControllerRevision>(controllerRevisions, rev.metadata!.namespace, rev.metadata!.name!);
    return client.update<ControllerRevision>(controllerRevisions, { ...fresh, revision });
  }
}

/** Adopts matching orphan revisions and releases non-matching owned ones; answers those `parent` controls. */
export function claimControllerRevisions(
  client: KubeClient,
  parent: RevisionParent,
  parentKind: { apiVersion: string; kind: string },
  revisions: ControllerRevision[],
  selects: (rev: ControllerRevision) => boolean,
): Promise<ControllerRevision[]> {
  return claim({
    owner: parent,
    ownerApiVersion: parentKind.apiVersion,
    ownerKind: parentKind.kind,
    candidates: revisions.filter((r) => r.metadata?.namespace === parent.metadata!.namespace),
    selects,
    patch: (r: ControllerRevision, patch) =>
      client.patch(controllerRevisions, r.metadata!.namespace, r.metadata!.name!, 'strategic', patch),
  });
}
