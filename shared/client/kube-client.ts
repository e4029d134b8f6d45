// The only REST client in ksim: every component talks to the apiserver
// through it. Speaks JSON over http(s) with keep-alive, client certificates
// or bearer tokens, turns every non-2xx answer into a typed StatusError, and
// streams watches as newline-delimited JSON events.
import http from 'node:http';
import https from 'node:https';
import { StatusError } from '../api/errors.ts';
import { groupVersionPath, type ResourceType } from '../api/resource-type.ts';
import { loadKubeconfig, type ClientConfig } from './kubeconfig.ts';
import { TokenBucket } from './rate-limiter.ts';

/** Client tuning; rate limits are off unless `qps` is set. */
export interface ClientOptions {
  userAgent?: string;
  qps?: number;
  burst?: number;
  timeoutMs?: number;
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

/** One watch event. */
export interface WatchEvent<T = any> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

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

interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
}

/** See the file comment. */
export class KubeClient {
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly limiter?: TokenBucket;
  private readonly headers: Record<string, string>;

  constructor(
    readonly config: ClientConfig,
    private readonly opts: ClientOptions = {},
  ) {
    this.url = new URL(config.server);
    const secure = this.url.protocol === 'https:';
    this.agent = secure
      ? new https.Agent({ keepAlive: true, ca: config.ca, cert: config.cert, key: config.key, rejectUnauthorized: !config.insecureSkipTlsVerify })
      : new http.Agent({ keepAlive: true });
    if (opts.qps && opts.qps > 0) this.limiter = new TokenBucket(opts.qps, opts.burst ?? Math.ceil(opts.qps * 1.5));
    this.headers = { 'User-Agent': opts.userAgent ?? 'ksim', Accept: 'application/json' };
    if (config.token) this.headers.Authorization = `Bearer ${config.token}`;
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
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== '') q.set(k, String(v));
    const qs = q.toString();
    return qs ? `${path}?${qs}` : path;
  }

  /** Sends one request; resolves with the parsed JSON body, rejects with a StatusError for any non-2xx answer. */
  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    await this.limiter?.take();
    const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    const headers: Record<string, string> = { ...this.headers };
    if (body !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const mod = this.url.protocol === 'https:' ? https : http;
    return new Promise<T>((resolve, reject) => {
      const req = mod.request(
        { hostname: this.url.hostname, port: this.url.port, method, path: this.target(path, opts.query), headers, agent: this.agent, timeout: this.opts.timeoutMs ?? 60_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: any;
            try {
              parsed = text ? JSON.parse(text) : undefined;
            } catch {
              parsed = undefined;
            }
            const code = res.statusCode ?? 0;
            if (code >= 200 && code < 300) resolve(parsed as T);
            else reject(StatusError.fromStatus(parsed?.kind === 'Status' ? parsed : { message: text.slice(0, 200) || `HTTP ${code}` }, code));
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`request timed out: ${method} ${path}`)));
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }

  get<T = any>(rt: ResourceType, namespace: string | undefined, name: string, subresource?: string): Promise<T> {
    return this.request('GET', KubeClient.path(rt, namespace, name, subresource));
  }

  list<T = any>(rt: ResourceType, opts: ListOptions = {}): Promise<T> {
    const { namespace, ...query } = opts;
    return this.request('GET', KubeClient.path(rt, namespace), { query: { ...query } });
  }

  create<T = any>(rt: ResourceType, namespace: string | undefined, obj: unknown, subresource?: { name: string; subresource: string }): Promise<T> {
    return this.request('POST', KubeClient.path(rt, namespace, subresource?.name, subresource?.subresource), { body: obj });
  }

  update<T = any>(rt: ResourceType, obj: any, subresource?: string): Promise<T> {
    return this.request('PUT', KubeClient.path(rt, obj.metadata.namespace, obj.metadata.name, subresource), { body: obj });
  }

  patch<T = any>(rt: ResourceType, namespace: string | undefined, name: string, type: PatchType, patch: unknown, subresource?: string): Promise<T> {
    return this.request('PATCH', KubeClient.path(rt, namespace, name, subresource), { body: patch, contentType: PATCH_CONTENT_TYPES[type] });
  }

  delete<T = any>(rt: ResourceType, namespace: string | undefined, name: string, options?: Record<string, unknown>): Promise<T> {
    return this.request('DELETE', KubeClient.path(rt, namespace, name), { body: options ? { kind: 'DeleteOptions', apiVersion: 'v1', ...options } : undefined });
  }

  /** Opens a watch; `onEvent` runs for each event in order. */
  watch(rt: ResourceType, opts: WatchOptions, onEvent: (ev: WatchEvent) => void): WatchHandle {
    const { namespace, ...query } = opts;
    const path = this.target(KubeClient.path(rt, namespace), { ...query, watch: 'true' });
    const mod = this.url.protocol === 'https:' ? https : http;
    let req: http.ClientRequest | undefined;
    let stopped = false;
    const done = new Promise<void>((resolve, reject) => {
      req = mod.request({ hostname: this.url.hostname, port: this.url.port, method: 'GET', path, headers: this.headers, agent: this.agent }, (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            let status: any;
            try {
              status = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              status = {};
            }
            reject(StatusError.fromStatus(status, res.statusCode ?? 0));
          });
          return;
        }
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            if (line.trim() === '' || stopped) continue;
            try {
              onEvent(JSON.parse(line));
            } catch (err) {
              req?.destroy(err as Error);
            }
          }
        });
        res.on('end', () => resolve());
        res.on('error', (err) => (stopped ? resolve() : reject(err)));
        res.on('close', () => resolve());
      });
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

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}
