// The one catalogue of API errors: every failure that leaves the apiserver is a
// metav1.Status built here, and the client turns the same Status back into a
// typed StatusError, so both sides agree on codes, reasons and messages.
import { goQuote } from '../patch/go-format.ts';

/** A metav1.StatusCause: one reason a request failed, usually naming a field. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** The details block of a metav1.Status. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A metav1.Status object as it travels on the wire. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string };
  status: 'Failure' | 'Success';
  message: string;
  /** Absent when kube's reason is StatusReasonUnknown (''), as its JSON omits it. */
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** An error that carries the metav1.Status the client should see. */
export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details?: StatusDetails;

  constructor(code: number, reason: string, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  /** The Status body for this error. */
  toStatus(): Status {
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      code: this.code,
    };
    if (this.reason) status.reason = this.reason;
    if (this.details) status.details = this.details;
    return status;
  }

  /** Rebuilds a StatusError from a Status body received by a client. */
  static fromStatus(status: Partial<Status>, httpCode: number): StatusError {
    return new StatusError(
      status.code ?? httpCode,
      status.reason ?? reasonForCode(httpCode),
      status.message ?? `the server responded with status ${httpCode}`,
      status.details,
    );
  }
}

/** The group/resource pair kube names in its messages, e.g. "deployments.apps". */
export interface GroupResource {
  group: string;
  resource: string;
}

/** Formats a GroupResource the way kube prints it in messages. */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 406:
      return 'NotAcceptable';
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
    case 413:
      return 'RequestEntityTooLarge';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 504:
      return 'Timeout';
    default:
      return code >= 500 ? 'InternalError' : 'Unknown';
  }
}

/** 404: `pods "web" not found`. */
export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${qualifiedResource(gr)} ${goQuote(name)} not found`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

/** 409: `pods "web" already exists`. */
export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${qualifiedResource(gr)} ${goQuote(name)} already exists`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

/** The message kube sends when a write carries a stale resourceVersion. */
export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

/** 409: `Operation cannot be fulfilled on pods "web": <why>`. */
export function conflict(gr: GroupResource, name: string, why: string = OPTIMISTIC_LOCK_MESSAGE): StatusError {
  return new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} ${goQuote(name)}: ${why}`, {
    name,
    group: gr.group || undefined,
    kind: gr.resource,
  });
}

/** One field error of a 422, as kube's field.Error prints it. */
export interface FieldError {
  /** The cause type: FieldValueRequired, FieldValueInvalid, FieldValueNotSupported, ... */
  type:
    | 'FieldValueRequired'
    | 'FieldValueInvalid'
    | 'FieldValueNotSupported'
    | 'FieldValueForbidden'
    | 'FieldValueDuplicate'
    | 'FieldValueTooLong';
  field: string;
  /** The full message, already formatted as kube formats it. */
  message: string;
}

/** Builders for field errors with kube's wording. */
export const fieldError = {
  required(field: string, detail = ''): FieldError {
    return { type: 'FieldValueRequired', field, message: `${field}: Required value${detail ? ': ' + detail : ''}` };
  },
  invalid(field: string, value: unknown, detail: string): FieldError {
    return { type: 'FieldValueInvalid', field, message: `${field}: Invalid value: ${formatValue(value)}: ${detail}` };
  },
  notSupported(field: string, value: unknown, supported: string[]): FieldError {
    const list = supported.map((s) => `"${s}"`).join(', ');
    return {
      type: 'FieldValueNotSupported',
      field,
      message: `${field}: Unsupported value: ${formatValue(value)}: supported values: ${list}`,
    };
  },
  forbidden(field: string, detail: string): FieldError {
    return { type: 'FieldValueForbidden', field, message: `${field}: Forbidden: ${detail}` };
  },
  duplicate(field: string, value: unknown): FieldError {
    return { type: 'FieldValueDuplicate', field, message: `${field}: Duplicate value: ${formatValue(value)}` };
  },
};

function formatValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  // Decoded JSON holds nothing else.
  return typeof value;
}

/** 422: `Deployment.apps "web" is invalid: [spec.replicas: Invalid value: -1: ...]`. */
export function invalid(kind: string, group: string, name: string, errors: FieldError[]): StatusError {
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  const joined = errors.length === 1 ? errors[0].message : `[${errors.map((e) => e.message).join(', ')}]`;
  return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${joined}`, {
    name,
    group: group || undefined,
    kind,
    causes: errors.map((e) => ({ reason: e.type, message: e.message.slice(e.field.length + 2), field: e.field })),
  });
}

/** 400 with reason BadRequest. */
export function badRequest(message: string, causes?: StatusCause[]): StatusError {
  return new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined);
}

/** 405: the verb is not served for this resource. */
export function methodNotAllowed(verb: string, gr: GroupResource): StatusError {
  return new StatusError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`, {
    kind: gr.resource,
    group: gr.group || undefined,
    causes: [{ reason: 'MethodNotAllowed', message: `${verb} is not supported` }],
  });
}

/** 406: no representation the client accepts. */
export function notAcceptable(accepted: string[]): StatusError {
  return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

/** 410: the requested resourceVersion has been compacted away. */
export function gone(message = 'too old resource version'): StatusError {
  return new StatusError(410, 'Expired', message);
}

/** 413: the request body is over the limit. */
export function tooLarge(limitBytes: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limitBytes}`);
}

/** 415: a content type the server cannot decode. */
export function unsupportedMediaType(contentType: string, supported: string[]): StatusError {
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')}`,
    { causes: [{ reason: 'UnexpectedServerResponse', message: contentType }] },
  );
}

/** 500 without leaking internals. */
export function internalError(message = 'an error on the server has prevented the request from succeeding'): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`);
}

/** 504: used when a resourceVersion from the future never arrives. */
export function timeout(message: string, causes?: StatusCause[]): StatusError {
  return new StatusError(504, 'Timeout', message, causes ? { causes, retryAfterSeconds: 1 } : { retryAfterSeconds: 1 });
}

/** 403: the namespace is being deleted, or authorization denied. */
export function forbidden(message: string, details?: StatusDetails): StatusError {
  return new StatusError(403, 'Forbidden', message, details);
}
