// What metrics-server keeps between scrapes and how it turns them into
// usage: the last two points of every node and container; CPU is the
// cumulative counter's rise over the window between them, memory the last
// working set. A container that restarted between two scrapes (a later start
// time) starts over; one that started shortly before its first scrape uses its
// start as the earlier point, with no CPU used yet, as metrics-server does
// for containers younger than one resolution but at least 10 s old.
import type { MetricsBatch, MetricsPoint } from './resource-metrics-text.ts';

/** Usage over a window: CPU in cores, memory in bytes, the window's end and length in ms. */
export interface Usage {
  cpuCores: number;
  memoryBytes: number;
  timestamp: number;
  windowMs: number;
}

/** A Pod's usage: its containers', and the earliest timestamp with its window. */
export interface PodUsage {
  containers: { name: string; usage: Usage }[];
  timestamp: number;
  windowMs: number;
}

/** metrics-server's freshContainerMinMetricsResolution. */
export const FRESH_CONTAINER_MIN_MS = 10_000;

/** The rate between two points, or undefined when they do not make one (metrics-server's resourceUsage). */
export function usageBetween(last: MetricsPoint, prev: MetricsPoint): Usage | undefined {
  if (last.startTime < prev.startTime) return undefined;
  if (last.cpuSeconds < prev.cpuSeconds) return undefined;
  const windowMs = last.timestamp - prev.timestamp;
  if (windowMs <= 0) return undefined;
  return {
    cpuCores: (last.cpuSeconds - prev.cpuSeconds) / (windowMs / 1000),
    memoryBytes: last.memoryBytes,
    timestamp: last.timestamp,
    windowMs,
  };
}

/** The earlier point to keep for `point`, given the stored last and previous ones (see the file comment). */
function previousFor(
  point: MetricsPoint,
  last: MetricsPoint | undefined,
  prev: MetricsPoint | undefined,
  resolutionMs: number,
): MetricsPoint | undefined {
  const age = point.timestamp - point.startTime;
  if (point.startTime > 0 && point.startTime < point.timestamp && age < resolutionMs && age >= FRESH_CONTAINER_MIN_MS) {
    return { ...point, timestamp: point.startTime, cpuSeconds: 0 };
  }
  if (!last || !(point.startTime < last.timestamp)) return undefined;
  if (point.timestamp > last.timestamp) return last;
  if (prev && prev.timestamp < point.timestamp) return prev;
  return undefined;
}

/** The last two scrapes of every node and container (metrics-server's nodeStorage and podStorage). */
export class MetricsStorage {
  private lastNodes = new Map<string, MetricsPoint>();
  private prevNodes = new Map<string, MetricsPoint>();
  private lastPods = new Map<string, Map<string, MetricsPoint>>();
  private prevPods = new Map<string, Map<string, MetricsPoint>>();

  /** `resolutionMs`: how often the store is fed (metrics-server's --metric-resolution). */
  constructor(private readonly resolutionMs: number) {}

  /** Replaces the stored scrape with one batch per node (a node missing from `batches` is forgotten). */
  store(batches: Map<string, MetricsBatch>): void {
    const lastNodes = new Map<string, MetricsPoint>();
    const prevNodes = new Map<string, MetricsPoint>();
    const lastPods = new Map<string, Map<string, MetricsPoint>>();
    const prevPods = new Map<string, Map<string, MetricsPoint>>();
    for (const [nodeName, batch] of batches) {
      if (batch.node) {
        lastNodes.set(nodeName, batch.node);
        const prev = previousFor(batch.node, this.lastNodes.get(nodeName), this.prevNodes.get(nodeName), this.resolutionMs);
        if (prev) prevNodes.set(nodeName, prev);
      }
      for (const [podKey, containers] of batch.pods) {
        if (lastPods.has(podKey)) continue;
        const storedLast = this.lastPods.get(podKey);
        const storedPrev = this.prevPods.get(podKey);
        const prevs = new Map<string, MetricsPoint>();
        for (const [name, point] of containers) {
          const prev = previousFor(point, storedLast?.get(name), storedPrev?.get(name), this.resolutionMs);
          if (prev) prevs.set(name, prev);
        }
        lastPods.set(podKey, containers);
        if (prevs.size) prevPods.set(podKey, prevs);
      }
    }
    this.lastNodes = lastNodes;
    this.prevNodes = prevNodes;
    this.lastPods = lastPods;
    this.prevPods = prevPods;
  }

  /** A node's usage, or undefined until two points of it are stored. */
  nodeUsage(name: string): Usage | undefined {
    const last = this.lastNodes.get(name);
    const prev = this.prevNodes.get(name);
    return last && prev ? usageBetween(last, prev) : undefined;
  }

  /** A Pod's usage ("namespace/name"), or undefined unless every container of it has two points. */
  podUsage(key: string): PodUsage | undefined {
    const last = this.lastPods.get(key);
    const prev = this.prevPods.get(key);
    if (!last || !prev) return undefined;
    const containers: PodUsage['containers'] = [];
    let earliest: Usage | undefined;
    for (const [name, point] of last) {
      const p = prev.get(name);
      if (!p) return undefined;
      const usage = usageBetween(point, p);
      if (!usage) continue;
      containers.push({ name, usage });
      if (!earliest || earliest.timestamp > usage.timestamp) earliest = usage;
    }
    return { containers, timestamp: earliest?.timestamp ?? 0, windowMs: earliest?.windowMs ?? 0 };
  }
}
