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
  const value = query.get('fieldValidation');
  const err = fieldValidationError(value);
  if (err) throw badRequest(err.message);
  return fieldValidationMode(value);
}

/** Decodes and checks the request body as an object of `rt` (or of `kind` for subresource bodies). */
export async function decodeObject(r: ApiRequest, rt: ResourceType, kind = { group: rt.group, version: rt.version, kind: rt.kind }): Promise<DecodedObject> {
  const body = await r.body();
  // A JSON body is turned into text once: the parse and the decode checks both read it.
  const text = (mediaType(r.contentType) || 'application/json') === 'application/json' ? body.toString('utf8') : undefined;
  const obj = text !== undefined ? parseJson(text) : decodeBody(body, r.contentType);
  const { object, warnings } = decodeChecks(kind, text, obj, validationMode(r.query));
  return { obj: object, warnings };
}

/** Checks an object produced by a patch (no raw text: duplicates cannot occur). */
export function checkPatched(r: ApiRequest, rt: ResourceType, obj: any, kind = { group: rt.group, version: rt.version, kind: rt.kind }): DecodedObject {
  const { object, warnings } = decodeChecks(kind, undefined, obj, validationMode(r.query));
  return { obj: object, warnings };
}
