// The object lifecycle rules shared by every kind, as pure functions: what a
// create fills in, what an update may change (spec vs status, generation,
// immutable metadata, finalizers), and what a delete does (at once, or
// graceful with a deletionTimestamp while finalizers or a kubelet finish).
import type { UserInfo } from '../auth/user-info.ts';
import { isObject } from '../../shared/patch/go-format.ts';
import { badRequest, conflict, fieldError, invalid, StatusError, type FieldError } from '../../shared/api/errors.ts';
import { apiVersionOf, type ResourceType } from '../../shared/api/resource-type.ts';
import { deepEqual } from '../../shared/util/deep-equal.ts';
import { validateObjectName } from './names.ts';
import { strategyFor } from './strategy.ts';
import { jsonText } from './kinds/field.ts';
import type { KubeObject } from './object.ts';
import type { NamespaceSpec, NamespaceStatus, Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** kube's RFC 3339 timestamps carry whole seconds. */
export function timestamp(now: Date): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const GR = (rt: ResourceType) => ({ group: rt.group, resource: rt.plural });

/**
 * Checks the body's apiVersion/kind against the endpoint, filling them in
 * when absent, and gives it metadata: from here on it is an object of the
 * endpoint's kind (whose fields the kind's validation still checks).
 */
export function checkTypeMeta(rt: ResourceType, obj: unknown): asserts obj is KubeObject {
  if (!isObject(obj)) {
    throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(obj)}'`);
  }
  const want = apiVersionOf(rt);
  if (obj.apiVersion !== undefined && obj.apiVersion !== want) {
    throw badRequest(`the API version in the data (${jsonText(obj.apiVersion)}) does not match the expected API version (${want})`);
  }
  if (obj.kind !== undefined && obj.kind !== rt.kind) {
    throw badRequest(`the kind in the data (${jsonText(obj.kind)}) does not match the expected kind (${rt.kind})`);
  }
  obj.apiVersion = want;
  obj.kind = rt.kind;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) {
    throw invalid(rt.kind, rt.group, '', [fieldError.invalid('metadata', obj.metadata, 'must be an object')]);
  }
}

/** Reconciles the namespace in the body with the one in the path. */
export function checkNamespace(rt: ResourceType, obj: KubeObject, pathNamespace: string): void {
  const meta = obj.metadata;
  if (!rt.namespaced) {
    delete meta.namespace;
    return;
  }
  if (meta.namespace && meta.namespace !== pathNamespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  meta.namespace = pathNamespace;
}

function validateMeta(rt: ResourceType, obj: KubeObject): FieldError[] {
  const meta = obj.metadata;
  const errs = validateObjectName(meta, strategyFor(rt).nameRule);
  for (const field of ['labels', 'annotations'] as const) {
    // The client's JSON, not yet known to be the maps ObjectMeta says they are.
    const v: unknown = meta[field];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'object' || Array.isArray(v)) {
      errs.push(fieldError.invalid(`metadata.${field}`, v, 'must be a map of string keys to string values'));
      continue;
    }
    for (const [k, val] of Object.entries(v)) {
      if (typeof val !== 'string') errs.push(fieldError.invalid(`metadata.${field}`, val, `value of key "${k}" must be a string`));
      else if (field === 'labels' && val.length > 63)
        errs.push(fieldError.invalid(`metadata.labels`, val, 'must be no more than 63 characters'));
    }
  }
  if (meta.finalizers !== undefined && !Array.isArray(meta.finalizers)) {
    errs.push(fieldError.invalid('metadata.finalizers', meta.finalizers, 'must be a list of strings'));
  }
  return errs;
}

/** Go's omitempty: empty metadata lists and maps are not stored. */
function dropEmptyMetadata(meta: ObjectMeta): void {
  for (const field of ['ownerReferences', 'finalizers', 'labels', 'annotations'] as const) {
    const v: unknown = meta[field];
    if (
      v === null ||
      (Array.isArray(v) && v.length === 0) ||
      (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0)
    )
      delete meta[field];
  }
}

function validateAll(rt: ResourceType, obj: KubeObject, old?: KubeObject): void {
  const meta = obj.metadata;
  dropEmptyMetadata(meta);
  const errs = validateMeta(rt, obj);
  const kindErrs = strategyFor(rt).validate?.(obj, old) ?? [];
  errs.push(...kindErrs);
  if (errs.length > 0) throw invalid(rt.kind, rt.group, meta.name ?? meta.generateName ?? '', errs);
}

/** Fills in what the server owns on create and validates the result. Mutates `obj`. */
/**
 * Readies a new object: server-set metadata, defaults, the kind's own
 * preparation (which may read `requestor`, the user asking: a CSR records
 * it), validation.
 */
export function prepareCreate(rt: ResourceType, obj: KubeObject, now: Date, uid: string, requestor?: UserInfo): void {
  const s = strategyFor(rt);
  const meta = obj.metadata;
  meta.uid = uid;
  meta.creationTimestamp = timestamp(now);
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (s.tracksGeneration) meta.generation = 1;
  else delete meta.generation;
  if (s.initialStatus) obj.status = s.initialStatus(obj);
  s.defaults?.(obj);
  s.prepareCreate?.(obj, uid, requestor);
  validateAll(rt, obj);
}

/**
 * kube's storage refuses to create an object that carries a resourceVersion,
 * after validation and admission, with an error that is not a Status: the
 * client gets a 500 with no reason and this message. A dry run never reaches
 * that check.
 */
export function refuseSetResourceVersion(obj: KubeObject): void {
  if (obj.metadata?.resourceVersion) throw new StatusError(500, '', 'resourceVersion should not be set on objects to be created');
}

/**
 * The object an update should store, given the request's `incoming` object
 * and the stored `old` one; undefined when nothing changed. `subresource` is
 * '', 'status' or 'finalize'. Mutates `incoming`.
 */
export function prepareUpdate(
  rt: ResourceType,
  incoming: KubeObject,
  old: KubeObject,
  subresource: string,
  admit?: (obj: KubeObject, old: KubeObject) => void,
): KubeObject | undefined {
  const s = strategyFor(rt);
  const oldMeta = old.metadata;
  const name = oldMeta.name;
  const rv = incoming.metadata?.resourceVersion;
  if (rv && rv !== oldMeta.resourceVersion) throw conflict(GR(rt), name ?? '');
  const inMeta = incoming.metadata;
  if (inMeta.uid && inMeta.uid !== oldMeta.uid) {
    throw conflict(GR(rt), name ?? '', `Precondition failed: UID in precondition: ${inMeta.uid}, UID in object meta: ${oldMeta.uid}`);
  }
  let next: KubeObject;
  if (subresource === 'status') {
    // The status endpoint changes status only; everything else stays as stored.
    // `old` is this write's own parse of the stored object, so the new object
    // may share its untouched parts (and comparing them is then free); only
    // metadata, which is written below, gets its own copy.
    next = { ...old, metadata: { ...oldMeta }, status: incoming.status };
  } else if (subresource === 'finalize') {
    // A Namespace's finalize endpoint changes spec.finalizers only.
    const spec = old.spec as NamespaceSpec | undefined;
    const finalizers = (incoming.spec as NamespaceSpec | undefined)?.finalizers ?? [];
    next = { ...old, metadata: { ...oldMeta }, spec: { ...spec, finalizers } };
  } else {
    next = incoming;
    const meta = inMeta;
    meta.uid = oldMeta.uid;
    meta.creationTimestamp = oldMeta.creationTimestamp;
    meta.namespace = oldMeta.namespace;
    if (oldMeta.deletionTimestamp) {
      meta.deletionTimestamp = oldMeta.deletionTimestamp;
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    if (s.initialStatus && rt.subresources.includes('status')) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
    s.defaults?.(next);
  }
  const nextMeta = next.metadata;
  if (s.tracksGeneration) {
    nextMeta.generation = oldMeta.generation ?? 1;
    if (subresource === '' && !deepEqual(next.spec, old.spec)) nextMeta.generation++;
  }
  if (nextMeta.name !== name) {
    throw badRequest(`the name of the object (${jsonText(nextMeta.name)}) does not match the name on the URL (${jsonText(name)})`);
  }
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    const before = new Set<string>(oldMeta.finalizers ?? []);
    for (const f of nextMeta.finalizers ?? []) {
      if (!before.has(f))
        errs.push(
          fieldError.forbidden(
            'metadata.finalizers',
            `no new finalizers can be added if the object is being deleted, found new finalizers []string{"${f}"}`,
          ),
        );
    }
  }
  if (errs.length > 0) throw invalid(rt.kind, rt.group, name ?? '', errs);
  admit?.(next, old);
  if (subresource === '') s.prepareUpdate?.(next, old);
  validateAll(rt, next, old);
  next.metadata.resourceVersion = oldMeta.resourceVersion;
  if (deepEqual(next, old)) return undefined;
  return next;
}

/** True when an object being deleted has nothing left holding it. */
export function readyToDelete(rt: ResourceType, obj: KubeObject): boolean {
  const meta = obj.metadata;
  if (!meta.deletionTimestamp || (meta.finalizers?.length ?? 0) > 0) return false;
  if (rt.plural === 'namespaces') return ((obj.spec as NamespaceSpec | undefined)?.finalizers?.length ?? 0) === 0;
  // A Pod with a grace period is removed by its kubelet (a delete with grace 0).
  return !(rt.group === '' && rt.plural === 'pods') || (meta.deletionGracePeriodSeconds ?? 0) === 0;
}

/** The options of a DELETE (metav1.DeleteOptions). */
export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** What a DELETE does to `cur`: remove it now, or store it marked for deletion. */
export type DeletePlan = { action: 'delete' } | { action: 'update'; obj: KubeObject };

/** Decides a DELETE, as kube's generic registry does (BeforeDelete + finalizers + graceful pods). */
export function planDelete(rt: ResourceType, cur: KubeObject, opts: DeleteOptions, now: Date): DeletePlan {
  const curMeta = cur.metadata;
  const name = curMeta.name ?? '';
  const pre = opts.preconditions;
  if (pre?.uid && pre.uid !== curMeta.uid) {
    throw conflict(GR(rt), name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${curMeta.uid}`);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== curMeta.resourceVersion) {
    throw conflict(
      GR(rt),
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in meta: ${curMeta.resourceVersion}`,
    );
  }
  const next = structuredClone(cur);
  const meta = next.metadata;
  const finalizers = new Set<string>(meta.finalizers ?? []);
  const policy =
    opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : opts.orphanDependents === false ? 'Background' : undefined);
  if (policy === 'Orphan') {
    finalizers.add('orphan');
    finalizers.delete('foregroundDeletion');
  } else if (policy === 'Foreground') {
    finalizers.add('foregroundDeletion');
    finalizers.delete('orphan');
  } else if (policy === 'Background') {
    finalizers.delete('orphan');
    finalizers.delete('foregroundDeletion');
  }
  // Policy finalizers only matter for objects that somebody must clean up after.
  if (finalizers.size > 0 || meta.finalizers?.length) meta.finalizers = [...finalizers];
  if (meta.finalizers && meta.finalizers.length === 0) delete meta.finalizers;

  let grace = 0;
  if (rt.group === '' && rt.plural === 'pods') grace = podGracePeriod(cur as Pod, opts);
  if (rt.group === '' && rt.plural === 'namespaces') {
    next.status = { ...(next.status as NamespaceStatus | undefined), phase: 'Terminating' };
  }
  const hasFinalizers =
    (meta.finalizers?.length ?? 0) > 0 ||
    (rt.plural === 'namespaces' && rt.group === '' && ((next.spec as NamespaceSpec | undefined)?.finalizers?.length ?? 0) > 0);
  if (!hasFinalizers && grace === 0) return { action: 'delete' };
  if (meta.deletionTimestamp) {
    // Already terminating: a delete may only shorten the grace period.
    const current = meta.deletionGracePeriodSeconds ?? 0;
    if (grace < current) {
      meta.deletionGracePeriodSeconds = grace;
      meta.deletionTimestamp = timestamp(new Date(now.getTime() + grace * 1000));
    }
    if (!hasFinalizers && meta.deletionGracePeriodSeconds === 0) return { action: 'delete' };
  } else {
    meta.deletionTimestamp = timestamp(new Date(now.getTime() + grace * 1000));
    meta.deletionGracePeriodSeconds = grace;
  }
  if (s(rt).tracksGeneration && !deepEqual(meta.deletionTimestamp, curMeta.deletionTimestamp)) {
    meta.generation = (meta.generation ?? 1) + 1;
  }
  return { action: 'update', obj: next };
}

const s = strategyFor;

function podGracePeriod(pod: Pod, opts: DeleteOptions): number {
  // An unscheduled or finished Pod has no kubelet to wait for.
  if (!pod.spec?.nodeName) return 0;
  const phase = pod.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') return 0;
  let grace = opts.gracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
  if (grace < 0) grace = 1;
  return grace;
}
