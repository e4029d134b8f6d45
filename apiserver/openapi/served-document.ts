// A built OpenAPI document ready to serve: its canonical JSON bytes, the
// content hash kube uses as both ETag and the ?hash= of /openapi/v3 URLs
// (uppercase hex SHA-512 of the JSON), and a gzip copy made on first use.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';

/** Bytes ready to serve with their validator. */
export interface ServedBytes {
  readonly body: Buffer;
  /** Uppercase hex SHA-512 of the JSON form: the ETag (unquoted) and the v3 ?hash= value, shared by every encoding as in kube. */
  readonly hash: string;
  /** When the document was built (Last-Modified). */
  readonly builtAt: Date;
  /** `body` gzip-compressed, compressed once. */
  gzip(): Buffer;
}

/** A document as served: the object, its JSON bytes and their hash. */
export interface ServedDocument extends ServedBytes {
  /** The document; frozen, shared by every caller. */
  readonly document: object;
  /** Canonical JSON (object keys sorted, no whitespace); the same bytes as `body`. */
  readonly json: Buffer;
}

/** A copy with every object's keys in sorted order, as Go's encoding/json writes maps. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Canonicalises, freezes and hashes a freshly built document. */
export function serveDocument(doc: object): ServedDocument {
  const document = deepFreeze(sortKeys(doc) as object);
  const json = Buffer.from(JSON.stringify(document));
  const hash = createHash('sha512').update(json).digest('hex').toUpperCase();
  return { document, json, ...servedBytes(json, hash, new Date()) };
}

/** Another encoding of a served document (protobuf), with the same hash and date. */
export function servedBytes(body: Buffer, hash: string, builtAt: Date): ServedBytes {
  let gz: Buffer | undefined;
  return { body, hash, builtAt, gzip: () => (gz ??= gzipSync(body)) };
}

/** A value computed on first use and kept for the life of the process. */
export function lazy<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
