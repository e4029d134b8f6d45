// Reads a create or update body into an object the way kube-apiserver
// decodes into Go structs: content type, then the decode-time checks
// (types, unknown and duplicate fields per ?fieldValidation=Strict|Warn|Ignore).
import { badRequest, tooLarge } from '../../shared/api/errors.ts';
import { MAX_BODY_BYTES } from '../http/body.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { checkTypeMeta } from '../registry/lifecycle.ts';
import type { StoredObject } from '../storage/types.ts';
import { hasKubeProtobufMagic, KUBE_PROTOBUF_CONTENT_TYPE, KUBE_PROTOBUF_MAGIC } from '../../shared/api/protobuf/index.ts';
import { decodeBody, jsonSyntaxError, mediaType } from '../http/codec.ts';
import { isStackExhausted, jsonNestingError } from '../http/nesting.ts';
import { decodeYaml, YamlDecodeError } from '../http/yaml-decode.ts';
import { decodeChecks, fieldValidationError, fieldValidationMode, unrecognizedError } from '../validation/index.ts';
import type { ApiRequest } from './context.ts';

/** The decoded object and the warnings to send back. */
export interface DecodedObject {
  /** The body as decoding left it: JSON of any shape until checkTypeMeta (or the subresource's own checks) accepts it. */
  obj: unknown;
  warnings: string[];
}

/** `body` as an object of `rt`: checkTypeMeta refuses anything else, and fills in apiVersion, kind and metadata. */
export function asObjectOf(rt: ResourceType, body: unknown): StoredObject {
  checkTypeMeta(rt, body);
  return body;
}

/** The ?fieldValidation mode of a request (400 for an unknown value). */
export function validationMode(query: URLSearchParams) {
  return validationModeOf(query.get('fieldValidation'));
}

/** The mode a ?fieldValidation value names (400 for an unknown value). */
function validationModeOf(value: string | null) {
  const err = fieldValidationError(value);
  if (err) throw badRequest(err.message);
  return fieldValidationMode(value);
}

/** Decodes and checks the request body as an object of `rt` (or of `kind` for subresource bodies). */
export async function decodeObject(
  r: ApiRequest,
  rt: ResourceType,
  kind = { group: rt.group, version: rt.version, kind: rt.kind },
): Promise<DecodedObject> {
  const decoded = decodeBytes(await r.body(), r.contentType, r.query.get('fieldValidation'), kind);
  // As kube's handlers log the request object once decoded: the audit event names it (and records it at Request level).
  r.audit?.setRequestObject(decoded.obj);
  return decoded;
}

/** Decodes and checks `body` (sent as `contentType`, checked as ?fieldValidation=`fieldValidation`) as an object of `kind`. */
export function decodeBytes(
  body: Buffer,
  contentType: string | undefined,
  fieldValidation: string | null,
  kind: { group: string; version: string; kind: string },
): DecodedObject {
  const type = mediaType(contentType) || 'application/json';
  let text: string | undefined;
  let obj: unknown;
  if (type === 'application/json') {
    // A JSON body is turned into text once: the parse and the decode checks both read it.
    text = body.toString('utf8');
    // kube reads apiVersion and kind first, with encoding/json: its syntax errors (and its 10,000 levels) come first.
    try {
      obj = JSON.parse(text);
    } catch (err) {
      throw unrecognizedError(kind.kind, `couldn't get version/kind; json parse error: ${jsonSyntaxError(body, err)}`, body);
    }
    const deep = jsonNestingError(text);
    if (deep) throw unrecognizedError(kind.kind, `couldn't get version/kind; json parse error: ${deep}`, body);
  } else if (type === 'application/yaml') {
    try {
      obj = decodeYaml(body.toString('utf8'));
    } catch (err) {
      // kube's YAML serializer fails before it knows the kind: transformDecodeError words it.
      if (err instanceof YamlDecodeError) throw unrecognizedError(kind.kind, err.message, body);
      throw err;
    }
  } else {
    if (type === KUBE_PROTOBUF_CONTENT_TYPE) {
      // kube's protobuf serializer checks the envelope before it reads anything.
      const why =
        body.length === 0
          ? 'empty data'
          : !hasKubeProtobufMagic(body)
            ? `provided data does not appear to be a protobuf message, expected prefix [${[...KUBE_PROTOBUF_MAGIC].join(' ')}]`
            : body.length === KUBE_PROTOBUF_MAGIC.length
              ? 'empty body'
              : undefined;
      if (why) throw unrecognizedError(kind.kind, why, body);
    }
    obj = decodeBody(body, contentType);
  }
  const mode = validationModeOf(fieldValidation);
  const { object, warnings } = withinStack(kind, () => decodeChecks(kind, text, obj, mode));
  return { obj: object, warnings };
}

/**
 * Runs a recursive check of a decoded body. Bodies within kube's 10,000
 * levels can still nest deeper than V8's stack lets the walks go: that is a
 * 400 for the request, never a 500.
 */
function withinStack<T>(kind: { kind: string }, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isStackExhausted(err)) throw badRequest(`the object provided (of type ${kind.kind}) is nested too deeply to be decoded`);
    throw err;
  }
}

/** Checks an object produced by a patch (no raw text: duplicates cannot occur); it is pruned in place and comes back. */
export function checkPatched<T extends object>(
  r: ApiRequest,
  rt: ResourceType,
  obj: T,
  kind = { group: rt.group, version: rt.version, kind: rt.kind },
): { obj: T; warnings: string[] } {
  const mode = validationMode(r.query);
  const { warnings } = withinStack(kind, () => decodeChecks(kind, undefined, obj, mode));
  return { obj, warnings };
}

/**
 * Refuses a patch result larger than kube's request limit (3 MiB): a patch
 * can grow an object past what any request could have sent (JSON-patch
 * copies, merges into a large object), and again on the next patch. kube
 * finds out from etcd's own limit when it stores the object; ksim's store
 * has none, so the request limit stands in for it, at the same point.
 */
export function checkPatchedSize(obj: unknown): void {
  const json = JSON.stringify(obj);
  // UTF-8 is at most three bytes per UTF-16 unit: only near the limit is it worth counting.
  if (json.length * 3 > MAX_BODY_BYTES && Buffer.byteLength(json) > MAX_BODY_BYTES) throw tooLarge(MAX_BODY_BYTES);
}
