// The EndpointSlice controller's decisions, as kube's endpointslice
// reconciler makes them, as a pure function: from a Service, the Pods its
// selector matches, the Nodes and the slices that exist, which slices to
// create, update and delete. One group of slices per address type and per
// distinct port mapping (a named targetPort can resolve differently per Pod),
// at most maxEndpointsPerSlice endpoints per slice, existing slices updated
// in place and filled before new ones are made, a placeholder slice when
// there are no endpoints, and nothing at all when nothing changed.
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { Endpoint, EndpointPort, EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import { findPort, HEADLESS_LABEL, isIPv6, isPodReady, isServiceIPSet, podIPs, shouldPodBeInEndpoints, shouldSetHostname } from './util.ts';

/** The managed-by value of the slices this controller owns. */
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
/** kube's --max-endpoints-per-slice default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;
const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** What a sync knows. */
export interface SliceInput {
  service: Service;
  pods: readonly Pod[];
  /** The Node of that name, if the cache has it. */
  node: (name: string) => Node | undefined;
  /** The slices labelled as this controller's for this Service. */
  existing: readonly EndpointSlice[];
  maxEndpointsPerSlice?: number;
}

/** What a sync does. */
export interface SlicePlan {
  /** New slices (metadata.generateName set, no name). */
  create: EndpointSlice[];
  /** Changed copies of existing slices (name and resourceVersion kept). */
  update: EndpointSlice[];
  delete: EndpointSlice[];
  /** Why Pods were left out (Node not found): the sync is to be retried, as kube does. */
  skipped: string[];
}

type AddressType = 'IPv4' | 'IPv6';

/** The address types of a Service's slices: its IP families, else its cluster IP's, else both. */
export function addressTypes(svc: Service): AddressType[] {
  const out = new Set<AddressType>();
  for (const f of svc.spec?.ipFamilies ?? []) if (f === 'IPv4' || f === 'IPv6') out.add(f);
  if (out.size > 0) return [...out];
  if (isServiceIPSet(svc)) return [isIPv6(svc.spec!.clusterIP!) ? 'IPv6' : 'IPv4'];
  return ['IPv4', 'IPv6'];
}

/** getEndpointPorts: the Service's ports as this Pod serves them; a port the Pod lacks is left out. */
export function endpointPorts(svc: Service, pod: Pod): EndpointPort[] {
  const out: EndpointPort[] = [];
  for (const sp of svc.spec?.ports ?? []) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    out.push({ name: sp.name ?? '', protocol: sp.protocol ?? 'TCP', port, ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
  }
  return out;
}

/** The identity of a port mapping, whatever the order of its ports. */
export function portMapKey(ports: readonly EndpointPort[] | undefined): string {
  return (ports ?? [])
    .map((p) => [p.name ?? '', p.protocol ?? '', p.port ?? '', p.appProtocol ?? ''].join('\u0000'))
    .sort()
    .join('\n');
}

/** podToEndpoint: one Pod's endpoint in a slice of `addressType`. */
export function podToEndpoint(pod: Pod, node: Node | undefined, svc: Service, addressType: AddressType): Endpoint {
  const serving = isPodReady(pod);
  const terminating = !!pod.metadata?.deletionTimestamp;
  // For compatibility, a terminating Pod is never "ready" unless the Service publishes not-ready addresses.
  const ready = svc.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const ep: Endpoint = {
    addresses: podIPs(pod).filter((ip) => isIPv6(ip) === (addressType === 'IPv6')),
    conditions: { ready, serving, terminating },
  };
  if (shouldSetHostname(pod, svc)) ep.hostname = pod.spec!.hostname;
  ep.targetRef = { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid };
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  const zone = node?.metadata?.labels?.[ZONE_LABEL];
  if (zone) ep.zone = zone;
  return ep;
}

/** Which endpoint this is: its addresses, hostname and Pod (kube's endpoint hash). */
function endpointKey(ep: Endpoint): string {
  return JSON.stringify([[...(ep.addresses ?? [])].sort(), ep.hostname ?? '', ep.targetRef?.namespace ?? '', ep.targetRef?.name ?? '']);
}

/** EndpointsEqualBeyondHash: the parts the key leaves out (conditions, node, zone, hints, Pod UID). */
function sameBeyondKey(a: Endpoint, b: Endpoint): boolean {
  const c = (e: Endpoint) => [e.conditions?.ready, e.conditions?.serving, e.conditions?.terminating];
  const ref = (e: Endpoint) => (e.targetRef ? { ...e.targetRef, resourceVersion: undefined } : undefined);
  return (
    deepEqual(c(a), c(b)) &&
    (a.nodeName ?? '') === (b.nodeName ?? '') &&
    (a.zone ?? '') === (b.zone ?? '') &&
    deepEqual(a.hints, b.hints) &&
    deepEqual(ref(a), ref(b))
  );
}

const RESERVED = new Set([LABEL_SERVICE_NAME, LABEL_MANAGED_BY, HEADLESS_LABEL]);

/** setEndpointSliceLabels: the Service's labels plus the reserved ones; `changed` compares only the unreserved. */
export function sliceLabels(
  current: Record<string, string> | undefined,
  svc: Service,
): { labels: Record<string, string>; changed: boolean } {
  const mine: Record<string, string> = {};
  for (const [k, v] of Object.entries(current ?? {})) if (!RESERVED.has(k)) mine[k] = v;
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata?.labels ?? {})) if (!RESERVED.has(k)) labels[k] = v;
  const changed = !deepEqual(mine, labels);
  if (!isServiceIPSet(svc)) labels[HEADLESS_LABEL] = '';
  labels[LABEL_SERVICE_NAME] = svc.metadata?.name ?? '';
  labels[LABEL_MANAGED_BY] = CONTROLLER_NAME;
  return { labels, changed };
}

/** ownedBy: the slice's owner references include this Service (by UID). */
export function ownedBy(slice: EndpointSlice, svc: Service): boolean {
  return (slice.metadata?.ownerReferences ?? []).some((o) => o.uid === svc.metadata?.uid && o.kind === 'Service' && o.apiVersion === 'v1');
}

/** newEndpointSlice: an empty slice for the Service, named `<service>-<random>` by the server. */
export function newSlice(svc: Service, ports: EndpointPort[], addressType: AddressType): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      generateName: `${svc.metadata?.name}-`,
      namespace: svc.metadata?.namespace,
      labels: sliceLabels({}, svc).labels,
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          name: svc.metadata?.name ?? '',
          uid: svc.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType,
    endpoints: [],
    ports,
  };
}

const byName = (a: EndpointSlice, b: EndpointSlice) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1);

/** Plans one sync of a Service's slices. */
export function planSlices(input: SliceInput): SlicePlan {
  const { service: svc } = input;
  const supported = addressTypes(svc);
  const plan: SlicePlan = { create: [], update: [], delete: [], skipped: [] };
  const byType = new Map<string, EndpointSlice[]>();
  // A slice stored with no endpoints may come back with `endpoints: null`.
  const existing = input.existing.map((s) => (Array.isArray(s.endpoints) ? s : { ...s, endpoints: [] }));
  for (const s of existing.sort(byName)) {
    if (!supported.includes(s.addressType as AddressType)) plan.delete.push(s);
    else byType.set(s.addressType, [...(byType.get(s.addressType) ?? []), s]);
  }
  for (const type of supported) {
    const p = planAddressType(input, type, byType.get(type) ?? []);
    plan.create.push(...p.create);
    plan.update.push(...p.update);
    plan.delete.push(...p.delete);
    for (const s of p.skipped) if (!plan.skipped.includes(s)) plan.skipped.push(s);
  }
  return plan;
}

function planAddressType(input: SliceInput, type: AddressType, existing: EndpointSlice[]): SlicePlan {
  const { service: svc } = input;
  const max = input.maxEndpointsPerSlice ?? MAX_ENDPOINTS_PER_SLICE;
  const skipped: string[] = [];
  let toCreate: EndpointSlice[] = [];
  const toUpdate: EndpointSlice[] = [];
  const toDelete: EndpointSlice[] = [];

  const existingByPorts = new Map<string, EndpointSlice[]>();
  for (const s of existing) {
    if (!ownedBy(s, svc)) {
      toDelete.push(s);
      continue;
    }
    const key = portMapKey(s.ports);
    existingByPorts.set(key, [...(existingByPorts.get(key) ?? []), s]);
  }

  const desired = new Map<string, { ports: EndpointPort[]; endpoints: Map<string, Endpoint> }>();
  const pods = [...input.pods].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports = endpointPorts(svc, pod);
    const key = portMapKey(ports);
    if (!desired.has(key)) desired.set(key, { ports, endpoints: new Map() });
    const nodeName = pod.spec?.nodeName ?? '';
    const node = nodeName ? input.node(nodeName) : undefined;
    if (!node && svc.spec?.publishNotReadyAddresses !== true) {
      // kube leaves the Pod out and retries, so a Pod naming a missing Node cannot wedge the slices.
      skipped.push(
        `skipping Pod ${pod.metadata?.name} for Service ${svc.metadata?.namespace}/${svc.metadata?.name}: Node ${nodeName} Not Found`,
      );
      continue;
    }
    const ep = podToEndpoint(pod, node, svc, type);
    if (ep.addresses.length > 0) desired.get(key)!.endpoints.set(endpointKey(ep), ep);
  }

  for (const [key, want] of desired) {
    const p = planPortMapping(svc, existingByPorts.get(key) ?? [], want.endpoints, want.ports, type, max);
    toCreate.push(...p.create);
    toUpdate.push(...p.update);
    toDelete.push(...p.delete);
  }
  for (const [key, slices] of existingByPorts) if (!desired.has(key)) toDelete.push(...slices);

  // With no endpoints at all, one empty placeholder slice stays (or is made).
  if (existing.length === toDelete.length && toCreate.length === 0) {
    const placeholder = newSlice(svc, [], type);
    if (toDelete.length === 1 && samePlaceholder(toDelete[0], placeholder)) toDelete.length = 0;
    else toCreate.push(placeholder);
  }

  // Rather than create one slice and delete another, reuse the one to delete.
  for (let i = 0; i < toDelete.length && toCreate.length > 0;) {
    const old = toDelete[i];
    if (old.addressType === type && ownedBy(old, svc)) {
      const fresh = toCreate[toCreate.length - 1];
      toCreate = toCreate.slice(0, -1);
      toUpdate.push({
        ...fresh,
        metadata: { ...fresh.metadata, name: old.metadata?.name, resourceVersion: old.metadata?.resourceVersion },
      });
      toDelete.splice(i, 1);
    } else i++;
  }
  return { create: toCreate, update: toUpdate, delete: toDelete, skipped };
}

/** placeholderSliceCompare: namespace, labels, address type, and no ports or endpoints. */
function samePlaceholder(a: EndpointSlice, b: EndpointSlice): boolean {
  return (
    a.metadata?.namespace === b.metadata?.namespace &&
    deepEqual(a.metadata?.labels ?? {}, b.metadata?.labels ?? {}) &&
    a.addressType === b.addressType &&
    (a.ports ?? []).length === 0 &&
    (b.ports ?? []).length === 0 &&
    (a.endpoints ?? []).length === 0 &&
    (b.endpoints ?? []).length === 0
  );
}

/** reconcileByPortMapping: the slices of one port mapping. `desired` is consumed. */
function planPortMapping(
  svc: Service,
  existing: EndpointSlice[],
  desired: Map<string, Endpoint>,
  ports: EndpointPort[],
  type: AddressType,
  max: number,
) {
  const changed = new Map<string, EndpointSlice>();
  const unchanged = new Map<string, EndpointSlice>();
  const toDelete: EndpointSlice[] = [];

  // 1. Keep the endpoints still wanted (refreshed), drop the others, fix labels.
  for (const slice of existing) {
    const name = slice.metadata?.name ?? '';
    const kept: Endpoint[] = [];
    let endpointChanged = false;
    for (const ep of slice.endpoints ?? []) {
      const key = endpointKey(ep);
      const want = desired.get(key);
      if (!want) continue;
      kept.push(want);
      if (!sameBeyondKey(want, ep)) endpointChanged = true;
      desired.delete(key);
    }
    const { labels, changed: labelsChanged } = sliceLabels(slice.metadata?.labels, svc);
    const count = (slice.endpoints ?? []).length;
    if (endpointChanged || count !== kept.length) {
      if (kept.length === 0) toDelete.push(slice);
      else changed.set(name, { ...structuredClone(slice), endpoints: kept, metadata: { ...structuredClone(slice.metadata), labels } });
    } else if (labelsChanged) {
      changed.set(name, { ...structuredClone(slice), metadata: { ...structuredClone(slice.metadata), labels } });
    } else unchanged.set(name, slice);
  }

  const remaining = [...desired.values()];
  // 2. Top up the slices being written anyway, fullest first.
  if (remaining.length > 0 && changed.size > 0) {
    const fullestFirst = [...changed.values()].sort((a, b) => b.endpoints.length - a.endpoints.length || byName(a, b));
    for (const slice of fullestFirst) while (remaining.length > 0 && slice.endpoints.length < max) slice.endpoints.push(remaining.shift()!);
  }

  // 3. Fit what is left into the unchanged slice it fills best, else into new slices.
  const toCreate: EndpointSlice[] = [];
  while (remaining.length > 0) {
    let target: EndpointSlice | undefined;
    if (remaining.length < max && unchanged.size > 0) {
      const pick = sliceToFill([...unchanged.values()], remaining.length, max);
      if (pick) {
        target = structuredClone(pick);
        unchanged.delete(pick.metadata?.name ?? '');
        changed.set(target.metadata?.name ?? '', target);
      }
    }
    if (!target) {
      target = newSlice(svc, ports, type);
      toCreate.push(target);
    }
    while (remaining.length > 0 && target.endpoints.length < max) target.endpoints.push(remaining.shift()!);
  }
  return { create: toCreate, update: [...changed.values()], delete: toDelete };
}

/** getSliceToFill: the slice that `n` more endpoints would bring closest to full, if any fits. */
function sliceToFill(slices: EndpointSlice[], n: number, max: number): EndpointSlice | undefined {
  let best: EndpointSlice | undefined;
  let bestGap = max;
  for (const s of slices) {
    const gap = max - (n + (s.endpoints ?? []).length);
    if (gap >= 0 && gap < bestGap) {
      best = s;
      bestGap = gap;
      if (gap === 0) break;
    }
  }
  return best;
}
