// Content negotiation: decoding request bodies (JSON, YAML) and encoding
// responses (JSON, YAML) with kube's errors for what it cannot read or write.
import YAML from 'yaml';
import { badRequest, notAcceptable, unsupportedMediaType } from '../../shared/api/errors.ts';

/** Media types a request body may use for create and update. */
export const BODY_TYPES = ['application/json', 'application/yaml'];

/** Media types a PATCH body may use. */
export const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

/** The media type of a Content-Type header without parameters, lower-cased. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** Decodes a create/update body; `contentType` must be JSON or YAML. */
export function decodeBody(body: Buffer, contentType: string | undefined): any {
  const type = mediaType(contentType) || 'application/json';
  if (type === 'application/json') return parseJson(body);
  if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml') return parseYaml(body);
  throw unsupportedMediaType(type, BODY_TYPES);
}

/** Parses JSON with kube's 400 message on failure. */
export function parseJson(body: Buffer | string): any {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${(err as Error).message}`);
  }
}

/** Parses YAML with a 400 on failure. */
export function parseYaml(body: Buffer | string): any {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    return YAML.parse(text);
  } catch (err) {
    throw badRequest(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** The response encodings the server can produce. */
export type ResponseFormat = 'json' | 'yaml';

/**
 * Picks the response format from an Accept header: JSON for anything that
 * allows it (including protobuf-first lists, which kube clients send with a
 * JSON fallback), YAML when asked, 406 when nothing acceptable remains.
 */
export function negotiate(accept: string | undefined): ResponseFormat {
  if (!accept) return 'json';
  let sawYaml = false;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (params.some((p) => p.startsWith('as=') )) continue; // Table and other transformations: not served here
    if (type === 'application/json' || type === '*/*' || type === 'application/*' || type === 'application/json-patch+json') return 'json';
    if (type === 'application/yaml') sawYaml = true;
  }
  if (sawYaml) return 'yaml';
  throw notAcceptable(['application/json', 'application/yaml']);
}

/** Encodes a JSON string in `format`. */
export function encode(json: string, format: ResponseFormat): { body: string; contentType: string } {
  if (format === 'yaml') return { body: YAML.stringify(JSON.parse(json)), contentType: 'application/yaml' };
  return { body: json, contentType: 'application/json' };
}
