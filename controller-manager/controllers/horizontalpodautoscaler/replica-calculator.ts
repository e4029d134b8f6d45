// kube's replica calculator (pkg/controller/podautoscaler/replica_calculator.go
// and metrics/utilization.go) as pure functions: a resource metric's desired
// replica count from the target's Pods and their PodMetrics. Pending Pods and
// (for CPU) Pods not yet ready or still warming up are left out, Pods without
// metrics count as using 100% of their request on a scale-down and 0% on a
// scale-up, and a change within the tolerance (0.1) keeps the current count.
import type { Pod } from 'kubernetes-types/core/v1.js';
import { quantityNumber } from '../../../shared/api/quantity-number.ts';

/** One metrics.k8s.io/v1beta1 PodMetrics, as the metrics API serves it. */
export interface PodMetrics {
  metadata: { name?: string; namespace?: string; labels?: Record<string, string> };
  timestamp: string;
  window: string;
  containers: { name: string; usage: Record<string, string> }[];
}

/** A Pod's usage of one resource, in milli-units, with the sample's end and width. */
export interface PodMetric {
  value: number;
  timestamp: number;
  windowMs: number;
}

/** The calculator's settings: kube's --horizontal-pod-autoscaler-* flags, durations already divided by --speed. */
export interface CalculatorConfig {
  tolerance: number;
  cpuInitializationPeriodMs: number;
  delayOfInitialReadinessStatusMs: number;
}

/** kube's defaults: tolerance 0.1, cpu-initialization-period 5m, initial-readiness-delay 30s. */
export function defaultCalculatorConfig(speed = 1): CalculatorConfig {
  return { tolerance: 0.1, cpuInitializationPeriodMs: 300_000 / speed, delayOfInitialReadinessStatusMs: 30_000 / speed };
}

/** A Go duration string ("15s", "1m30s", "500ms") in milliseconds; 0 when it does not parse. */
export function durationMs(text: string | undefined): number {
  if (!text) return 0;
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 1e-3, µs: 1e-3, ns: 1e-6 };
  let total = 0;
  const re = /([0-9.]+)(ms|us|µs|ns|h|m|s)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) total += Number(m[1]) * units[m[2]];
  return total;
}

/**
 * getPodMetrics: each Pod's summed usage of `resource`; a Pod with no
 * containers, or a container without that resource, has no metric.
 */
export function podMetricsInfo(items: readonly PodMetrics[], resource: string): Map<string, PodMetric> {
  const out = new Map<string, PodMetric>();
  for (const m of items) {
    if (!m.containers || m.containers.length === 0) continue;
    let sum = 0;
    let missing = false;
    for (const c of m.containers) {
      const v = c.usage?.[resource];
      if (v === undefined) {
        missing = true;
        break;
      }
      sum += Math.round(quantityNumber(v) * 1000);
    }
    if (!missing) out.set(m.metadata.name ?? '', { value: sum, timestamp: Date.parse(m.timestamp), windowMs: durationMs(m.window) });
  }
  return out;
}

const readyCondition = (pod: Pod) => pod.status?.conditions?.find((c) => c.type === 'Ready');

/** groupPods: the ready count, the Pods ignored (pending, or unready / warming up for CPU) and the Pods without metrics. */
export function groupPods(
  pods: readonly Pod[],
  metrics: ReadonlyMap<string, PodMetric>,
  resource: string,
  now: number,
  cfg: CalculatorConfig,
): { readyPodCount: number; ignored: Set<string>; missing: Set<string> } {
  let readyPodCount = 0;
  const ignored = new Set<string>();
  const missing = new Set<string>();
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (pod.metadata?.deletionTimestamp || pod.status?.phase === 'Failed') continue;
    if (pod.status?.phase === 'Pending') {
      ignored.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const cond = readyCondition(pod);
      const start = pod.status?.startTime ? Date.parse(pod.status.startTime) : undefined;
      let ignore: boolean;
      if (!cond || start === undefined) ignore = true;
      else {
        const transition = cond.lastTransitionTime ? Date.parse(cond.lastTransitionTime) : 0;
        if (start + cfg.cpuInitializationPeriodMs > now) {
          // Still initializing: unready, or no full window of metrics since it became ready.
          ignore = cond.status === 'False' || metric.timestamp < transition + metric.windowMs;
        } else {
          // Unready and never ready since it started.
          ignore = cond.status === 'False' && start + cfg.delayOfInitialReadinessStatusMs > transition;
        }
      }
      if (ignore) {
        ignored.add(name);
        continue;
      }
    }
    readyPodCount++;
  }
  return { readyPodCount, ignored, missing };
}

/** calculatePodRequests: each Pod's summed request (milli-units); throws "missing request for cpu" when a container has none. */
export function podRequests(pods: readonly Pod[], resource: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    for (const c of pod.spec?.containers ?? []) {
      const r = c.resources?.requests?.[resource];
      if (r === undefined) throw new Error(`missing request for ${resource}`);
      sum += Math.round(quantityNumber(r) * 1000);
    }
    out.set(pod.metadata?.name ?? '', sum);
  }
  return out;
}

/** GetResourceUtilizationRatio: usage/target ratio, the utilization (percent of request, truncated) and the mean raw usage. */
export function utilizationRatio(
  metrics: ReadonlyMap<string, PodMetric>,
  requests: ReadonlyMap<string, number>,
  target: number,
): { ratio: number; utilization: number; rawAverage: number } {
  let metricsTotal = 0;
  let requestsTotal = 0;
  let n = 0;
  for (const [name, m] of metrics) {
    const r = requests.get(name);
    if (r === undefined) continue;
    metricsTotal += m.value;
    requestsTotal += r;
    n++;
  }
  // A Pod whose request is zero cannot take part in a utilization.
  if (requestsTotal === 0) throw new Error('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { ratio: utilization / target, utilization, rawAverage: Math.trunc(metricsTotal / n) };
}

/** What a resource metric's calculation gives. */
export interface ResourceReplicas {
  replicas: number;
  /** Percent of request (utilization targets). */
  utilization: number;
  /** Mean usage per Pod, milli-units. */
  rawUtilization: number;
  timestamp: number;
  /** The arithmetic behind `replicas`, as a sentence, for step-through notes. */
  arithmetic: string;
}

/**
 * GetResourceReplicas, for a utilization target: the metrics as podMetricsInfo
 * gives them (an empty map is kube's "no metrics returned" error, raised by the caller).
 */
export function resourceReplicas(
  currentReplicas: number,
  targetUtilization: number,
  resource: string,
  pods: readonly Pod[],
  metricsIn: ReadonlyMap<string, PodMetric>,
  timestamp: number,
  now: number,
  cfg: CalculatorConfig,
): ResourceReplicas {
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const metrics = new Map(metricsIn);
  const { readyPodCount, ignored, missing } = groupPods(pods, metrics, resource, now, cfg);
  for (const name of ignored) metrics.delete(name);
  const requests = podRequests(pods, resource);
  if (metrics.size === 0) throw new Error('did not receive metrics for any ready pods');
  const { ratio, utilization, rawAverage } = utilizationRatio(metrics, requests, targetUtilization);
  const usage = `usage ${utilization}% / target ${targetUtilization}% = ratio ${ratio.toFixed(2)}`;
  const result = (replicas: number, arithmetic: string): ResourceReplicas => ({
    replicas,
    utilization,
    rawUtilization: rawAverage,
    timestamp,
    arithmetic,
  });

  const rebalanceIgnored = ignored.size > 0 && ratio > 1.0;
  if (!rebalanceIgnored && missing.size === 0) {
    if (Math.abs(1.0 - ratio) <= cfg.tolerance) return result(currentReplicas, withinTolerance(usage, ratio, cfg, currentReplicas));
    return result(Math.ceil(ratio * readyPodCount), ceilOf(usage, ratio, readyPodCount));
  }
  if (missing.size > 0) {
    // Scale-down: missing Pods use their whole request; scale-up: none of it.
    for (const name of missing) {
      if (ratio < 1.0) metrics.set(name, { value: requests.get(name) ?? 0, timestamp, windowMs: 0 });
      else if (ratio > 1.0) metrics.set(name, { value: 0, timestamp, windowMs: 0 });
    }
  }
  if (rebalanceIgnored) for (const name of ignored) metrics.set(name, { value: 0, timestamp, windowMs: 0 });

  const next = utilizationRatio(metrics, requests, targetUtilization).ratio;
  const again = `${usage}; with missing or unready Pods counted, ratio ${next.toFixed(2)}`;
  if (Math.abs(1.0 - next) <= cfg.tolerance || (ratio < 1.0 && next > 1.0) || (ratio > 1.0 && next < 1.0))
    return result(currentReplicas, `${again}: keep ${currentReplicas}`);
  const replicas = Math.ceil(next * metrics.size);
  if ((next < 1.0 && replicas > currentReplicas) || (next > 1.0 && replicas < currentReplicas))
    return result(currentReplicas, `${again}: keep ${currentReplicas}`);
  return result(replicas, ceilOf(again, next, metrics.size));
}

/** GetRawResourceReplicas / calcPlainMetricReplicas, for an averageValue target (milli-units per Pod). */
export function rawResourceReplicas(
  currentReplicas: number,
  targetValue: number,
  resource: string,
  pods: readonly Pod[],
  metricsIn: ReadonlyMap<string, PodMetric>,
  timestamp: number,
  now: number,
  cfg: CalculatorConfig,
): { replicas: number; utilization: number; timestamp: number; arithmetic: string } {
  if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
  const metrics = new Map(metricsIn);
  const { readyPodCount, ignored, missing } = groupPods(pods, metrics, resource, now, cfg);
  for (const name of ignored) metrics.delete(name);
  if (metrics.size === 0) throw new Error('did not receive metrics for any ready pods');
  const plainRatio = () => {
    let total = 0;
    for (const m of metrics.values()) total += m.value;
    return { ratio: total / (targetValue * metrics.size), utilization: Math.trunc(total / metrics.size) };
  };
  const { ratio, utilization } = plainRatio();
  const usage = `usage ${utilization}m / target ${targetValue}m per Pod = ratio ${ratio.toFixed(2)}`;
  const result = (replicas: number, arithmetic: string) => ({ replicas, utilization, timestamp, arithmetic });
  const rebalanceIgnored = ignored.size > 0 && ratio > 1.0;
  if (!rebalanceIgnored && missing.size === 0) {
    if (Math.abs(1.0 - ratio) <= cfg.tolerance) return result(currentReplicas, withinTolerance(usage, ratio, cfg, currentReplicas));
    return result(Math.ceil(ratio * readyPodCount), ceilOf(usage, ratio, readyPodCount));
  }
  for (const name of missing) metrics.set(name, { value: ratio < 1.0 ? targetValue : 0, timestamp, windowMs: 0 });
  if (rebalanceIgnored) for (const name of ignored) metrics.set(name, { value: 0, timestamp, windowMs: 0 });
  const next = plainRatio().ratio;
  const again = `${usage}; with missing or unready Pods counted, ratio ${next.toFixed(2)}`;
  if (Math.abs(1.0 - next) <= cfg.tolerance || (ratio < 1.0 && next > 1.0) || (ratio > 1.0 && next < 1.0))
    return result(currentReplicas, `${again}: keep ${currentReplicas}`);
  return result(Math.ceil(next * metrics.size), ceilOf(again, next, metrics.size));
}

function withinTolerance(usage: string, ratio: number, cfg: CalculatorConfig, current: number): string {
  return `${usage}; |1 - ${ratio.toFixed(2)}| <= tolerance ${cfg.tolerance}: keep ${current}`;
}

function ceilOf(usage: string, ratio: number, pods: number): string {
  return `${usage}; ceil(${ratio.toFixed(2)} * ${pods} Pods) = ${Math.ceil(ratio * pods)}`;
}
