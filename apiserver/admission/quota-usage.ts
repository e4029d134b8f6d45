// What one object charges against a ResourceQuota, as kube's quota
// evaluators count it: object counts (`pods`, `count/<resource>[.<group>]`),
// a Pod's compute requests and limits, a Service's node ports and load
// balancers, a claim's storage. Pure functions, shared by ResourceQuota
// admission and the resource quota controller.
import type { Container, PersistentVolumeClaim, Pod, ResourceQuota, Service } from 'kubernetes-types/core/v1.js';
import { addQuantity, cmpQuantity, formatQuantity, parseQuantity, type Quantity } from '../registry/kinds/quantity.ts';

/** A resource list as quantities. */
export type Usage = Map<string, Quantity>;

const ZERO: Quantity = { mant: 0n, exp: 0, format: 'DecimalSI' };
const ONE: Quantity = { mant: 1n, exp: 0, format: 'DecimalSI' };
/** The resources kube's legacy object-count names cover (`pods` as well as `count/pods`). */
const LEGACY_COUNTS = new Set([
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
]);
/** The compute resources every container must state once a quota limits them (kube's validationSet). */
export const REQUIRED_PER_CONTAINER = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

export function quantity(v: unknown): Quantity | undefined {
  const p = parseQuantity(v);
  return typeof p === 'string' ? undefined : p;
}

function add(u: Usage, k: string, v: Quantity): void {
  const cur = u.get(k);
  // A sum takes the format of its first term (kube's Quantity.Add on a copy of it): 64Mi + 64Mi is 128Mi.
  u.set(k, cur && cur.mant !== 0n ? addQuantity(cur, v) : v);
}

/** The count name of a resource: `count/pods`, `count/deployments.apps`. */
export const countName = (group: string, plural: string): string => `count/${plural}${group ? '.' + group : ''}`;

/** A container's compute usage (kube's podComputeUsageHelper for one container). */
export function containerUsage(c: Container): Usage {
  const u: Usage = new Map();
  for (const [k, v] of Object.entries(c.resources?.requests ?? {})) {
    const x = quantity(v);
    if (!x) continue;
    add(u, `requests.${k}`, x);
    if (k === 'cpu' || k === 'memory' || k === 'ephemeral-storage') add(u, k, x);
  }
  for (const [k, v] of Object.entries(c.resources?.limits ?? {})) {
    const x = quantity(v);
    if (x) add(u, `limits.${k}`, x);
  }
  return u;
}

/** Whether a Pod still holds its resources: not finished, and not past its deletion grace. */
export function podCounts(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

function podUsage(pod: Pod): Usage {
  if (!podCounts(pod)) return new Map();
  const u: Usage = new Map([['pods', ONE]]);
  const sum: Usage = new Map();
  for (const c of pod.spec?.containers ?? []) for (const [k, v] of containerUsage(c)) add(sum, k, v);
  // An init container runs alone: the Pod needs at least the largest of them.
  for (const c of pod.spec?.initContainers ?? []) {
    for (const [k, v] of containerUsage(c)) if (!sum.has(k) || cmpQuantity(v, sum.get(k)!) > 0) sum.set(k, v);
  }
  for (const [k, v] of sum) u.set(k, v);
  return u;
}

function serviceUsage(svc: Service): Usage {
  const u: Usage = new Map([['services', ONE]]);
  const type = svc.spec?.type ?? 'ClusterIP';
  const ports = svc.spec?.ports?.length ?? 0;
  if (type === 'NodePort' || type === 'LoadBalancer') u.set('services.nodeports', { mant: BigInt(ports), exp: 0, format: 'DecimalSI' });
  if (type === 'LoadBalancer') u.set('services.loadbalancers', ONE);
  return u;
}

function claimUsage(pvc: PersistentVolumeClaim): Usage {
  const u: Usage = new Map([['persistentvolumeclaims', ONE]]);
  const storage = quantity(pvc.spec?.resources?.requests?.storage);
  const cls = pvc.spec?.storageClassName;
  if (cls) u.set(`${cls}.storageclass.storage.k8s.io/persistentvolumeclaims`, ONE);
  if (storage) {
    u.set('requests.storage', storage);
    if (cls) u.set(`${cls}.storageclass.storage.k8s.io/requests.storage`, storage);
  }
  return u;
}

/** What `obj` (of resource group/plural) charges. */
export function usageOf(group: string, plural: string, obj: unknown): Usage {
  let u: Usage = new Map();
  if (group === '' && plural === 'pods') u = podUsage(obj as Pod);
  else if (group === '' && plural === 'services') u = serviceUsage(obj as Service);
  else if (group === '' && plural === 'persistentvolumeclaims') u = claimUsage(obj as PersistentVolumeClaim);
  else if (group === '' && LEGACY_COUNTS.has(plural)) u.set(plural, ONE);
  // A finished Pod charges nothing at all, not even its count.
  if (group === '' && plural === 'pods' && u.size === 0) return u;
  u.set(countName(group, plural), ONE);
  return u;
}

/** `a - b`, keeping only what grew. */
export function growth(a: Usage, b: Usage | undefined): Usage {
  const out: Usage = new Map();
  for (const [k, v] of a) {
    const before = b?.get(k) ?? ZERO;
    if (cmpQuantity(v, before) > 0) out.set(k, addQuantity(v, { ...before, mant: -before.mant }));
  }
  return out;
}

/** The names a quota's hard list limits. */
export function hardOf(quota: ResourceQuota): Record<string, string> {
  return quota.spec?.hard ?? {};
}

/** Whether a quota's scopes select `obj` (Terminating, NotTerminating, BestEffort, NotBestEffort; other scopes select nothing). */
export function quotaMatches(quota: ResourceQuota, group: string, plural: string, obj: unknown): boolean {
  const scopes = [...(quota.spec?.scopes ?? []), ...(quota.spec?.scopeSelector?.matchExpressions ?? []).map((e) => e.scopeName)];
  if (scopes.length === 0) return true;
  if (group !== '' || plural !== 'pods') return false;
  const pod = obj as Pod;
  const terminating = pod.spec?.activeDeadlineSeconds !== undefined && pod.spec?.activeDeadlineSeconds !== null;
  const bestEffort = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].every(
    (c) => Object.keys(c.resources?.requests ?? {}).length === 0 && Object.keys(c.resources?.limits ?? {}).length === 0,
  );
  return scopes.every((s) => {
    if (s === 'Terminating') return terminating;
    if (s === 'NotTerminating') return !terminating;
    if (s === 'BestEffort') return bestEffort;
    if (s === 'NotBestEffort') return !bestEffort;
    return false;
  });
}

/** The sum of every usage, limited to `names`. */
export function total(usages: Iterable<Usage>, names: Iterable<string>): Usage {
  const keep = new Set(names);
  const out: Usage = new Map([...keep].map((k) => [k, ZERO]));
  for (const u of usages) for (const [k, v] of u) if (keep.has(k)) add(out, k, v);
  return out;
}

/** A usage as a resource list (kube's canonical quantity texts). */
export function asList(u: Usage): Record<string, string> {
  return Object.fromEntries([...u].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, formatQuantity(v)]));
}

/** `k=v,k=v` in name order (kube's prettyPrint). */
export function prettyPrint(u: Usage | Record<string, string>, names: string[]): string {
  const get = (k: string) => (u instanceof Map ? formatQuantity(u.get(k) ?? ZERO) : (u[k] ?? '0'));
  return [...names]
    .sort()
    .map((k) => `${k}=${get(k)}`)
    .join(',');
}

/** `a + b`, name by name. */
export function addUsage(a: Usage, b: Usage): Usage {
  const out: Usage = new Map(a);
  for (const [k, v] of b) add(out, k, v);
  return out;
}
