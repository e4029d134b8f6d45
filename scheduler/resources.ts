// Resource arithmetic for scheduling: Kubernetes quantities parsed to
// integers (cpu in millicores, everything else in units), and a Pod's
// effective request as kube computes it (sum of containers, max with each
// init container, plus overhead), including the "non-zero" defaults that
// scoring uses for containers without requests.
import type { Pod, PodSpec } from 'kubernetes-types/core/v1.js';
import { quantityNumber } from '../shared/api/quantity-number.ts';

/** A resource list in integer units: cpu in millicores, the rest in base units. */
export type Resources = Map<string, number>;

/** Parses a quantity ("100m", "1.5Gi", "2e3") to a number of base units; NaN if invalid. */
export const parseQuantity = quantityNumber;

/** The scheduler's integer value of `q` for resource `name` (millicores for cpu, rounded up as kube does). */
export function resourceValue(name: string, q: unknown): number {
  const v = parseQuantity(q);
  if (!Number.isFinite(v)) return 0;
  return Math.ceil(name === 'cpu' ? v * 1000 - 1e-9 : v - 1e-9);
}

/** Converts a ResourceList object to integer units. */
export function toResources(list: Record<string, unknown> | undefined): Resources {
  const out: Resources = new Map();
  for (const [k, v] of Object.entries(list ?? {})) out.set(k, resourceValue(k, v));
  return out;
}

/** kube's defaults for scoring a container that requests no cpu / memory. */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** What a Pod asks for. */
export interface PodRequest {
  /** Effective requests (what Filter checks). */
  res: Resources;
  /** cpu and memory with kube's non-zero defaults (what LeastAllocated scores). */
  nonZeroCpu: number;
  nonZeroMem: number;
}

function addInto(into: Resources, list: Record<string, unknown> | undefined): void {
  for (const [k, v] of Object.entries(list ?? {})) into.set(k, (into.get(k) ?? 0) + resourceValue(k, v));
}

const requestCache = new WeakMap<object, PodRequest>();

/** The Pod's effective request (kube's resource.PodRequests), memoized per object. */
export function podRequest(pod: Pod): PodRequest {
  const hit = requestCache.get(pod);
  if (hit) return hit;
  const spec: Partial<PodSpec> = pod.spec ?? {};
  const res: Resources = new Map();
  let nzCpu = 0;
  let nzMem = 0;
  for (const c of spec.containers ?? []) {
    const r = c.resources?.requests;
    addInto(res, r);
    nzCpu += r?.cpu !== undefined ? resourceValue('cpu', r.cpu) : DEFAULT_MILLI_CPU_REQUEST;
    nzMem += r?.memory !== undefined ? resourceValue('memory', r.memory) : DEFAULT_MEMORY_REQUEST;
  }
  // Sidecars (restartPolicy Always) keep running; plain init containers run one at a time.
  const sidecars: Resources = new Map();
  for (const c of spec.initContainers ?? []) {
    const r = c.resources?.requests;
    if (c.restartPolicy === 'Always') {
      addInto(sidecars, r);
      addInto(res, r);
      continue;
    }
    const peak: Resources = new Map(sidecars);
    addInto(peak, r);
    for (const [k, v] of peak) res.set(k, Math.max(res.get(k) ?? 0, v));
    nzCpu = Math.max(nzCpu, r?.cpu !== undefined ? resourceValue('cpu', r.cpu) : 0);
    nzMem = Math.max(nzMem, r?.memory !== undefined ? resourceValue('memory', r.memory) : 0);
  }
  if (spec.overhead) {
    addInto(res, spec.overhead);
    nzCpu += resourceValue('cpu', spec.overhead.cpu ?? 0);
    nzMem += resourceValue('memory', spec.overhead.memory ?? 0);
  }
  const out = { res, nonZeroCpu: nzCpu, nonZeroMem: nzMem };
  requestCache.set(pod, out);
  return out;
}
