// The only REST client in ksim: every component talks to the apiserver
// through it. Speaks JSON over http(s) with keep-alive, client certificates
// or bearer tokens, turns every non-2xx answer into a typed StatusError, and
// streams watches as newline-delimited JSON events.
//
// Requests go over a small HTTP/1.1 connection pool of its own (http1-pool.ts)
// instead of node:http's Agent and ClientRequest: a request is one string
// written in one syscall and its answer is parsed from the bytes as they
// come, which costs about half the CPU per request. Heartbeats of thousands
// of simulated nodes and the writes of every controller are such requests.
// Watches, a handful of long streams, stay on node:http with an agent of
// their own.
//
// `client.as(identity)` is a view of a client that makes its requests as
// another user through kube's impersonation headers, over the same pool and
// watch agent: kubelet-sim runs thousands of nodes, each with its own
// identity, on one process's connections.
//
// A write (any request but a GET) made inside a cause (withCause, or any
// reconcile of runController) carries it in the X-Ksim-Cause header, which
// the apiserver records with the revision it writes; KSIM_CAUSALITY=off
// sends none.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { StatusError, type Status } from '../api/errors.ts';
import type { KubeList, KubeObject } from '../api/object.ts';
import { groupVersionPath, type ResourceType } from '../api/resource-type.ts';
import { CAUSE_HEADER } from '../api/write-cause.ts';
import { currentCauseHeader } from '../causality/cause-context.ts';
import { loadKubeconfig, type ClientConfig } from './kubeconfig.ts';
import { TokenBucket } from './rate-limiter.ts';
import { Http1Pool } from './http1-pool.ts';

export { withCause, currentCause, causalityEnabled } from '../causality/cause-context.ts';
export type { WriteCause } from '../api/write-cause.ts';

/** Client tuning; rate limits are off unless `qps` is set. */
export interface ClientOptions {
  userAgent?: string;
  qps?: number;
  burst?: number;
  timeoutMs?: number;
  /**
   * Connections for requests other than watches (default 64); more requests
   * wait for a free one, as streams beyond the limit wait on client-go's
   * single HTTP/2 connection. Watches have connections of their own.
   */
  maxConnections?: number;
}

const DEFAULT_MAX_CONNECTIONS = 64;
const DEFAULT_TIMEOUT_MS = 60_000;

/** Whom a view's requests are made as: kube's Impersonate-User, -Uid, -Group and -Extra-KEY headers. */
export interface Impersonation {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** The connections a client shares with its views (internal: only `as()` passes one). */
export interface SharedTransport {
  pool: Http1Pool;
  watchAgent: http.Agent;
  limiter?: TokenBucket;
}

/** Query parameters of a list or watch. */
export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

/** Query parameters of a watch. */
export interface WatchOptions extends ListOptions {
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
}

/** One watch event: an object (for a BOOKMARK, only its kind and resourceVersion), or the Status of an ERROR. */
export type WatchEvent<T extends KubeObject = KubeObject> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T } | { type: 'ERROR'; object: Partial<Status> };

/** A running watch. `done` resolves when the server ends the stream, rejects on a connection error. */
export interface WatchHandle {
  done: Promise<void>;
  stop(): void;
}

/** The patch content types the apiserver accepts. */
export type PatchType = 'merge' | 'json' | 'strategic';
const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** One request's query, body and content type. */
export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** On success, resolve with undefined without parsing the answer: for writes whose caller has no use for it. */
  discardBody?: boolean;
  /** On success, resolve with the answer's text unparsed: for a caller that passes it on as it came. */
  rawBody?: boolean;
}

/**
 * See the file comment. The object methods take the kind's type, e.g.
 * `client.get<Pod>(pods, ns, name)` or `client.list<Node>(nodes)` (a
 * `KubeList<Node>`). Without one the result is untyped (`any`), as it was
 * before the methods were generic: kept until every caller names its type.
 */
export class KubeClient {
  private readonly url: URL;
  private readonly transport: SharedTransport;
  /** False for a view made by `as()`: closing it leaves the shared connections open. */
  private readonly ownsTransport: boolean;
  private headers: Record<string, string | string[]> = {};
  /** The headers of every request, as they go on the wire. */
  private headerLines = '';

  constructor(
    readonly config: ClientConfig,
    private readonly opts: ClientOptions = {},
    shared?: SharedTransport,
    /** Whom this client's requests are made as; undefined: the credentials' own user. */
    readonly impersonation?: Impersonation,
  ) {
    this.url = new URL(config.server);
    this.ownsTransport = !shared;
    this.transport = shared ?? this.openTransport();
    this.writeHeaders(config.token);
  }

  /**
   * Replaces the bearer token every later request carries (a renewed
   * ServiceAccount token); requests already sent keep the old one.
   */
  setToken(token: string): void {
    this.writeHeaders(token);
  }

  private writeHeaders(token: string | undefined): void {
    const { opts, impersonation } = this;
    const base: Record<string, string> = { 'User-Agent': opts.userAgent ?? 'ksim', Accept: 'application/json' };
    if (token) base.Authorization = `Bearer ${token}`;
    let lines = `Host: ${this.url.host}\r\n`;
    for (const [k, v] of Object.entries(base)) lines += `${k}: ${v}\r\n`;
    if (/[\r\n]/.test(lines.slice(0, -2).replace(/\r\n/g, ''))) throw new Error('kubeconfig: a header value contains a line break');
    const headers: Record<string, string | string[]> = base;
    if (impersonation) {
      for (const [k, v] of impersonationHeaders(impersonation)) {
        lines += `${k}: ${v}\r\n`;
        const had = headers[k];
        headers[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
      }
    }
    this.headers = headers;
    this.headerLines = lines;
  }

  private openTransport(): SharedTransport {
    const secure = this.url.protocol === 'https:';
    const config = this.config;
    // One TLS context for every connection (its keys and CAs are parsed once, not per connection).
    const secureContext = secure ? tls.createSecureContext({ ca: config.ca, cert: config.cert, key: config.key }) : undefined;
    const tlsOptions = { secureContext, rejectUnauthorized: !config.insecureSkipTlsVerify };
    const port = Number(this.url.port) || (secure ? 443 : 80);
    const host = this.url.hostname.replace(/^\[(.*)\]$/, '$1');
    const pool = new Http1Pool({
      host,
      port,
      tls: secure ? tlsOptions : undefined,
      maxConnections: this.opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    });
    // A watch holds its connection for minutes: it must never wait for, or take, a request's.
    const watchAgent = secure ? new https.Agent({ keepAlive: true, ...tlsOptions }) : new http.Agent({ keepAlive: true });
    const qps = this.opts.qps;
    const limiter = qps && qps > 0 ? new TokenBucket(qps, this.opts.burst ?? Math.ceil(qps * 1.5)) : undefined;
    return { pool, watchAgent, limiter };
  }

  /**
   * A view of this client whose requests are made as `who` (the credentials must
   * allow impersonating them): the same connections, watch agent and rate limit,
   * only the headers differ, so a view costs a few strings. Throws on a name or
   * group that cannot be a header value.
   */
  as(who: Impersonation): KubeClient {
    return new KubeClient(this.config, this.opts, this.transport, who);
  }

  /** A client for the current context of the kubeconfig at `path`. */
  static fromKubeconfig(path: string, opts?: ClientOptions): KubeClient {
    return new KubeClient(loadKubeconfig(path), opts);
  }

  /** The path of a collection, an object or one of its subresources. */
  static path(rt: ResourceType, namespace: string | undefined, name?: string, subresource?: string): string {
    let p = groupVersionPath(rt);
    if (rt.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
    p += `/${rt.plural}`;
    if (name) p += `/${encodeURIComponent(name)}`;
    if (subresource) p += `/${subresource}`;
    return p;
  }

  private target(path: string, query?: RequestOptions['query']): string {
    if (!query) return path;
    let qs = '';
    for (const k in query) {
      const v = query[k];
      if (v === undefined || v === '') continue;
      qs += `${qs ? '&' : '?'}${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
    }
    return path + qs;
  }

  /** Sends one request; resolves with the parsed JSON body, rejects with a StatusError for any non-2xx answer. */
  async request<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    if (this.transport.limiter) await this.transport.limiter.take();
    const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    const target = this.target(path, opts.query);
    if (/[\s]/.test(target)) throw new Error(`invalid request path: ${JSON.stringify(target)}`);
    let head = `${method} ${target} HTTP/1.1\r\n${this.headerLines}`;
    if (method !== 'GET' && method !== 'HEAD') {
      const cause = currentCauseHeader();
      if (cause !== undefined) head += `${CAUSE_HEADER}: ${cause}\r\n`;
    }
    if (body !== undefined)
      head += `Content-Type: ${opts.contentType ?? 'application/json'}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
    head += '\r\n';
    const res = await this.transport.pool.send({
      wire: body === undefined ? head : head + body,
      // Only a request that changes nothing may go again after the server dropped a kept-alive connection under it.
      replayable: method === 'GET',
      timeoutMs: this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      what: `${method} ${path}`,
    });
    const code = res.status;
    if (opts.discardBody && code >= 200 && code < 300) return undefined as T;
    const text = res.body;
    if (opts.rawBody && code >= 200 && code < 300) return text as T;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (code >= 200 && code < 300) return parsed as T;
    throw StatusError.fromStatus(isStatus(parsed) ? parsed : { message: text.slice(0, 200) || `HTTP ${code}` }, code);
  }

  /** GET of one object (or one of its subresources). */
  get<T extends KubeObject = any>(rt: ResourceType, namespace: string | undefined, name: string, subresource?: string): Promise<T> {
    return this.request('GET', KubeClient.path(rt, namespace, name, subresource));
  }

  /** One page of a list as the apiserver sent it (JSON text), for a caller that passes it on. */
  listText(rt: ResourceType, opts: ListOptions = {}): Promise<string> {
    const { namespace, ...query } = opts;
    return this.request('GET', KubeClient.path(rt, namespace), { query: { ...query }, rawBody: true });
  }

  /** One page of a list: `items` are `T`s. */
  list<T extends KubeObject = any>(rt: ResourceType, opts: ListOptions = {}): Promise<KubeList<T>> {
    const { namespace, ...query } = opts;
    return this.request('GET', KubeClient.path(rt, namespace), { query: { ...query } });
  }

  /** POST of `obj` to the collection (or to a subresource of the object named). */
  create<T extends KubeObject = any>(
    rt: ResourceType,
    namespace: string | undefined,
    obj: unknown,
    subresource?: { name: string; subresource: string },
  ): Promise<T> {
    return this.request('POST', KubeClient.path(rt, namespace, subresource?.name, subresource?.subresource), { body: obj });
  }

  /**
   * PUT of `obj` to its own path (the object must name itself in metadata).
   * `update<Pod>(pods, pod)` checks `obj` as a Pod too; untyped, `obj` may be any object.
   */
  update<T extends KubeObject = any, O extends KubeObject = T>(rt: ResourceType, obj: O, subresource?: string): Promise<T> {
    const meta = obj.metadata!;
    return this.request('PUT', KubeClient.path(rt, meta.namespace, meta.name, subresource), { body: obj });
  }

  /** PATCH of the object named with `patch`, of the given type. */
  patch<T extends KubeObject = KubeObject>(
    rt: ResourceType,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    subresource?: string,
  ): Promise<T> {
    return this.request('PATCH', KubeClient.path(rt, namespace, name, subresource), {
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
    });
  }

  /** DELETE of the object named: answers the object (while finalizers hold it) or a Status. */
  delete<T = unknown>(rt: ResourceType, namespace: string | undefined, name: string, options?: Record<string, unknown>): Promise<T> {
    return this.request('DELETE', KubeClient.path(rt, namespace, name), {
      body: options ? { kind: 'DeleteOptions', apiVersion: 'v1', ...options } : undefined,
    });
  }

  /** Opens a watch; `onEvent` runs for each event in order. */
  watch<T extends KubeObject = KubeObject>(rt: ResourceType, opts: WatchOptions, onEvent: (ev: WatchEvent<T>) => void): WatchHandle {
    const { namespace, ...query } = opts;
    return this.watchPath(KubeClient.path(rt, namespace), query, onEvent);
  }

  /**
   * Opens a watch of any path that streams watch events (a resource's, or
   * the history API's changes); `onEvent` runs for each event in order.
   */
  watchPath<E = WatchEvent>(
    pathname: string,
    query: Record<string, string | number | boolean | undefined>,
    onEvent: (ev: E) => void,
  ): WatchHandle {
    const path = this.target(pathname, { ...query, watch: 'true' });
    const mod = this.url.protocol === 'https:' ? https : http;
    let req: http.ClientRequest | undefined;
    let stopped = false;
    const done = new Promise<void>((resolve, reject) => {
      req = mod.request(
        { hostname: this.url.hostname, port: this.url.port, method: 'GET', path, headers: this.headers, agent: this.transport.watchAgent },
        (res) => {
          if (res.statusCode !== 200) {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              let status: unknown;
              try {
                status = JSON.parse(Buffer.concat(chunks).toString('utf8'));
              } catch {
                status = {};
              }
              reject(StatusError.fromStatus(isStatusLike(status) ? status : {}, res.statusCode ?? 0));
            });
            return;
          }
          let buffered = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            let from = 0;
            let nl: number;
            while ((nl = buffered.indexOf('\n', from)) >= 0) {
              const line = buffered.slice(from, nl);
              from = nl + 1;
              if (stopped || line.trim() === '') continue;
              try {
                onEvent(JSON.parse(line) as E);
              } catch (err) {
                req?.destroy(err as Error);
              }
            }
            buffered = from === 0 ? buffered : buffered.slice(from);
          });
          res.on('end', () => resolve());
          res.on('error', (err) => (stopped ? resolve() : reject(err)));
          res.on('close', () => resolve());
        },
      );
      req.on('error', (err) => (stopped ? resolve() : reject(err)));
      req.end();
    });
    return {
      done,
      stop() {
        stopped = true;
        req?.destroy();
      },
    };
  }

  /** Request connections opened so far, and how many resumed a TLS session instead of a full handshake (watches aside). */
  connectionStats(): { opened: number; resumed: number } {
    return this.transport.pool.stats();
  }

  /** Closes every connection; requests still in flight fail. A view's close() does nothing: its parent owns them. */
  close(): void {
    if (!this.ownsTransport) return;
    this.transport.pool.close();
    this.transport.watchAgent.destroy();
  }
}

/**
 * A header value kube and every HTTP/1.1 parser read back unchanged: printable
 * ASCII, no leading or trailing space (those would be trimmed), not empty.
 */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** The impersonation header lines of `who`, in kube's names; throws on a value that cannot be sent as it is. */
export function impersonationHeaders(who: Impersonation): [string, string][] {
  const check = (what: string, v: string): string => {
    if (!HEADER_VALUE.test(v)) throw new Error(`impersonation: ${what} ${JSON.stringify(v)} cannot be sent as a header value`);
    return v;
  };
  const out: [string, string][] = [['Impersonate-User', check('username', who.username)]];
  if (who.uid !== undefined) out.push(['Impersonate-Uid', check('uid', who.uid)]);
  for (const g of who.groups ?? []) out.push(['Impersonate-Group', check('group', g)]);
  for (const [key, values] of Object.entries(who.extra ?? {})) {
    // kube reads the key percent-decoded from the header name, which may hold only token characters.
    const escaped = check('extra key', key).replace(
      /[^A-Za-z0-9._~-]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
    );
    const name = `Impersonate-Extra-${escaped}`;
    for (const v of values) out.push([name, check(`extra ${key}`, v)]);
  }
  return out;
}

/** A JSON object in an error answer, read as the Status it should be. */
function isStatusLike(v: unknown): v is Partial<Status> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStatus(v: unknown): v is Partial<Status> {
  return isStatusLike(v) && v.kind === 'Status';
}
