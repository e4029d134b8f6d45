// Why a component made a write: the controller (or scheduler plugin, or
// kubelet stage) that made it, the work-queue key it was reconciling, and the
// resourceVersions of the watch events that put that key in the queue. A
// component's client sends it with every write as the X-Ksim-Cause header
// (compact JSON, ASCII); the apiserver records it with the revision it
// writes, so a trace can follow a change from one process to the next.

/** The header a write's cause travels in. */
export const CAUSE_HEADER = 'x-ksim-cause';

/** At most this many trigger resourceVersions are kept per write. */
export const MAX_TRIGGERS = 8;
const MAX_HEADER_BYTES = 1024;
const MAX_TEXT = 200;

/** See the file comment. */
export interface WriteCause {
  /** The controller, scheduler or kubelet stage that wrote ("deployment", "replicaset", "scheduler", "kubelet"). */
  controller: string;
  /** The work-queue key being reconciled ("default/web"). */
  key?: string;
  /** The resourceVersions of the watch events that queued `key` (newest last). */
  triggers?: string[];
  /** What the writer decided, in a few words (a scheduler's choice, a kubelet's stage). */
  detail?: string;
}

const REVISION = /^[1-9]\d{0,15}$/;

/** JSON with non-ASCII escaped, so the value is always a valid header. */
const asciiJson = (c: WriteCause) =>
  JSON.stringify(c).replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * The header value for `cause`, always one decodeCause accepts (a header the
 * apiserver refuses fails the write with a 400): texts are cut to their
 * limits, triggers that are not revisions are left out and the newest
 * MAX_TRIGGERS kept, and a value too long once escaped loses its detail,
 * then its key. Undefined when even that is too long, or there is no controller.
 */
export function encodeCause(cause: WriteCause): string | undefined {
  if (!cause.controller) return undefined;
  const c: WriteCause = { controller: cause.controller.slice(0, MAX_TEXT) };
  if (cause.key) c.key = cause.key.slice(0, MAX_TEXT);
  const triggers = cause.triggers?.filter((rv) => REVISION.test(rv)).slice(-MAX_TRIGGERS);
  if (triggers?.length) c.triggers = triggers;
  if (cause.detail) c.detail = cause.detail.slice(0, MAX_TEXT);
  let value = asciiJson(c);
  if (value.length > MAX_HEADER_BYTES) value = asciiJson({ ...c, detail: undefined });
  if (value.length > MAX_HEADER_BYTES) value = asciiJson({ ...c, detail: undefined, key: undefined });
  return value.length > MAX_HEADER_BYTES ? undefined : value;
}

/** Thrown for a header that is not a cause: the message names what is wrong. */
export class InvalidCause extends Error {}

const isText = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_TEXT;

/** The cause a header carries; throws InvalidCause (with a message naming the field) for anything else. */
export function decodeCause(header: string): WriteCause {
  if (header.length > MAX_HEADER_BYTES) throw new InvalidCause(`X-Ksim-Cause: longer than ${MAX_HEADER_BYTES} bytes`);
  let v: unknown;
  try {
    v = JSON.parse(header);
  } catch {
    throw new InvalidCause('X-Ksim-Cause: not a JSON object');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidCause('X-Ksim-Cause: not a JSON object');
  const o = v as Record<string, unknown>;
  if (!isText(o.controller) || o.controller === '')
    throw new InvalidCause(`X-Ksim-Cause: controller: must be a string of 1-${MAX_TEXT} characters`);
  const cause: WriteCause = { controller: o.controller };
  if (o.key !== undefined) {
    if (!isText(o.key)) throw new InvalidCause(`X-Ksim-Cause: key: must be a string of at most ${MAX_TEXT} characters`);
    cause.key = o.key;
  }
  if (o.triggers !== undefined) {
    const t = o.triggers;
    if (!Array.isArray(t) || t.length > MAX_TRIGGERS || !t.every((rv) => typeof rv === 'string' && REVISION.test(rv)))
      throw new InvalidCause(`X-Ksim-Cause: triggers: must be at most ${MAX_TRIGGERS} resourceVersions`);
    cause.triggers = t as string[];
  }
  if (o.detail !== undefined) {
    if (!isText(o.detail)) throw new InvalidCause(`X-Ksim-Cause: detail: must be a string of at most ${MAX_TEXT} characters`);
    cause.detail = o.detail;
  }
  return cause;
}
