// A small HTTP client for end-to-end tests that want to see the wire: status
// codes, headers and raw bodies, which a typed client would hide. It speaks
// https with the cluster CA and the admin's client certificate (node:https on
// a keep-alive agent: Node 20's fetch cannot take a CA), or plain http; watches
// are read line by line as NDJSON.
//
//   const c = api(apiserver);                                  // as the admin
//   const anon = api(apiserver, { credentials: 'anonymous' }); // 401 tests
//   const sa = api(apiserver, { credentials: { token } });     // bearer token
//   const { status, body } = await c.request('POST', '/api/v1/namespaces', ns);
//   const w = c.watch('/api/v1/namespaces/default/pods?resourceVersion=0');
//   for await (const ev of w) { ...; w.close(); }
import http from 'node:http';
import https from 'node:https';
import { tlsFor, type ApiTarget, type Credentials } from './tls.ts';

/** What request() returns: body is parsed JSON for a JSON content type, else text. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  body: T;
  /** The body exactly as it came (UTF-8). */
  text: string;
}

/** One watch event as the apiserver streams it. */
export interface WatchEvent<T = any> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** A watch that is being read; iterate it, or call next() with a timeout. */
export interface WatchStream<T = any> extends AsyncIterable<WatchEvent<T>> {
  /** Resolves with the response status and headers once they arrive. */
  readonly ready: Promise<{ status: number; headers: Record<string, string> }>;
  /** The next event; rejects after timeoutMs (default 10000) or on a non-200 answer; undefined once closed. */
  next(timeoutMs?: number): Promise<WatchEvent<T> | undefined>;
  /** Ends the watch; pending and later next() calls return undefined. */
  close(): void;
}

/** Defaults applied to every request of an api() client. */
export interface ApiOptions {
  /** Sent with every request. */
  headers?: Record<string, string>;
  /** Whom the requests are from (default: the target's client certificate, the admin). */
  credentials?: Credentials;
}

/** A non-200 answer to a watch request. */
export class WatchHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`watch answered HTTP ${status}: ${body}`);
    this.name = 'WatchHttpError';
  }
}

function parseBody(contentType: string, text: string): unknown {
  if (!/json/i.test(contentType) || text === '') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Adds watch=true unless the path already asks for a watch. */
function watchPath(path: string): string {
  if (/[?&]watch=/.test(path) || path.includes('/watch/')) return path;
  return `${path}${path.includes('?') ? '&' : '?'}watch=true`;
}

function headerRecord(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * A read on a reused keep-alive socket that the server had just closed is
 * sent once more, as Node's docs advise. Writes are not: after a crash the
 * caller must see that the answer was lost (the server may have applied it).
 */
function isStaleSocket(method: string, req: http.ClientRequest, err: NodeJS.ErrnoException): boolean {
  return /^(GET|HEAD|OPTIONS)$/i.test(method) && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
}

/**
 * A JSON-over-HTTP(S) client for one server: a target (an Apiserver, a
 * Cluster: URL plus TLS material) or a bare base URL like http://127.0.0.1:PORT.
 */
export function api(target: string | ApiTarget, options: ApiOptions = {}) {
  const t: ApiTarget = typeof target === 'string' ? { url: target } : target;
  const base = t.url.replace(/\/$/, '');
  const secure = base.startsWith('https:');
  const { tls: tlsOptions, headers: credentialHeaders } = tlsFor(t, options.credentials);
  const defaults = { accept: 'application/json', ...credentialHeaders, ...options.headers };
  const transport = secure ? https : http;
  const agent = secure ? new https.Agent({ keepAlive: true, ...tlsOptions }) : new http.Agent({ keepAlive: true });
  // Watches hold their connection: never one the requests would wait for.
  const watchAgent = secure ? new https.Agent({ keepAlive: false, ...tlsOptions }) : new http.Agent({ keepAlive: false });

  function send(method: string, url: URL, headers: Record<string, string>, payload: string | Buffer | undefined, retry: boolean) {
    return new Promise<{ status: number; headers: Record<string, string>; text: string }>((resolve, reject) => {
      const req = transport.request(url, { method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: headerRecord(res.headers), text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (retry && isStaleSocket(method, req, err)) send(method, url, headers, payload, false).then(resolve, reject);
        else reject(err);
      });
      req.end(payload);
    });
  }

  /**
   * Sends one request. A body that is not a string or Buffer is sent as JSON
   * (content-type application/json unless headers set another, e.g.
   * application/merge-patch+json for PATCH).
   */
  async function request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...defaults, ...headers })) h[k.toLowerCase()] = v;
    let payload: string | Buffer | undefined;
    if (body !== undefined) {
      if (typeof body === 'string') payload = body;
      else if (body instanceof Uint8Array) payload = Buffer.from(body);
      else payload = JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    // Framed as fetch frames it: node would send a DELETE's body with no length at all.
    if (payload !== undefined) h['content-length'] ??= String(Buffer.byteLength(payload));
    else if (/^(POST|PUT|PATCH)$/i.test(method)) h['content-length'] ??= '0';
    const res = await send(method, new URL(`${base}${path}`), h, payload, true);
    return { ...res, body: parseBody(res.headers['content-type'] ?? '', res.text) as T };
  }

  /**
   * Opens a watch on path (watch=true is added if missing) and buffers every
   * event from the moment the response starts; await `ready` before causing
   * the changes to watch for.
   */
  function watch<T = any>(path: string, headers: Record<string, string> = {}): WatchStream<T> {
    const url = new URL(`${base}${watchPath(path)}`);
    const queue: WatchEvent<T>[] = [];
    const waiters: Array<{ resolve: (e: WatchEvent<T> | undefined) => void; reject: (e: Error) => void }> = [];
    let failure: Error | undefined;
    let ended = false;

    const finish = (err?: Error): void => {
      if (ended) return;
      ended = true;
      if (err) failure = err;
      for (const w of waiters.splice(0)) {
        if (failure) w.reject(failure);
        else w.resolve(undefined);
      }
    };
    const push = (ev: WatchEvent<T>): void => {
      const w = waiters.shift();
      if (w) w.resolve(ev);
      else queue.push(ev);
    };

    let resolveReady!: (v: { status: number; headers: Record<string, string> }) => void;
    let rejectReady!: (e: Error) => void;
    const ready = new Promise<{ status: number; headers: Record<string, string> }>((res, rej) => {
      resolveReady = res;
      rejectReady = rej;
    });
    ready.catch(() => {}); // Surfaced through next() as well; avoid an unhandled rejection.

    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...defaults, ...headers })) h[k.toLowerCase()] = v;
    const req = transport.get(url, { headers: h, agent: watchAgent }, (res) => {
      const status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      if (status !== 200) {
        let text = '';
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          const err = new WatchHttpError(status, text);
          resolveReady({ status, headers: headerRecord(res.headers) });
          finish(err);
        });
        return;
      }
      resolveReady({ status, headers: headerRecord(res.headers) });
      let buffered = '';
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl).trim();
          buffered = buffered.slice(nl + 1);
          if (line === '') continue;
          try {
            push(JSON.parse(line) as WatchEvent<T>);
          } catch {
            finish(new Error(`watch sent a line that is not JSON: ${line.slice(0, 200)}`));
            req.destroy();
            return;
          }
        }
      });
      res.on('end', () => finish());
      res.on('error', () => finish());
    });
    req.on('error', (err) => {
      rejectReady(err);
      finish(ended ? undefined : err);
    });

    const next = (timeoutMs = 10_000): Promise<WatchEvent<T> | undefined> => {
      const ev = queue.shift();
      if (ev) return Promise.resolve(ev);
      if (ended) return failure ? Promise.reject(failure) : Promise.resolve(undefined);
      return new Promise((resolve, reject) => {
        const waiter = {
          resolve: (e: WatchEvent<T> | undefined) => {
            clearTimeout(timer);
            resolve(e);
          },
          reject: (e: Error) => {
            clearTimeout(timer);
            reject(e);
          },
        };
        const timer = setTimeout(() => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) waiters.splice(i, 1);
          reject(new Error(`no watch event on ${url.pathname}${url.search} within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    };

    const close = (): void => {
      finish();
      req.destroy();
    };

    return {
      ready,
      next,
      close,
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            // No timeout while iterating: the test's own timeout bounds it.
            const ev = await next(2 ** 31 - 1);
            if (ev === undefined) return;
            yield ev;
          }
        } finally {
          close();
        }
      },
    };
  }

  /** Closes the idle keep-alive connections (they never keep the process alive). */
  const close = (): void => {
    agent.destroy();
    watchAgent.destroy();
  };

  return { baseUrl: base, request, watch, close };
}

/** The client returned by api(). */
export type ApiClient = ReturnType<typeof api>;
