// The objects of ksim's history API (history.ksim.io/v1alpha1), served by
// the apiserver and read by `ksim history|diff|blame|trace` and the web UI.
//
// Paths, each authorized by RBAC as a request for that path (group
// history.ksim.io; the resource is the object's resource and group joined as
// "deployments.apps", or just "pods" for the core group; a subresource names
// the view):
//   GET /apis/history.ksim.io/v1alpha1[/namespaces/NS]/RESOURCE[.GROUP]/NAME        RevisionList (changes=true: with each one's changed fields)
//   GET .../NAME/object?revision=R                                                 the object as it was at R
//   GET .../NAME/diff?from=R1&to=R2                                                RevisionDiff
//   GET .../NAME/blame[?revision=R]                                                FieldBlame
//   GET .../NAME/trace[?revision=R]                                                Trace
//   GET /apis/history.ksim.io/v1alpha1/changes?from=A[&to=B][&limit&continue][&timeoutSeconds=S]   ChangeList
// `changes` with timeoutSeconds waits (up to S seconds) until a revision
// after A exists: a live reader polls with from = the last revision it saw.
import type { WriteCause } from './write-cause.ts';

export const HISTORY_GROUP = 'history.ksim.io';
export const HISTORY_VERSION = 'v1alpha1';
export const HISTORY_API_VERSION = `${HISTORY_GROUP}/${HISTORY_VERSION}`;

/** Who made one write. */
export interface Writer {
  user: string;
  groups?: string[];
  userAgent?: string;
  /** create, update, patch, delete (the request's verb). */
  verb: string;
  subresource?: string;
  fieldManager?: string;
  cause?: WriteCause;
  /** The audit ID of the request that made the write (its Audit-Id header; the trace at .../requests/ID while kept). */
  requestID?: string;
}

/** Which object. */
export interface ObjectRef {
  /** "" for the core group. */
  group: string;
  /** The plural resource ("deployments"). */
  resource: string;
  kind?: string;
  namespace?: string;
  name: string;
}

/** One revision of one object. */
export interface Revision {
  /** The resourceVersion this write produced. */
  revision: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** When the apiserver stored it (RFC 3339 with milliseconds). */
  time: string;
  writer?: Writer;
  /** The fields this revision changed from the one before (asked for with changes=true). */
  changed?: string[];
}

export interface RevisionList {
  kind: 'RevisionList';
  apiVersion: typeof HISTORY_API_VERSION;
  metadata: { continue?: string };
  object: ObjectRef;
  items: Revision[];
}

/** One changed field between two revisions. `path` is kubectl-style: `.spec.template.spec.containers[0].image`. */
export interface FieldChange {
  path: string;
  op: 'add' | 'remove' | 'replace';
  old?: unknown;
  new?: unknown;
}

export interface RevisionDiff {
  kind: 'RevisionDiff';
  apiVersion: typeof HISTORY_API_VERSION;
  object: ObjectRef;
  from: string;
  to: string;
  changes: FieldChange[];
}

/** One leaf field of an object, with the revision that last set it and who made that write. */
export interface BlamedField {
  path: string;
  value: unknown;
  revision: string;
  time: string;
  writer?: Writer;
  /** The field manager that owns the field in managedFields, when one does. */
  manager?: string;
}

export interface FieldBlame {
  kind: 'FieldBlame';
  apiVersion: typeof HISTORY_API_VERSION;
  object: ObjectRef;
  revision: string;
  fields: BlamedField[];
}

/** One write in a causal chain: what it wrote, who, and the writes it caused (effects) or that caused it (causes). */
export interface TraceNode {
  revision: string;
  type: Revision['type'];
  time: string;
  object: ObjectRef;
  writer?: Writer;
  children: TraceNode[];
}

export interface Trace {
  kind: 'Trace';
  apiVersion: typeof HISTORY_API_VERSION;
  /** The revision traced, with the writes it caused as children (recursively). */
  root: TraceNode;
  /** The chain of writes that led to the root, nearest first (each one's trigger). */
  causes: TraceNode[];
}

/** One write anywhere in the cluster. */
export interface Change extends Revision {
  object: ObjectRef;
  /**
   * When the apiserver committed it (RFC 3339 with milliseconds): only on the
   * changes a watch hands over as they are committed (the kept history holds
   * `time`, when the write was sequenced, alone). The two differ by the wait
   * for the durable write.
   */
  committed?: string;
  /** The object after the write (for DELETED, its last state), when asked for with objects=true. */
  body?: unknown;
}

export interface ChangeList {
  kind: 'ChangeList';
  apiVersion: typeof HISTORY_API_VERSION;
  /** `resourceVersion`: the newest revision the apiserver had committed when it answered. */
  metadata: { continue?: string; resourceVersion: string };
  items: Change[];
}
