// Reads a create or update body into an object the way kube-apiserver
// decodes into Go structs: content type, then the decode-time checks
// (types, unknown and duplicate fields per ?fieldValidation=Strict|Warn|Ignore).
import { badRequest } from '../../shared/api/errors.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { decodeBody, mediaType, parseJson } from '../http/codec.ts';
import { decodeChecks, fieldValidationError, fieldValidationMode } from '../validation/index.ts';
import type { ApiRequest } from './context.ts';

/** The decoded object and the warnings to send back. */
export interface DecodedObject {
  obj: any;
  warnings: string[];
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
export async function decodeObject(r: ApiRequest, rt: ResourceType, kind = { group: rt.group, version: rt.version, kind: rt.kind }): Promise<DecodedObject> {
  return decodeBytes(await r.body(), r.contentType, r.query.get('fieldValidation'), kind);
}

/** Decodes and checks `body` (sent as `contentType`, checked as ?fieldValidation=`fieldValidation`) as an object of `kind`. */
export function decodeBytes(body: Buffer, contentType: string | undefined, fieldValidation: string | null, kind: { group: string; version: string; kind: string }): DecodedObject {
  // A JSON body is turned into text once: the parse and the decode checks both read it.
  const text = (mediaType(contentType) || 'application/json') === 'application/json' ? body.toString('utf8') : undefined;
  const obj = text !== undefined ? parseJson(text) : decodeBody(body, contentType);
  const { object, warnings } = decodeChecks(kind, text, obj, validationModeOf(fieldValidation));
  return { obj: object, warnings };
}

/** Checks an object produced by a patch (no raw text: duplicates cannot occur). */
export function checkPatched(r: ApiRequest, rt: ResourceType, obj: any, kind = { group: rt.group, version: rt.version, kind: rt.kind }): DecodedObject {
  const { object, warnings } = decodeChecks(kind, undefined, obj, validationMode(r.query));
  return { obj: object, warnings };
}
