// Reads kubelet's /metrics/resource (Prometheus text) into the points
// metrics-server keeps: per node and per container, the cumulative CPU in
// core-seconds, the memory working set and when each was sampled, plus the
// container's start time (which tells a restart from a counter that moved).
// The series are the five metrics-server decodes; every other one is skipped.

/** One sample of a node or container. Times are milliseconds since the epoch. */
export interface MetricsPoint {
  /** Cumulative CPU time in core-seconds. */
  cpuSeconds: number;
  memoryBytes: number;
  /** When the CPU counter was sampled. */
  timestamp: number;
  /** When the container started (0 when kubelet did not say, and for a node). */
  startTime: number;
}

/** What one kubelet reported. */
export interface MetricsBatch {
  node?: MetricsPoint;
  /** By "namespace/pod", then container name. */
  pods: Map<string, Map<string, MetricsPoint>>;
}

interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
  timestamp?: number;
}

/** Parses one sample line (`name{a="b"} 1.5 1700000000000`); undefined for comments and lines it cannot read. */
export function parseSeries(line: string): Series | undefined {
  if (!line || line.startsWith('#')) return undefined;
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?\s*$/.exec(line);
  if (!m) return undefined;
  const labels: Record<string, string> = {};
  const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/g;
  for (const l of (m[3] ?? '').matchAll(re)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  const value = Number(m[4]);
  if (Number.isNaN(value)) return undefined;
  return { name: m[1], labels, value, timestamp: m[5] === undefined ? undefined : Number(m[5]) };
}

/** Decodes a scrape taken at `scrapedAt` (the default timestamp of samples that carry none). */
export function decodeBatch(text: string, scrapedAt: number): MetricsBatch {
  const batch: MetricsBatch = { pods: new Map() };
  let node: Partial<MetricsPoint> | undefined;
  const containers = new Map<string, Map<string, Partial<MetricsPoint>>>();
  const containerOf = (labels: Record<string, string>): Partial<MetricsPoint> | undefined => {
    const { namespace, pod, container } = labels;
    if (!namespace || !pod || !container) return undefined;
    const key = `${namespace}/${pod}`;
    let c = containers.get(key);
    if (!c) containers.set(key, (c = new Map()));
    let p = c.get(container);
    if (!p) c.set(container, (p = {}));
    return p;
  };
  for (const line of text.split('\n')) {
    const s = parseSeries(line.trim());
    if (!s) continue;
    const at = s.timestamp ?? scrapedAt;
    switch (s.name) {
      case 'node_cpu_usage_seconds_total':
        node = { ...node, cpuSeconds: s.value, timestamp: at };
        break;
      case 'node_memory_working_set_bytes':
        node = { ...node, memoryBytes: s.value };
        break;
      case 'container_cpu_usage_seconds_total': {
        const p = containerOf(s.labels);
        if (p) Object.assign(p, { cpuSeconds: s.value, timestamp: at });
        break;
      }
      case 'container_memory_working_set_bytes': {
        const p = containerOf(s.labels);
        if (p) p.memoryBytes = s.value;
        break;
      }
      case 'container_start_time_seconds': {
        const p = containerOf(s.labels);
        if (p) p.startTime = s.value * 1000;
        break;
      }
    }
  }
  // As metrics-server: a point is usable only with both its CPU and its memory.
  const complete = (p: Partial<MetricsPoint>): p is MetricsPoint => p.cpuSeconds !== undefined && p.memoryBytes !== undefined;
  if (node && complete({ startTime: 0, ...node })) batch.node = { startTime: 0, ...node } as MetricsPoint;
  for (const [key, cs] of containers) {
    const out = new Map<string, MetricsPoint>();
    for (const [name, p] of cs) {
      const point = { startTime: 0, ...p };
      if (complete(point)) out.set(name, point);
    }
    if (out.size) batch.pods.set(key, out);
  }
  return batch;
}
