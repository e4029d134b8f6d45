// The metrics API (metrics.k8s.io/v1beta1), served by the apiserver itself
// in place of metrics-server behind an APIService: NodeMetrics and
// PodMetrics, get and list (label and field selectors), as objects or as
// metrics-server's Table (Name, cpu, memory, Window). Usage comes from the
// kubelets' /metrics/resource, scraped when a request finds the stored
// scrape older than the resolution (a short cache: ksim has no background
// scraper), and twice, a moment apart, when nothing is stored yet, so the
// first `kubectl top` has a window to compute CPU over.
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { IncomingMessage } from 'node:http';
import { findResource } from '../../shared/api/resources.ts';
import { methodNotAllowed, notFound } from '../../shared/api/errors.ts';
import { formatDuration } from '../../shared/api/protobuf/special.ts';
import { queryFlag } from '../../shared/api/query-bool.ts';
import type { Logger } from '../../shared/log/logger.ts';
import { buildFilter } from '../handlers/selectors.ts';
import type { ApiContext } from '../handlers/context.ts';
import { decodeSegment, notFoundPath } from '../http/path-segments.ts';
import type { RequestUrl } from '../http/request-url.ts';
import { formatQuantity } from '../registry/kinds/quantity.ts';
import type { Store } from '../storage/store.ts';
import { METRICS_GROUP, METRICS_VERSION, metricsDiscovery } from './discovery.ts';
import { MetricsStorage, type PodUsage, type Usage } from './metrics-storage.ts';
import { kubeletFetcher, scrapeNodes, storedNodes, type FetchMetrics } from './scraper.ts';

const API_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`;
const PREFIX = `/apis/${METRICS_GROUP}`;
const PODS_BUCKET = '/registry/core/pods';
const POD_RT = findResource('', 'v1', 'pods')!;
const NODE_RT = findResource('', 'v1', 'nodes')!;

/** How the metrics API is tuned (tests shorten everything). */
export interface MetricsApiOptions {
  /** A stored scrape younger than this answers requests (metrics-server's --metric-resolution, shortened: default 2 s). */
  resolutionMs?: number;
  /** Between the two scrapes of a cold start. */
  coldGapMs?: number;
  /** Per kubelet (metrics-server's --kubelet-request-timeout, 10 s). */
  timeoutMs?: number;
  fetch?: FetchMetrics;
  now?: () => number;
}

/** True for paths the metrics API answers. */
export function isMetricsApiPath(pathname: string): boolean {
  return pathname === PREFIX || pathname.startsWith(`${PREFIX}/`);
}

/** The stored scrapes and the scraping of one apiserver. */
export class MetricsApi {
  readonly storage: MetricsStorage;
  private lastScrape = 0;
  private inflight?: Promise<void>;
  private readonly resolutionMs: number;
  private readonly now: () => number;
  private fetcher?: FetchMetrics;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly tls: ApiContext['kubeletClientTls'],
    private readonly opts: MetricsApiOptions = {},
  ) {
    this.resolutionMs = opts.resolutionMs ?? 2000;
    this.now = opts.now ?? Date.now;
    this.storage = new MetricsStorage(this.resolutionMs);
  }

  private get fetch(): FetchMetrics {
    return (this.fetcher ??= this.opts.fetch ?? kubeletFetcher(this.tls, this.opts.timeoutMs ?? 10_000));
  }

  /** Makes the stored scrape recent enough (see the file comment); concurrent callers share one scrape. */
  fresh(): Promise<void> {
    if (this.now() - this.lastScrape < this.resolutionMs) return Promise.resolve();
    this.inflight ??= this.scrape().finally(() => (this.inflight = undefined));
    return this.inflight;
  }

  private async scrape(): Promise<void> {
    const cold = this.now() - this.lastScrape > 10 * this.resolutionMs;
    await this.scrapeOnce();
    if (cold) {
      await new Promise((r) => setTimeout(r, this.opts.coldGapMs ?? 500));
      await this.scrapeOnce();
    }
  }

  private async scrapeOnce(): Promise<void> {
    const batches = await scrapeNodes(storedNodes(this.store), this.fetch, this.now, this.log);
    this.storage.store(batches);
    this.lastScrape = this.now();
  }
}

const apiServers = new WeakMap<ApiContext, MetricsApi>();

/** The metrics API of an apiserver's context, made on first use. */
export function metricsApiOf(ctx: ApiContext, opts?: MetricsApiOptions): MetricsApi {
  let api = apiServers.get(ctx);
  if (!api) apiServers.set(ctx, (api = new MetricsApi(ctx.store, ctx.log, ctx.kubeletClientTls, opts)));
  return api;
}

// ------------------------------------------------------------------ objects

const rfc3339 = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
/** CPU in cores as metrics-server's nano-core quantity ("250m", "1", "12345n"). */
export const cpuQuantity = (cores: number) =>
  formatQuantity({ mant: BigInt(Math.max(0, Math.floor(cores * 1e9))), exp: -9, format: 'DecimalSI' });
/** Bytes as a BinarySI quantity ("100Mi", "12345678"). */
export const memoryQuantity = (bytes: number) =>
  formatQuantity({ mant: BigInt(Math.max(0, Math.floor(bytes))), exp: 0, format: 'BinarySI' });
const window = (ms: number) => formatDuration(BigInt(Math.round(ms)) * 1_000_000n);
const usageOf = (u: Pick<Usage, 'cpuCores' | 'memoryBytes'>) => ({ cpu: cpuQuantity(u.cpuCores), memory: memoryQuantity(u.memoryBytes) });

/** A NodeMetrics object. */
export function nodeMetrics(node: Node, u: Usage, now: number): Record<string, unknown> {
  return {
    kind: 'NodeMetrics',
    apiVersion: API_VERSION,
    metadata: {
      name: node.metadata?.name,
      creationTimestamp: rfc3339(now),
      ...(node.metadata?.labels ? { labels: node.metadata.labels } : {}),
    },
    timestamp: rfc3339(u.timestamp),
    window: window(u.windowMs),
    usage: usageOf(u),
  };
}

/** A PodMetrics object. */
export function podMetrics(pod: Pod, u: PodUsage, now: number): Record<string, unknown> {
  return {
    kind: 'PodMetrics',
    apiVersion: API_VERSION,
    metadata: {
      name: pod.metadata?.name,
      namespace: pod.metadata?.namespace,
      creationTimestamp: rfc3339(now),
      ...(pod.metadata?.labels ? { labels: pod.metadata.labels } : {}),
    },
    timestamp: rfc3339(u.timestamp),
    window: window(u.windowMs),
    containers: u.containers.map((c) => ({ name: c.name, usage: usageOf(c.usage) })),
  };
}

type MetricsObject = Record<string, unknown> & { metadata: Record<string, unknown>; window: string };

/** metrics-server's Table (pkg/api/table.go): Name, one quantity column per resource (cpu, memory), Window. */
export function metricsTable(items: MetricsObject[], includeObject: string | null): object {
  const table: Record<string, unknown> = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: {}, columnDefinitions: [], rows: [] };
  if (items.length === 0) return table;
  table.columnDefinitions = [
    { name: 'Name', type: 'string', format: 'name', description: 'Name of the resource', priority: 0 },
    { name: 'cpu', type: 'string', format: 'quantity', description: '', priority: 0 },
    { name: 'memory', type: 'string', format: 'quantity', description: '', priority: 0 },
    { name: 'Window', type: 'string', format: 'duration', description: '', priority: 0 },
  ];
  table.rows = items.map((o) => {
    const usage = totalUsage(o);
    const row: Record<string, unknown> = { cells: [o.metadata.name, usage.cpu, usage.memory, o.window] };
    if (includeObject === 'Object') row.object = o;
    else if (includeObject !== 'None') row.object = { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
    return row;
  });
  return table;
}

/** A node's usage, or the sum of a Pod's containers. */
function totalUsage(o: MetricsObject): { cpu: string; memory: string } {
  if (o.usage) return o.usage as { cpu: string; memory: string };
  const containers = (o.containers ?? []) as { usage: { cpu: string; memory: string } }[];
  let cpu = 0;
  let memory = 0;
  for (const c of containers) {
    cpu += quantityValue(c.usage.cpu);
    memory += quantityValue(c.usage.memory);
  }
  return { cpu: cpuQuantity(cpu), memory: memoryQuantity(memory) };
}

function quantityValue(q: string): number {
  const m = /^(\d+)(n|m|Ki|Mi|Gi|Ti)?$/.exec(q);
  if (!m) return 0;
  const scale: Record<string, number> = { n: 1e-9, m: 1e-3, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
  return Number(m[1]) * (m[2] ? scale[m[2]] : 1);
}

// ------------------------------------------------------------------ requests

/** What a request resolves to: a JSON body, or a view of metrics objects. */
export type MetricsAnswer = { json: object } | { items: MetricsObject[]; list?: string; single?: boolean };

/** What a PodMetrics needs of a Pod. */
type PodMeta = Pick<Pod, 'metadata' | 'spec' | 'status'>;

/**
 * The Running Pods (metrics-server knows only those: its informer lists
 * status.phase=Running), parsed once per change of the Pods in storage and
 * kept without their containers and volumes (field selectors read the rest).
 */
const runningCache = new WeakMap<Store, { version: number; pods: PodMeta[] }>();

function runningPods(store: Store, namespace: string): PodMeta[] {
  const version = store.bucketVersion(PODS_BUCKET);
  let cached = runningCache.get(store);
  if (!cached || cached.version !== version) {
    const pods: PodMeta[] = [];
    for (const key of store.keys(PODS_BUCKET, `${PODS_BUCKET}/`)) {
      const e = store.get(key);
      if (!e) continue;
      const pod = JSON.parse(e.json) as Pod;
      if (pod.status?.phase === 'Running')
        pods.push({
          metadata: pod.metadata,
          spec: pod.spec && { ...pod.spec, containers: [], initContainers: undefined, volumes: undefined },
          status: pod.status,
        });
    }
    runningCache.set(store, (cached = { version, pods }));
  }
  return namespace ? cached.pods.filter((p) => p.metadata?.namespace === namespace) : cached.pods;
}

/** Answers GET `pathname` (already authorized); throws kube's Status errors. */
export async function answerMetrics(
  api: MetricsApi,
  store: Store,
  pathname: string,
  query: URLSearchParams,
  now: number,
): Promise<MetricsAnswer> {
  const parts = pathname
    .split('/')
    .filter(Boolean)
    .map((s) => decodeSegment(s));
  // parts[0..1] are "apis", "metrics.k8s.io".
  if (parts.length === 2) return { json: metricsDiscovery.apiGroup() };
  if (parts[2] !== METRICS_VERSION) throw notFoundPath();
  let rest = parts.slice(3);
  if (rest.length === 0) return { json: metricsDiscovery.resourceList() };
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, ...extra] = rest;
  if (extra.length || (resource !== 'pods' && resource !== 'nodes') || (resource === 'nodes' && namespace)) throw notFoundPath();
  const gr = { group: METRICS_GROUP, resource };
  if (queryFlag(query, 'watch')) throw methodNotAllowed('watch', gr);
  if (resource === 'nodes') {
    const filter = buildFilter(NODE_RT, query);
    if (name) {
      const entry = store.get(`/registry/core/nodes/${name}`);
      if (!entry) throw notFound({ group: '', resource: 'node' }, name);
      await api.fresh();
      const u = api.storage.nodeUsage(name);
      if (!u) throw notFound({ group: METRICS_GROUP, resource: 'nodemetrics' }, name);
      return { items: [nodeMetrics(JSON.parse(entry.json) as Node, u, now) as MetricsObject], single: true };
    }
    await api.fresh();
    const items: MetricsObject[] = [];
    for (const node of storedNodes(store).sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1))) {
      if (filter.matches && !filter.matches(node as never)) continue;
      const u = api.storage.nodeUsage(node.metadata!.name!);
      if (u) items.push(nodeMetrics(node, u, now) as MetricsObject);
    }
    return { items, list: 'NodeMetricsList' };
  }
  if (name) {
    if (!namespace) throw notFoundPath();
    const entry = store.get(`${PODS_BUCKET}/${namespace}/${name}`);
    const pod = entry && (JSON.parse(entry.json) as Pod);
    // The lister of metrics-server's Pod metadata informer: a Pod that is not Running is not there.
    if (!pod || pod.status?.phase !== 'Running') throw notFound({ group: '', resource: 'pods' }, name);
    await api.fresh();
    const u = api.storage.podUsage(`${namespace}/${name}`);
    if (!u) throw notFound({ group: METRICS_GROUP, resource: 'podmetrics' }, `${namespace}/${name}`);
    return { items: [podMetrics(pod, u, now) as MetricsObject], single: true };
  }
  const filter = buildFilter(POD_RT, query);
  await api.fresh();
  const items: MetricsObject[] = [];
  for (const pod of runningPods(store, namespace)) {
    if (filter.matches && !filter.matches(pod as never)) continue;
    const u = api.storage.podUsage(`${pod.metadata!.namespace}/${pod.metadata!.name}`);
    if (u) items.push(podMetrics(pod, u, now) as MetricsObject);
  }
  return { items, list: 'PodMetricsList' };
}

/** Serves one metrics API request: the JSON of the answer in the view the client asked for. */
export async function serveMetrics(
  ctx: ApiContext,
  req: IncomingMessage,
  url: RequestUrl,
  view: 'object' | 'Table' | 'PartialObjectMetadata',
): Promise<string> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const resource = /\/(pods|nodes)(\/|$)/.exec(url.pathname)?.[1] ?? '';
    throw methodNotAllowed(verbOf(req.method ?? ''), { group: METRICS_GROUP, resource });
  }
  const api = metricsApiOf(ctx);
  const now = Date.now();
  const answer = await answerMetrics(api, ctx.store, url.pathname, url.searchParams, now);
  if ('json' in answer) return JSON.stringify(answer.json);
  if (view === 'Table') return JSON.stringify(metricsTable(answer.items, url.searchParams.get('includeObject')));
  if (view === 'PartialObjectMetadata') {
    const partial = answer.items.map((o) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata }));
    if (answer.single) return JSON.stringify(partial[0]);
    return JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: {}, items: partial });
  }
  if (answer.single) return JSON.stringify(answer.items[0]);
  return JSON.stringify({ kind: answer.list, apiVersion: API_VERSION, metadata: {}, items: answer.items });
}

const verbOf = (method: string) => ({ POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' })[method] ?? method.toLowerCase();
