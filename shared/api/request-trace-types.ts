// The request trace's objects (history.ksim.io/v1alpha1 RequestTrace): one
// request's path through the apiserver, step by step, as the request view
// of the web UI and `GET .../requests/AUDITID` show it.

/** The stages a request passes, in kube-apiserver's handler-chain order. */
export type TraceStage =
  'authentication' | 'impersonation' | 'authorization' | 'admission' | 'validation' | 'storage' | 'watch' | 'response';

/** One step of a request's path. */
export interface TraceStep {
  stage: TraceStage;
  /** allow/deny (authorization), allowed/denied (admission), ok/error, or the response's status code. */
  outcome: string;
  /** What the step saw: the user and authenticator, the authorizer's reason, a plugin's name and message, the revision. */
  detail?: string;
  /** Admission only: mutating or validating, and the plugin's name. */
  phase?: 'mutating' | 'validating' | 'delete';
  plugin?: string;
  /** Admission only: true when a mutating plugin changed the object. */
  changed?: boolean;
  /** Storage only: the revision written. */
  revision?: string;
  /** Watch only: how many watches the write's event was handed to (the apiserver's own informers among them). */
  watchers?: number;
  /** How long the step took (absent when the step is inferred, not timed). */
  ms?: number;
}

/** Where steps are added: a request's trace, or a create worker's list of what its admission did. */
export interface TraceSink {
  step(step: TraceStep): void;
}

/** One request's trace. */
export interface RequestTrace {
  kind: 'RequestTrace';
  apiVersion: string;
  /** The audit ID (the Audit-Id response header). */
  auditID: string;
  /** When the apiserver received the request (RFC 3339 with milliseconds). */
  time: string;
  verb: string;
  path: string;
  resource?: string;
  apiGroup?: string;
  namespace?: string;
  name?: string;
  subresource?: string;
  userAgent?: string;
  /** The user the request acted as (after impersonation). */
  user?: string;
  steps: TraceStep[];
  /** The status code answered (absent while the request is in flight). */
  code?: number;
  /** Milliseconds from receipt to the answer. */
  ms?: number;
}

/** The recent requests, newest first. */
export interface RequestTraceList {
  kind: 'RequestTraceList';
  apiVersion: string;
  metadata: { capacity: number };
  items: RequestTrace[];
}
