// Serves /openapi/v2, /openapi/v3 and /openapi/v3/<group-version> the way
// kube-openapi's handlers do: Accept negotiation (v2 in JSON or gnostic
// protobuf; v3 in JSON only, as kubectl never asks v3 for protobuf, so a
// protobuf-only Accept there gets 406 where kube would answer), a quoted ETag of the SHA-512 content hash with If-None-Match -> 304,
// `Cache-Control: public, immutable` when a group-version is asked for with
// the current ?hash=, a 301 to the current URL for a stale hash, and gzip.
import type { RequestUrl } from '../http/request-url.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { notAcceptable, StatusError } from '../../shared/api/errors.ts';
import type { ServedBytes } from './served-document.ts';
import { openapiV2ProtobufServed, openapiV2Served } from './v2.ts';
import { openapiV3IndexServed, openapiV3Served, openapiV3URL } from './v3.ts';

/** The protobuf media type kube answers with (the "@" spelling that clients send is deprecated). */
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** Media types kube's OpenAPI handlers answer with, in kube's order of preference. */
const V2_TYPES = ['application/json', V2_PROTOBUF, 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf'];
const V3_TYPES = [
  'application/json',
  'application/com.github.proto-openapi.spec.v3.v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v3@v1.0+protobuf',
];

interface AcceptClause {
  type: string;
  subtype: string;
  q: number;
  order: number;
}

/** Parses an Accept header and sorts it the way goautoneg does: by q, then by specificity. */
export function parseAccept(header: string | undefined): AcceptClause[] {
  const clauses: AcceptClause[] = [];
  (header?.trim() ? header : '*/*').split(',').forEach((part, order) => {
    const [range, ...params] = part.split(';').map((s) => s.trim());
    if (!range) return;
    const slash = range.indexOf('/');
    const type = slash < 0 ? range : range.slice(0, slash);
    const subtype = slash < 0 ? '*' : range.slice(slash + 1);
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=').map((s) => s.trim());
      if (k === 'q') q = Number.isFinite(Number(v)) ? Number(v) : 0;
    }
    clauses.push({ type: type.toLowerCase(), subtype: subtype.toLowerCase(), q, order });
  });
  const specificity = (c: AcceptClause): number => (c.type === '*' ? 0 : c.subtype === '*' ? 1 : 2);
  return clauses.filter((c) => c.q > 0).sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.order - b.order);
}

/**
 * The media type to answer with, as kube-openapi picks it: the first Accept
 * clause (in preference order) that matches one of `offered` (in order)
 * wins. Types that kube serves but ksim does not (`served` lacks them) are
 * passed over, so a client that prefers one of them but also accepts JSON
 * gets JSON. Undefined means 406.
 */
export function negotiate(header: string | undefined, offered: readonly string[], served: readonly string[]): string | undefined {
  for (const c of parseAccept(header)) {
    for (const t of offered) {
      const [type, subtype] = t.split('/');
      if ((c.type === type || c.type === '*') && (c.subtype === subtype || c.subtype === '*') && served.includes(t)) {
        // The deprecated "@" spelling is answered with the current one, as kube does.
        return t.replace('@v1.0+', '.v1.0+');
      }
    }
  }
  return undefined;
}

function sendStatus(res: ServerResponse, err: StatusError): void {
  const body = JSON.stringify(err.toStatus());
  res.writeHead(err.code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === '*' || v === etag;
  });
}

function sendDocument(
  req: IncomingMessage,
  res: ServerResponse,
  doc: ServedBytes,
  extra: Record<string, string> = {},
  contentType = 'application/json',
): void {
  const etag = `"${doc.hash}"`;
  const headers: Record<string, string> = {
    'Content-Type': contentType,
    ETag: etag,
    'Last-Modified': doc.builtAt.toUTCString(),
    Vary: 'Accept',
    ...extra,
  };
  if (etagMatches(req.headers['if-none-match'], etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const body = gzip ? doc.gzip() : doc.body;
  res.writeHead(200, { ...headers, ...(gzip ? { 'Content-Encoding': 'gzip' } : {}), 'Content-Length': String(body.length) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * Handles a request if its path is below /openapi/; returns false (and
 * writes nothing) otherwise, so the caller can route it elsewhere.
 */
export function handleOpenApi(req: IncomingMessage, res: ServerResponse, url: RequestUrl): boolean {
  const path = url.pathname.replace(/\/+$/, '');
  if (path !== '/openapi/v2' && path !== '/openapi/v3' && !path.startsWith('/openapi/v3/')) return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendStatus(res, new StatusError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`));
    return true;
  }
  const accept = req.headers.accept;
  if (path === '/openapi/v2') {
    const type = negotiate(accept, V2_TYPES, V2_TYPES);
    if (!type) sendStatus(res, notAcceptable(V2_TYPES));
    else if (type === 'application/json') sendDocument(req, res, openapiV2Served());
    else sendDocument(req, res, openapiV2ProtobufServed(), {}, type);
    return true;
  }
  if (path === '/openapi/v3') {
    sendDocument(req, res, openapiV3IndexServed());
    return true;
  }
  const gvPath = path.slice('/openapi/v3/'.length);
  const doc = openapiV3Served(gvPath);
  if (!doc) {
    sendStatus(res, new StatusError(404, 'NotFound', 'the server could not find the requested resource'));
    return true;
  }
  if (!negotiate(accept, V3_TYPES, ['application/json'])) {
    sendStatus(res, notAcceptable(['application/json']));
    return true;
  }
  const hash = url.searchParams.get('hash');
  if (hash && hash !== doc.hash) {
    res.writeHead(301, { Location: openapiV3URL(gvPath, doc.hash), 'Content-Length': '0' });
    res.end();
    return true;
  }
  const immutable: Record<string, string> = hash
    ? { 'Cache-Control': 'public, immutable', Expires: new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString() }
    : {};
  sendDocument(req, res, doc, immutable);
  return true;
}

/** Builds and encodes every document now (about a second), so that the first kubectl run after boot does not wait for it. */
export function warmOpenApi(): void {
  openapiV3IndexServed();
  openapiV2Served();
  openapiV2ProtobufServed();
}
