// The update path shared by PUT and PATCH: turn the client's new version of
// an object (or of its status, finalize or scale view) into the stored
// object, inside the store's transaction.
import { conflict, notFound } from '../../shared/api/errors.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { checkTypeMeta, prepareCreate, prepareUpdate, readyToDelete } from '../registry/lifecycle.ts';
import { applyScale, toScale } from '../registry/scale.ts';
import { strategyFor } from '../registry/strategy.ts';
import type { AdmissionAttributes, AdmissionChain, Operation } from '../admission/types.ts';
import type { ApiRequest } from './context.ts';
import { requestIDOf } from './write-record.ts';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { Mutate, StoredObject } from '../storage/types.ts';
import { MANAGED_FIELDS_ENABLED, trackUpdate } from '../fieldmanager/index.ts';
import { deepEqual } from '../../shared/util/deep-equal.ts';

/**
 * What the request supplies: the client's new version of the object (with
 * its metadata: checked by checkTypeMeta, or by the patch handler), or of
 * its Scale view for the scale subresource. A PUT ignores `current`; a patch
 * calls it for its own copy of the current object (or of its Scale view) to
 * patch, so that a PUT pays for no copy.
 */
export type Incoming = (current: () => StoredObject | Scale | undefined) => unknown;

/** Everything the transaction needs besides the store. */
export interface WriteRequest {
  rt: ResourceType;
  name: string;
  subresource: string;
  incoming: Incoming;
  now: Date;
  newUid: () => string;
  /** Called when the object does not exist and the strategy allows create-on-update. */
  allowCreate: boolean;
  admission?: AdmissionChain;
  /** The request as admission sees it (its operation is set here: CREATE when the update creates). */
  attrs?: AdmissionAttributes;
  /** The field manager the write's managedFields entry names (see fieldmanager/); none: not tracked. */
  manager?: string;
}

/**
 * The admission attributes of request `r`; warnings the plugins raise are
 * pushed to `warnings`, annotations (PodSecurity's) go to the request's
 * audit record. `record` (each plugin's verdict) is left for the request
 * trace to set.
 */
export function admissionAttributes(r: ApiRequest, operation: Operation, dryRun: boolean, warnings: string[]): AdmissionAttributes {
  return {
    operation,
    user: r.user,
    namespace: r.info.namespace,
    name: r.info.name,
    subresource: r.info.subresource,
    dryRun,
    requestID: requestIDOf(r),
    warn: (m) => {
      if (!warnings.includes(m)) warnings.push(m);
    },
    annotate: r.audit ? (key, value) => r.audit!.annotate(key, value) : undefined,
    // Which plugins changed or refused the request, for the audit log (ksim's own annotation keys: kube records no such verdicts).
    record: r.audit
      ? (plugin, verdict, detail) => r.audit!.annotate(`admission.ksim.io/${plugin}`, detail ? `${verdict}: ${detail}` : verdict)
      : undefined,
  };
}

/** The store mutation for an update or patch: the object to store, null to delete, undefined for no change. */
export function updateMutation(w: WriteRequest): Mutate {
  const gr = { group: w.rt.group, resource: w.rt.plural };
  return (cur) => {
    if (!cur) {
      if (!w.allowCreate || w.subresource || !strategyFor(w.rt).allowCreateOnUpdate) throw notFound(gr, w.name);
      const obj = w.incoming(() => undefined) as StoredObject;
      prepareCreate(w.rt, obj, w.now, w.newUid(), w.attrs?.user);
      // As a create: managedFields before mutating admission (what admission adds is no manager's).
      if (w.manager !== undefined) trackUpdate({ rt: w.rt, manager: w.manager, subresource: '', now: w.now }, undefined, obj);
      w.admission?.admit('CREATE', w.rt, obj, undefined, 'all', w.attrs && { ...w.attrs, operation: 'CREATE' });
      return obj;
    }
    let incoming: StoredObject;
    let sub = w.subresource;
    if (sub === 'scale') {
      // Decoded and checked as an autoscaling/v1 Scale.
      const scale = w.incoming(() => toScale(cur)) as Scale | null | undefined;
      const rv = scale?.metadata?.resourceVersion;
      if (rv && rv !== cur.metadata.resourceVersion) throw conflict(gr, w.name);
      incoming = applyScale(cur, scale);
      sub = '';
    } else {
      incoming = w.incoming(() => structuredClone(cur)) as StoredObject;
      if (sub === '') checkTypeMeta(w.rt, incoming);
    }
    // managedFields the client sent are read by trackUpdate; the rest of the update compares with the stored ones.
    const track = w.manager !== undefined && MANAGED_FIELDS_ENABLED;
    const sent: unknown = track ? incoming.metadata.managedFields : undefined;
    const sentChanges = track && sub === '' && sent !== undefined && !deepEqual(sent, cur.metadata.managedFields);
    if (track) incoming.metadata.managedFields = cur.metadata.managedFields;
    let next = prepareUpdate(
      w.rt,
      incoming,
      cur,
      sub,
      w.admission ? (obj, old) => w.admission!.admit('UPDATE', w.rt, obj, old, 'all', w.attrs) : undefined,
    );
    if (track && (next || sentChanges)) {
      const changed = next !== undefined;
      next ??= structuredClone(cur);
      next.metadata.managedFields = sentChanges ? (sent as typeof cur.metadata.managedFields) : cur.metadata.managedFields;
      trackUpdate({ rt: w.rt, manager: w.manager!, subresource: w.subresource, now: w.now }, cur, next);
      if (!changed && deepEqual(next, cur)) next = undefined;
    }
    if (next && readyToDelete(w.rt, next)) return null;
    return next;
  };
}
