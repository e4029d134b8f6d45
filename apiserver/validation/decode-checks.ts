// The checks kube-apiserver makes while it decodes a create or update body,
// before any registry validation: field validation as the fieldValidation
// query parameter asks (unknown and duplicate fields: Strict fails, Warn
// warns, Ignore says nothing), and the JSON decoder's own type and format
// errors, which are 400 BadRequest whatever the mode. Unknown fields are
// dropped from the object in every mode, as decoding into Go structs does.
import { badRequest, fieldError, type FieldError, type StatusError } from '../../shared/api/errors.ts';
import { typeForKind, type GroupVersionKind } from '../../shared/api/schema/index.ts';
import { nodeForType, type StructNode } from './decode-schema.ts';
import { SyntaxProblem, scanBody, scanTypeMeta, type ScanResult } from './decode-scan.ts';
import { countMembers, walkStruct } from './decode-fast.ts';

/** The values of the fieldValidation query parameter. */
export type FieldValidationMode = 'Strict' | 'Warn' | 'Ignore';

/** What decoding let through: the pruned object, and warnings for Warn mode. */
export interface DecodeChecksResult {
  /** The object with unknown fields removed and nulls resolved (the `obj` passed in, changed in place). */
  object: unknown;
  /** Warning texts (`unknown field "spec.foo"`), one Warning header each; empty unless mode is Warn. */
  warnings: string[];
}

const SUPPORTED_MODES = ['', 'Ignore', 'Strict', 'Warn'];

/**
 * The field error kube's ValidateFieldValidation reports for a bad
 * fieldValidation value (kube puts it in a 422 on CreateOptions.meta.k8s.io,
 * UpdateOptions.meta.k8s.io or PatchOptions.meta.k8s.io), or undefined.
 */
export function fieldValidationError(value: string | null | undefined): FieldError | undefined {
  if (value == null || SUPPORTED_MODES.includes(value)) return undefined;
  return fieldError.notSupported('fieldValidation', value, SUPPORTED_MODES);
}

/** The mode a fieldValidation value selects: absent or empty is Warn, kube's server default. */
export function fieldValidationMode(value: string | null | undefined): FieldValidationMode {
  return value === 'Strict' || value === 'Ignore' ? value : 'Warn';
}

/** Whether `text` holds a character of Go's unicode.IsControl: C0 controls, DEL and the C1 controls. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/**
 * The Warning header value kube's NewWarningHeader makes for a warning text
 * (`299 - "..."`, only `"` and `\` escaped, everything else as it is), or
 * undefined for a text it refuses (one with a control character): kube's
 * warning recorder then leaves that warning out.
 */
export function warningHeaderValue(text: string): string | undefined {
  if (hasControl(text)) return undefined;
  return `299 - "${text.replace(/["\\]/g, '\\$&')}"`;
}

/** kube's summarizeData: the start of a body for "the object provided is unrecognized" errors. */
function summarizeData(data: Buffer, maxLength: number): string {
  if (data.length === 0) return '<empty>';
  if (data[0] === 0x7b) return data.length > maxLength ? data.subarray(0, maxLength).toString('utf8') + ' ...' : data.toString('utf8');
  return data.length > maxLength ? data.subarray(0, maxLength).toString('hex') + ' ...' : data.toString('hex');
}

/**
 * kube's transformDecodeError when the decoder could not even tell the kind:
 * `the object provided is unrecognized (must be of type ConfigMap): <why> (<start of the body>)`.
 */
export function unrecognizedError(kind: string, why: string, body: Buffer): StatusError {
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): ${why} (${summarizeData(body, 30)})`);
}

/**
 * Whether the decode-fast walk vouches that scanning would report nothing and
 * change nothing: the parsed object fits the schema, and (for a JSON body) its
 * text has exactly the members the parse kept (no duplicates) and only number
 * spellings that round-trip.
 */
function isCleanStruct(root: StructNode, raw: string | Buffer | undefined, obj: unknown): obj is Record<string, unknown> {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return false;
  const walked = walkStruct(root, obj as Record<string, unknown>);
  if (walked < 0) return false;
  if (raw === undefined) return true;
  return countMembers(typeof raw === 'string' ? raw : raw.toString('utf8')) === walked;
}

/** schema.ParseGroupVersion. */
function parseGroupVersion(gv: string): { group: string; version: string } | undefined {
  if (gv === '' || gv === '/') return { group: '', version: '' };
  const slashes = gv.split('/').length - 1;
  if (slashes === 0) return { group: '', version: gv };
  if (slashes === 1) {
    const i = gv.indexOf('/');
    return { group: gv.slice(0, i), version: gv.slice(i + 1) };
  }
  return undefined;
}

/**
 * Runs kube's decoding-time checks on a JSON body for `kind` (the kind the
 * request addresses) and returns the object as kube would store it, or throws
 * the 400 StatusError kube returns:
 *
 * - `Deployment in version "v1" cannot be handled as a Deployment: json: cannot
 *   unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`
 *   (a type or format error, in every mode);
 * - `... cannot be handled as a Deployment: strict decoding error: unknown field
 *   "spec.foo", duplicate field "spec.replicas"` (Strict only; Warn returns the
 *   same texts as warnings, Ignore drops them).
 *
 * `raw` is the body text (duplicate keys and number spellings exist only
 * there); pass undefined for bodies that were not JSON (YAML), and the
 * object's own JSON is scanned instead. `obj` is the parsed body; it is
 * pruned in place.
 */
export function decodeChecks(
  kind: GroupVersionKind,
  raw: string | Buffer | undefined,
  obj: unknown,
  mode: FieldValidationMode,
): DecodeChecksResult {
  const type = typeForKind(kind.group, kind.version, kind.kind);
  const root = type && nodeForType(type);
  if (root?.kind === 'struct' && isCleanStruct(root, raw, obj)) {
    const typeMeta = { apiVersion: (obj.apiVersion as string | undefined) ?? '', kind: (obj.kind as string | undefined) ?? '' };
    const gv = parseGroupVersion(typeMeta.apiVersion);
    if (gv) return { object: obj, warnings: [] };
    // A bad apiVersion: the full path below words the error.
  }
  const fromRaw = raw !== undefined;
  const text = raw === undefined ? (JSON.stringify(obj) ?? 'null') : typeof raw === 'string' ? raw : raw.toString('utf8');
  const bytes = (): Buffer => (typeof raw === 'object' ? raw : Buffer.from(text, 'utf8'));
  const unrecognized = (why: string) => unrecognizedError(kind.kind, why, bytes());

  let result: ScanResult;
  try {
    // apiVersion and kind are read before decoding; the scan finds them on its way unless decoding stopped early.
    result = root?.kind === 'struct' ? scanBody(text, root, obj, mode !== 'Ignore') : { strict: [] };
    result.typeMeta ??= scanTypeMeta(text);
  } catch (err) {
    if (!(err instanceof SyntaxProblem) || !fromRaw) throw err;
    return decodeChecks(kind, undefined, obj, mode);
  }
  const typeMeta = result.typeMeta;
  if (typeMeta.error) throw unrecognized(`couldn't get version/kind; json parse error: ${typeMeta.error}`);
  const gv = parseGroupVersion(typeMeta.apiVersion);
  if (!gv) throw unrecognized(`unexpected GroupVersion string: ${typeMeta.apiVersion}`);
  if (!root) return { object: obj, warnings: [] };

  // The kind and version kube names are the body's, defaulted from the request (gvkWithDefaults).
  const actualKind = typeMeta.kind || kind.kind;
  let actualVersion = gv.version;
  if (!actualVersion && (gv.group === '' || gv.group === kind.group)) actualVersion = kind.version;
  const prefix = `${actualKind} in version "${actualVersion}" cannot be handled as a ${kind.kind}: `;

  if (result.error) throw badRequest(prefix + result.error);
  if (result.strict.length && mode === 'Strict') throw badRequest(`${prefix}strict decoding error: ${result.strict.join(', ')}`);
  return { object: obj ?? {}, warnings: mode === 'Warn' ? result.strict : [] };
}
