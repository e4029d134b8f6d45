// pods/proxy, services/proxy and nodes/proxy: every request under
// .../{pods|services}/NAME[:PORT]/proxy[/PATH] and /api/v1/nodes/NAME/proxy[/PATH]
// is forwarded, method, headers and body, to the Pod's port, a ready
// endpoint of the Service, or the node's kubelet, and the answer comes back
// as the backend gave it, as kube's upgrade-aware proxy does. The name may
// carry a scheme and a port (`https:web:443`, kube's SplitSchemeNamePort). A
// request for the bare root (no trailing slash) is redirected to it with a
// slash, as kube does. Resolving the backend is pod-proxy.ts,
// service-proxy.ts and node-proxy.ts; dialing a Pod goes through its kubelet
// (port-forward-dial.ts), since the Pod network is simulated there.
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { badRequest, StatusError } from '../../../shared/api/errors.ts';
import { decodeSegment } from '../../http/path-segments.ts';
import type { ApiContext } from '../context.ts';
import { kubeletTlsOptions } from './kubelet-proxy.ts';

/** What a proxy path names. */
export interface ProxyTarget {
  resource: 'pods' | 'services' | 'nodes';
  namespace: string;
  /** The name as written (NAME, NAME:PORT or SCHEME:NAME:PORT). */
  id: string;
  /** The raw path after `proxy` ('' for none), with its leading slash. */
  rest: string;
}

const PROXY_PATH = /^\/api\/v1\/(?:namespaces\/([^/]+)\/(pods|services)|(nodes))\/([^/]+)\/proxy(\/.*)?$/;

/** The proxy request a raw path names, or undefined when it is not one. */
export function matchProxyPath(pathname: string): ProxyTarget | undefined {
  const m = PROXY_PATH.exec(pathname);
  if (!m) return undefined;
  return {
    resource: (m[2] ?? m[3]) as ProxyTarget['resource'],
    namespace: m[1] ? decodeSegment(m[1]) : '',
    id: decodeSegment(m[4]),
    rest: m[5] ?? '',
  };
}

/** kube's SplitSchemeNamePort: NAME, NAME:PORT or SCHEME:NAME:PORT (scheme http or https). */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else return undefined;
  if (!name || (scheme && scheme !== 'http' && scheme !== 'https')) return undefined;
  return { scheme, name, port };
}

/** Where a proxied request goes: an HTTP(S) URL base, or a connection opener for a simulated Pod. */
export type Backend =
  | { kind: 'url'; base: string; tls: boolean; query?: URLSearchParams }
  | { kind: 'pod'; host: string; open: () => Promise<{ stream: Duplex; failure: Promise<string>; close(): void }> };

/** Hop-by-hop headers (RFC 7230 6.1), never forwarded; Authorization is the apiserver's, not the backend's. */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'authorization',
  'impersonate-user',
  'impersonate-group',
  'impersonate-uid',
]);

function forwardHeaders(h: http.IncomingHttpHeaders | http.OutgoingHttpHeaders): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP.has(k.toLowerCase())) out[k] = v;
  return out;
}

/**
 * Serves one proxy request; `resolve` finds the backend (with kube's errors).
 * Resolves with the status sent.
 */
export async function serveProxy(
  ctx: ApiContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  target: ProxyTarget,
  rawQuery: string,
  resolve: () => Backend | Promise<Backend>,
): Promise<number> {
  const pathname = (req.url ?? '/').split('?')[0];
  if (target.rest === '') {
    // kube's hack for issue 4958: the root of a proxied server is PATH/, so relative links resolve.
    res.writeHead(301, { Location: `${pathname}/${rawQuery ? `?${rawQuery}` : ''}` });
    res.end();
    return 301;
  }
  const backend = await resolve();
  const headers = forwardHeaders(req.headers);
  const path = `${target.rest}${rawQuery ? `?${rawQuery}` : ''}`;
  if (backend.kind === 'url') {
    const q = new URLSearchParams(rawQuery);
    for (const [k, v] of backend.query ?? []) if (!q.has(k)) q.set(k, v);
    const qs = q.toString();
    const url = `${backend.base}${target.rest}${qs ? `?${qs}` : ''}`;
    const opts: https.RequestOptions = { method: req.method, headers, ...(backend.tls ? kubeletTlsOptions(ctx.kubeletClientTls) : {}) };
    return relay(
      req,
      res,
      () => (backend.tls ? https.request(url, opts) : http.request(url, opts)),
      (err) => Promise.resolve(goDialError(err)),
    );
  }
  const conn = await backend.open();
  headers.host = backend.host;
  headers.connection = 'close';
  return relay(
    req,
    res,
    () => http.request({ createConnection: () => conn.stream, method: req.method, path, headers, setHost: false }),
    async (err) => {
      const why = await Promise.race([conn.failure, new Promise<string>((r) => setTimeout(() => r(''), 1000))]);
      conn.close();
      return why && /connection refused/.test(why) ? `dial tcp ${backend.host}: connect: connection refused` : why || err.message;
    },
  ).finally(() => conn.close());
}

/** Sends the request and streams the answer back; a failure before the answer is kube's 503 "error trying to reach service". */
function relay(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  open: () => http.ClientRequest,
  explain: (err: Error) => Promise<string>,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let up: http.ClientRequest;
    try {
      up = open();
    } catch (err) {
      return reject(new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${(err as Error).message}`));
    }
    // A backend that never answers (a timer, not the socket's: a Pod's connection is a SPDY stream).
    const timer = setTimeout(() => up.destroy(new Error('i/o timeout')), 30_000);
    up.on('close', () => clearTimeout(timer));
    up.on('response', (r) => {
      clearTimeout(timer);
      res.writeHead(r.statusCode ?? 502, forwardHeaders(r.headers));
      r.pipe(res);
      r.on('error', () => res.destroy());
      r.on('end', () => resolve(r.statusCode ?? 502));
      r.on('close', () => {
        if (!r.complete) res.destroy();
      });
    });
    up.on('error', (err) => {
      if (res.headersSent) {
        res.destroy();
        return resolve(res.statusCode);
      }
      explain(err).then(
        (why) => reject(new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${why}`)),
        () => reject(new StatusError(503, 'ServiceUnavailable', `error trying to reach service: ${err.message}`)),
      );
    });
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
}

/** The 400 for a name that is not NAME[:PORT] or SCHEME:NAME:PORT. */
export function invalidRequest(kind: 'pod' | 'service' | 'node', id: string): StatusError {
  return badRequest(`invalid ${kind} request "${id}"`);
}

/** Node's dial errors worded as Go's net package words them (kube's message carries Go's). */
export function goDialError(err: Error & { code?: string; address?: string; port?: number }): string {
  const where = err.address ? `${err.address}:${err.port ?? ''}` : '';
  if (err.code === 'ECONNREFUSED' && where) return `dial tcp ${where}: connect: connection refused`;
  if (err.code === 'ETIMEDOUT' && where) return `dial tcp ${where}: i/o timeout`;
  if (err.code === 'ECONNRESET') return 'read: connection reset by peer';
  return err.message;
}
