// kubelet's resource metrics for the nodes of this process: GET
// /metrics/resource (Prometheus text, the series metrics-server scrapes)
// and GET /stats/summary (the Summary API's JSON: node, Pods, containers,
// CPU and memory). One kubelet-sim serves many nodes on one port, so the
// node is the `node` query parameter (default: the process's first node); a
// node that is powered off or cut off answers 503, as an unreachable kubelet
// fails a scrape. The numbers come from the usage model (runtime/usage/).
import type { Container, ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import type http from 'node:http';
import { StatusError } from '../../shared/api/errors.ts';
import { quantityNumber } from '../../shared/api/quantity-number.ts';
import { PROCESS_CATALOG, type ImageInfo } from '../runtime/images/catalog.ts';
import { ENTRYPOINT_WRAPPERS } from '../runtime/images/programs.ts';
import { parseImageRef } from '../runtime/images/reference.ts';
import { baselineOf } from '../runtime/usage/baselines.ts';
import { UsageMeter, type UsageSample } from '../runtime/usage/meter.ts';
import { demandOf } from '../runtime/usage/profile.ts';
import { PROCESS_REQUESTS } from '../runtime/usage/requests.ts';
import type { Clock } from '../../shared/clock/clock.ts';
import type { NodeFleet } from '../node/node-fleet.ts';
import type { PodManager } from '../pod-manager.ts';

/** What the metrics read: the Pods the process runs (their status as kubelet-sim wrote it), its nodes, the clock. */
export interface MetricsSource {
  pods: Pick<PodManager, 'podInformer'>;
  fleet: Pick<NodeFleet, 'nodes'>;
  clock: Clock;
}

/** The node's size, for capping containers without limits (ksim's default node profile). */
const NODE_CORES = 4;
const NODE_MEMORY = 16 * 1024 ** 3;

/** One sampled container. */
export interface ContainerUsage {
  name: string;
  startedAt: number;
  sample: UsageSample;
}

/** One sampled Pod. */
export interface PodUsageSample {
  pod: Pod;
  containers: ContainerUsage[];
}

/** A node's sample: the node itself and its running Pods. */
export interface NodeUsage {
  name: string;
  at: number;
  node: UsageSample;
  pods: PodUsageSample[];
}

const meters = new WeakMap<object, Map<string, UsageMeter>>();
const processStart = Date.now();

function meterOf(opts: MetricsSource, node: string): UsageMeter {
  let m = meters.get(opts.pods);
  if (!m) meters.set(opts.pods, (m = new Map()));
  let meter = m.get(node);
  if (!meter) m.set(node, (meter = new UsageMeter(NODE_CORES, processStart)));
  return meter;
}

const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** What a container runs (the runtime's combination of image config and spec, without env expansion). */
export function argvOf(spec: Container, info: ImageInfo | undefined): string[] {
  const argv = spec.command?.length
    ? [...spec.command, ...(spec.args ?? [])]
    : [...(info?.entrypoint ?? []), ...(spec.args ?? info?.cmd ?? [])];
  while (argv.length > 1 && ENTRYPOINT_WRAPPERS.has(basename(argv[0]))) argv.shift();
  return argv;
}

/** True when the container runs its image's server (its default command, or the server's own executable). */
export function servesImage(spec: Container, info: ImageInfo | undefined): boolean {
  if (!info?.serves) return false;
  if (!spec.command?.length) return true;
  const own = new Set([...(info.entrypoint ?? []).slice(0, 1), ...(info.cmd ?? []).slice(0, 1)].map(basename));
  return own.has(basename(spec.command[0]));
}

const infoOf = (image: string | undefined): ImageInfo | undefined => {
  const parsed = parseImageRef(image ?? '');
  return 'ref' in parsed ? PROCESS_CATALOG.info(parsed.ref.repository) : undefined;
};

const limitOf = (c: Container, name: 'cpu' | 'memory'): number | undefined => {
  const v = quantityNumber(c.resources?.limits?.[name]);
  return Number.isFinite(v) && v > 0 ? v : undefined;
};

/** Samples the node `name` and the running containers of its Pods now. */
export function sampleNode(opts: MetricsSource, name: string): NodeUsage {
  const now = opts.clock.now();
  const meter = meterOf(opts, name);
  const live = new Set<string>();
  const pods: PodUsageSample[] = [];
  let containerCpu = 0;
  let containerBytes = 0;
  for (const pod of opts.pods.podInformer.cache.byIndex('node', name)) {
    const specs = new Map([...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => [c.name, c]));
    const statuses: ContainerStatus[] = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
    const containers: ContainerUsage[] = [];
    for (const st of statuses) {
      const spec = specs.get(st.name);
      const started = Date.parse(st.state?.running?.startedAt ?? '');
      if (!spec || !st.containerID || Number.isNaN(started)) continue;
      const info = infoOf(spec.image);
      const serving = servesImage(spec, info);
      const sample = meter.sample(
        {
          id: st.containerID,
          startedAt: started,
          demand: demandOf(argvOf(spec, info)),
          baseline: baselineOf(info, serving),
          requestCpu: serving && pod.status?.podIP && !pod.spec?.hostNetwork ? PROCESS_REQUESTS.total(pod.status.podIP) : undefined,
          limitCores: limitOf(spec, 'cpu'),
          limitBytes: limitOf(spec, 'memory'),
        },
        now,
      );
      live.add(st.containerID);
      containerCpu += sample.cpuDelta;
      containerBytes += sample.memoryBytes;
      containers.push({ name: st.name, startedAt: started, sample });
    }
    if (containers.length) pods.push({ pod, containers });
  }
  meter.retain(live);
  return { name, at: now, node: meter.sampleNode(name, containerCpu, containerBytes, now), pods };
}

/** Go's strconv.FormatFloat(v, 'g', -1, 64), as Prometheus' text format writes values: 104857600 is 1.048576e+08. */
export function goFloat(v: number): string {
  if (v === 0) return '0';
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? '+Inf' : '-Inf';
  const [mant, e] = v.toExponential().split('e');
  const exp = Number(e);
  if (exp >= -4 && exp < 6) return String(v);
  return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

const HELP: [string, string, string][] = [
  ['container_cpu_usage_seconds_total', 'counter', 'Cumulative cpu time consumed by the container in core-seconds'],
  ['container_memory_working_set_bytes', 'gauge', 'Current working set of the container in bytes'],
  ['container_start_time_seconds', 'gauge', 'Start time of the container since unix epoch in seconds'],
  ['node_cpu_usage_seconds_total', 'counter', 'Cumulative cpu time consumed by the node in core-seconds'],
  ['node_memory_working_set_bytes', 'gauge', 'Current working set of the node in bytes'],
  ['pod_cpu_usage_seconds_total', 'counter', 'Cumulative cpu time consumed by the pod in core-seconds'],
  ['pod_memory_working_set_bytes', 'gauge', 'Current working set of the pod in bytes'],
  ['resource_scrape_error', 'gauge', '1 if there was an error while getting container metrics, 0 otherwise'],
];

const esc = (s: string | undefined) => (s ?? '').replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** kubelet's /metrics/resource text for one node's sample (families in name order, labels sorted). */
export function resourceMetricsText(u: NodeUsage): string {
  const series = new Map<string, string[]>(HELP.map(([n]) => [n, []]));
  const add = (name: string, line: string) => series.get(name)!.push(line);
  const ts = String(Math.floor(u.at));
  for (const { pod, containers } of u.pods) {
    const ns = esc(pod.metadata?.namespace);
    const pn = esc(pod.metadata?.name);
    let cpu = 0;
    let mem = 0;
    for (const c of containers) {
      const labels = `{container="${esc(c.name)}",namespace="${ns}",pod="${pn}"}`;
      add('container_cpu_usage_seconds_total', `container_cpu_usage_seconds_total${labels} ${goFloat(c.sample.cpuSeconds)} ${ts}`);
      add('container_memory_working_set_bytes', `container_memory_working_set_bytes${labels} ${goFloat(c.sample.memoryBytes)} ${ts}`);
      add('container_start_time_seconds', `container_start_time_seconds${labels} ${goFloat(c.startedAt / 1000)}`);
      cpu += c.sample.cpuSeconds;
      mem += c.sample.memoryBytes;
    }
    add('pod_cpu_usage_seconds_total', `pod_cpu_usage_seconds_total{namespace="${ns}",pod="${pn}"} ${goFloat(cpu)} ${ts}`);
    add('pod_memory_working_set_bytes', `pod_memory_working_set_bytes{namespace="${ns}",pod="${pn}"} ${goFloat(mem)} ${ts}`);
  }
  add('node_cpu_usage_seconds_total', `node_cpu_usage_seconds_total ${goFloat(u.node.cpuSeconds)} ${ts}`);
  add('node_memory_working_set_bytes', `node_memory_working_set_bytes ${goFloat(u.node.memoryBytes)} ${ts}`);
  add('resource_scrape_error', 'resource_scrape_error 0');
  const out: string[] = [];
  for (const [name, type, help] of HELP) {
    const lines = series.get(name)!;
    if (!lines.length) continue;
    out.push(`# HELP ${name} [STABLE] ${help}`, `# TYPE ${name} ${type}`, ...lines);
  }
  return out.join('\n') + '\n';
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const cpuStats = (s: UsageSample, at: number) => ({
  time: iso(at),
  usageNanoCores: Math.round(s.cpuCores * 1e9),
  usageCoreNanoSeconds: Math.round(s.cpuSeconds * 1e9),
});
const memoryStats = (bytes: number, at: number, limit?: number) => ({
  time: iso(at),
  ...(limit !== undefined ? { availableBytes: Math.max(0, Math.round(limit - bytes)) } : {}),
  usageBytes: Math.round(bytes),
  workingSetBytes: Math.round(bytes),
  rssBytes: Math.round(bytes),
  pageFaults: 0,
  majorPageFaults: 0,
});

/** kubelet's /stats/summary (stats/v1alpha1 Summary) for one node's sample: CPU and memory of the node, its Pods and containers. */
export function statsSummary(u: NodeUsage): object {
  return {
    node: {
      nodeName: u.name,
      startTime: iso(processStart),
      cpu: cpuStats(u.node, u.at),
      memory: memoryStats(u.node.memoryBytes, u.at, NODE_MEMORY),
    },
    pods: u.pods.map(({ pod, containers }) => {
      const limits = new Map(
        [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].map((c) => [c.name, limitOf(c, 'memory')]),
      );
      const total = containers.reduce(
        (t, c) => ({
          cpuSeconds: t.cpuSeconds + c.sample.cpuSeconds,
          cpuCores: t.cpuCores + c.sample.cpuCores,
          cpuDelta: 0,
          memoryBytes: t.memoryBytes + c.sample.memoryBytes,
        }),
        { cpuSeconds: 0, cpuCores: 0, cpuDelta: 0, memoryBytes: 0 },
      );
      return {
        podRef: { name: pod.metadata?.name, namespace: pod.metadata?.namespace, uid: pod.metadata?.uid },
        startTime: pod.status?.startTime ?? iso(u.at),
        containers: containers.map((c) => ({
          name: c.name,
          startTime: iso(c.startedAt),
          cpu: cpuStats(c.sample, u.at),
          memory: memoryStats(c.sample.memoryBytes, u.at, limits.get(c.name)),
        })),
        cpu: cpuStats(total, u.at),
        memory: memoryStats(total.memoryBytes, u.at),
        process_stats: { process_count: containers.length },
      };
    }),
  };
}

/** Answers GET /metrics/resource or /stats/summary (see the file comment). */
export function serveResourceMetrics(opts: MetricsSource, res: http.ServerResponse, path: string, query: URLSearchParams): void {
  const name = query.get('node') || (opts.fleet.nodes.keys().next().value ?? '');
  const node = opts.fleet.nodes.get(name);
  if (!node) throw new StatusError(404, 'NotFound', `node "${name}" is not run by this kubelet-sim`);
  if (!node.online) throw new StatusError(503, 'ServiceUnavailable', `node "${name}" is not reachable`);
  const u = sampleNode(opts, name);
  if (path === '/stats/summary') {
    const body = JSON.stringify(statsSummary(u), null, 2);
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(body);
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' });
  res.end(resourceMetricsText(u));
}
