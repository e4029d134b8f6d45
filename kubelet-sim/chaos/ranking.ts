// kubelet's eviction manager's choices as pure functions (pkg/kubelet/eviction):
// which Pods may be evicted at all (not critical ones), the order it evicts
// them in under each pressure (rankMemoryPressure, rankDiskPressureFunc,
// rankPIDPressure), and the message it writes into the evicted Pod's status
// and its Evicted event (evictionMessage).
import type { Pod } from 'kubernetes-types/core/v1.js';
import { quantityNumber } from '../../shared/api/quantity-number.ts';
import type { PressureKind } from '../node/node-object.ts';

/** scheduling.SystemCriticalPriority: a Pod at or above it is critical. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/** The resource each pressure reclaims, as kube names it in the message. */
export const RESOURCE_OF: Record<PressureKind, string> = { memory: 'memory', disk: 'ephemeral-storage', pid: 'pids' };

/** One Pod as the eviction manager sees it: its usage of the resource under pressure, per container. */
export interface PodUsage {
  pod: Pod;
  /** Bytes (memory, disk) or processes (pid), per running container. */
  containers: { name: string; usage: number }[];
}

/** The Pod's total usage. */
export function podUsage(p: PodUsage): number {
  return p.containers.reduce((a, c) => a + c.usage, 0);
}

/** corev1helpers.PodPriority: spec.priority, 0 when unset. */
export function podPriority(pod: Pod): number {
  return pod.spec?.priority ?? 0;
}

/** kubelettypes.IsCriticalPod: static and mirror Pods, and Pods at system-critical priority, are never evicted. */
export function isCriticalPod(pod: Pod): boolean {
  const a = pod.metadata?.annotations ?? {};
  if (a['kubernetes.io/config.mirror'] !== undefined) return true;
  if (a['kubernetes.io/config.source'] !== undefined && a['kubernetes.io/config.source'] !== 'api') return true;
  return podPriority(pod) >= SYSTEM_CRITICAL_PRIORITY;
}

/** v1resource.GetResourceRequestQuantity for one resource: the containers' sum, or the largest init container's if more. */
export function podRequest(pod: Pod, resource: string): number {
  const req = (c: { resources?: { requests?: Record<string, unknown> } }) => {
    const v = quantityNumber(c.resources?.requests?.[resource]);
    return Number.isFinite(v) ? v : 0;
  };
  const sum = (pod.spec?.containers ?? []).reduce((a, c) => a + req(c), 0);
  const init = Math.max(0, ...(pod.spec?.initContainers ?? []).map(req));
  return Math.max(sum, init);
}

type Cmp = (a: PodUsage, b: PodUsage) => number;

/** cmpBool: true before false. */
const trueFirst = (a: boolean, b: boolean) => (a === b ? 0 : a ? -1 : 1);

/** exceedMemoryRequests / exceedDiskRequests: Pods using more than they request go first. */
const exceedsRequests =
  (resource: string): Cmp =>
  (a, b) =>
    trueFirst(podUsage(a) > podRequest(a.pod, resource), podUsage(b) > podRequest(b.pod, resource));

/** priority: lower priority first. */
const byPriority: Cmp = (a, b) => podPriority(a.pod) - podPriority(b.pod);

/** memory / disk: larger usage above requests first. */
const byUsageOverRequests =
  (resource: string): Cmp =>
  (a, b) =>
    podUsage(b) - podRequest(b.pod, resource) - (podUsage(a) - podRequest(a.pod, resource));

/** process: more processes first. */
const byUsage: Cmp = (a, b) => podUsage(b) - podUsage(a);

const orderedBy =
  (...cmps: Cmp[]): Cmp =>
  (a, b) => {
    for (const c of cmps) {
      const r = c(a, b);
      if (r !== 0) return r;
    }
    return 0;
  };

/** The ranking function of each pressure (buildSignalToRankFunc). */
export const RANK: Record<PressureKind, Cmp> = {
  // rankMemoryPressure: orderedBy(exceedMemoryRequests, priority, memory)
  memory: orderedBy(exceedsRequests('memory'), byPriority, byUsageOverRequests('memory')),
  // rankDiskPressureFunc: orderedBy(exceedDiskRequests, priority, disk)
  disk: orderedBy(exceedsRequests('ephemeral-storage'), byPriority, byUsageOverRequests('ephemeral-storage')),
  // rankPIDPressure: orderedBy(priority, process)
  pid: orderedBy(byPriority, byUsage),
};

/** The Pods to evict under `kind` pressure, first first; critical Pods are left out (kubelet refuses to evict them). */
export function rankForEviction(kind: PressureKind, pods: PodUsage[]): PodUsage[] {
  // Go's sort.Sort is not stable either; ties keep the input order here, which the caller makes deterministic (by name).
  return pods.filter((p) => !isCriticalPod(p.pod)).sort(RANK[kind]);
}

/** resource.Quantity's String() of a BinarySI quantity of bytes: the largest power-of-1024 suffix that divides it. */
export function binaryQuantity(bytes: number): string {
  let n = Math.round(bytes);
  if (n === 0) return '0';
  const suffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
  let i = 0;
  while (i < suffixes.length - 1 && n % 1024 === 0) {
    n /= 1024;
    i++;
  }
  return `${n}${suffixes[i]}`;
}

/** A request as the Pod spec wrote it (Quantity's String()), "0" when none. */
function requestString(pod: Pod, container: string, resource: string): string {
  const c = pod.spec?.containers?.find((x) => x.name === container) ?? pod.spec?.initContainers?.find((x) => x.name === container);
  const v: unknown = c?.resources?.requests?.[resource];
  return typeof v === 'string' || typeof v === 'number' ? String(v) : '0';
}

/** The threshold that was crossed, and what was observed available, as kubelet prints them. */
export interface ThresholdMet {
  quantity: string;
  available: string;
}

/**
 * evictionMessage: "The node was low on resource: memory. Threshold quantity:
 * 100Mi, available: 9Mi. Container c was using 3280Ki, request is 0, has
 * larger consumption of memory. " (one sentence per container over its
 * request; memory and ephemeral-storage only).
 */
export function evictionMessage(kind: PressureKind, p: PodUsage, threshold?: ThresholdMet): string {
  const resource = RESOURCE_OF[kind];
  let message = `The node was low on resource: ${resource}. `;
  if (threshold) message += `Threshold quantity: ${threshold.quantity}, available: ${threshold.available}. `;
  if (kind === 'pid') return message;
  const names = new Set([...(p.pod.spec?.containers ?? []), ...(p.pod.spec?.initContainers ?? [])].map((c) => c.name));
  for (const c of p.containers) {
    if (!names.has(c.name)) continue;
    const req = quantityNumber(requestString(p.pod, c.name, resource));
    if (c.usage > (Number.isFinite(req) ? req : 0)) {
      message += `Container ${c.name} was using ${binaryQuantity(c.usage)}, request is ${requestString(p.pod, c.name, resource)}, has larger consumption of ${resource}. `;
    }
  }
  return message;
}
