// Content negotiation: decoding request bodies (JSON, YAML) and encoding
// responses (JSON, YAML) with kube's errors for what it cannot read or write.
import YAML from 'yaml';
import { badRequest, notAcceptable, unsupportedMediaType } from '../../shared/api/errors.ts';
import { decodeKubeProtobuf, ProtobufDecodeError } from '../../shared/api/protobuf/index.ts';
import { goJsonSyntaxError } from './go-json-syntax.ts';
import { jsonNestingError } from './nesting.ts';
import { decodeYaml, YamlDecodeError } from './yaml-decode.ts';

/** Media types a request body may use for create and update. */
export const BODY_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/** Media types a PATCH body may use. */
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** The media type of a Content-Type header without parameters, lower-cased. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

/** Decodes a create/update body; `contentType` must be JSON or YAML. */
export function decodeBody(body: Buffer, contentType: string | undefined): unknown {
  const type = mediaType(contentType) || 'application/json';
  if (type === 'application/json') return parseJson(body);
  if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml') return parseYaml(body);
  if (type === 'application/vnd.kubernetes.protobuf') return parseProtobuf(body);
  throw unsupportedMediaType(type, BODY_TYPES);
}

/** Decodes a Kubernetes protobuf body (the "k8s\0" envelope) into its JSON form, with a 400 on failure. */
export function parseProtobuf(body: Buffer): unknown {
  try {
    return decodeKubeProtobuf(body).object;
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw badRequest(`the body of the request could not be decoded as protobuf: ${err.message}`);
    throw err;
  }
}

/** Parses JSON with kube's 400 message on failure; nesting past kube's 10,000 levels is refused as Go refuses it. */
export function parseJson(body: Buffer | string): unknown {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${jsonSyntaxError(body, err)}`);
  }
  const deep = jsonNestingError(text);
  if (deep) throw badRequest(`the body of the request could not be decoded as JSON: ${deep}`);
  return value;
}

/** Why JSON text does not parse, in Go's words (kube's), given JSON.parse's error. */
export function jsonSyntaxError(body: Buffer | string, parseError: unknown): string {
  return goJsonSyntaxError(typeof body === 'string' ? Buffer.from(body) : body) ?? (parseError as Error).message;
}

/** Parses YAML with a 400 on failure (go-yaml's limits: nesting, alias cycles and alias bombs). */
export function parseYaml(body: Buffer | string): unknown {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  try {
    return decodeYaml(text);
  } catch (err) {
    if (err instanceof YamlDecodeError) throw badRequest(`error converting YAML to JSON: ${err.message}`);
    throw err;
  }
}

/** The response encodings the server can produce. */
export type ResponseFormat = 'json' | 'yaml';

/** What a read returns: the objects themselves, kube's Table, or only their metadata. */
export type ResponseView = 'object' | 'Table' | 'PartialObjectMetadata';

/** The outcome of content negotiation. */
export interface Negotiated {
  format: ResponseFormat;
  view: ResponseView;
}

const META_VERSIONS = ['v1', 'v1beta1'];

/**
 * Picks the response from an Accept header, first acceptable entry wins:
 * kube's Table and PartialObjectMetadata(List) transformations, JSON, YAML.
 * Protobuf is skipped (kube clients always list JSON after it); 406 when
 * nothing acceptable remains.
 */
export function negotiate(accept: string | undefined): Negotiated {
  if (!accept) return { format: 'json', view: 'object' };
  for (const part of accept.split(',')) {
    const [rawType, ...rawParams] = part.split(';').map((s) => s.trim());
    const type = rawType.toLowerCase();
    const params = new Map(rawParams.map((p) => p.split('=').map((x) => x.trim()) as [string, string]));
    const as = params.get('as');
    if (as) {
      if (type !== 'application/json' || params.get('g') !== 'meta.k8s.io' || !META_VERSIONS.includes(params.get('v') ?? '')) continue;
      if (as === 'Table') return { format: 'json', view: 'Table' };
      if (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') return { format: 'json', view: 'PartialObjectMetadata' };
      continue;
    }
    if (type === 'application/json' || type === '*/*' || type === 'application/*') return { format: 'json', view: 'object' };
    if (type === 'application/yaml') return { format: 'yaml', view: 'object' };
  }
  throw notAcceptable(['application/json', 'application/yaml']);
}

/** Encodes a JSON string in `format`. */
export function encode(json: string, format: ResponseFormat): { body: string; contentType: string } {
  if (format === 'yaml') {
    let body: string;
    try {
      body = YAML.stringify(JSON.parse(json));
    } catch {
      // Too deep for the YAML library's recursion (it stops near 600 levels).
      // The write behind this answer may be committed: JSON is YAML too.
      body = json;
    }
    return { body, contentType: 'application/yaml' };
  }
  return { body: json, contentType: 'application/json' };
}
