// The Endpoints controller's decisions, as kube's endpoint controller makes
// them, as pure functions: the subsets of a Service's Endpoints from the Pods
// its selector matches (ready Pods in `addresses`, the others in
// `notReadyAddresses`, ports resolved per Pod), repacked into kube's
// canonical form so that the same Pods always give the same object, and
// whether the Endpoints must be created, updated or left alone.
import type { EndpointAddress, EndpointPort, Endpoints, EndpointSubset, Pod, Service } from 'kubernetes-types/core/v1.js';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import {
  findPort,
  formatRFC3339Nano,
  HEADLESS_LABEL,
  isIPv6,
  isPodReady,
  isServiceIPSet,
  LAST_CHANGE_TRIGGER_TIME,
  podIPs,
  shouldPodBeInEndpoints,
  shouldSetHostname,
} from '../endpointslice/util.ts';

/** The label kube (1.33+) puts on the Endpoints this controller manages, and its value. */
export const LABEL_MANAGED_BY = 'endpoints.kubernetes.io/managed-by';
export const CONTROLLER_NAME = 'endpoint-controller';
/** Set when the addresses were cut to MAX_CAPACITY. */
export const OVER_CAPACITY = 'endpoints.kubernetes.io/over-capacity';
/** kube's maxCapacity: the most addresses one Endpoints object carries. */
export const MAX_CAPACITY = 1000;

/** podToEndpointAddressForService: the Pod's IP of the Service's (first) family, its node and a reference to it. */
export function podAddress(svc: Service, pod: Pod): EndpointAddress | undefined {
  let v6: boolean;
  if (svc.spec?.ipFamilies?.length) v6 = svc.spec.ipFamilies[0] === 'IPv6';
  else if (isServiceIPSet(svc)) v6 = isIPv6(svc.spec!.clusterIP!);
  else v6 = isIPv6(pod.status?.podIP ?? '');
  const ip = podIPs(pod).find((a) => isIPv6(a) === v6);
  if (!ip) return undefined;
  const addr: EndpointAddress = { ip };
  if (shouldSetHostname(pod, svc)) addr.hostname = pod.spec!.hostname;
  if (pod.spec?.nodeName) addr.nodeName = pod.spec.nodeName;
  addr.targetRef = { kind: 'Pod', namespace: pod.metadata?.namespace, name: pod.metadata?.name, uid: pod.metadata?.uid };
  return addr;
}

/** The subsets for `svc` from the Pods its selector matches, repacked. */
export function computeSubsets(svc: Service, pods: readonly Pod[]): EndpointSubset[] {
  const publishNotReady = svc.spec?.publishNotReadyAddresses === true;
  const raw: EndpointSubset[] = [];
  const add = (pod: Pod, addr: EndpointAddress, port?: EndpointPort) => {
    const ports = port ? [port] : [];
    if (publishNotReady || isPodReady(pod)) raw.push({ addresses: [addr], ports });
    else raw.push({ notReadyAddresses: [addr], ports });
  };
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const addr = podAddress(svc, pod);
    if (!addr) continue;
    const svcPorts = svc.spec?.ports ?? [];
    if (svcPorts.length === 0) {
      // Only a headless Service may have no ports.
      if (svc.spec?.clusterIP === 'None') add(pod, addr);
      continue;
    }
    for (const sp of svcPorts) {
      const port = findPort(pod, sp);
      if (port === undefined) continue;
      add(pod, addr, {
        ...(sp.name ? { name: sp.name } : {}),
        port,
        protocol: sp.protocol ?? 'TCP',
        ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}),
      });
    }
  }
  return repackSubsets(raw);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const addrKey = (a: EndpointAddress) => `${a.ip}\u0000${a.targetRef?.uid ?? ''}`;
const portKey = (p: EndpointPort) => JSON.stringify([p.name ?? '', p.port, p.protocol ?? '', p.appProtocol ?? '']);
const NO_PORT = '(none)';

/**
 * RepackSubsets: expands subsets to (address, port, ready) and packs them
 * again, one subset per distinct set of addresses, with every port those
 * addresses share. An address not ready on one port is not ready on it.
 * Then SortSubsets: addresses by IP then UID, ports and subsets in a fixed order.
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const addrs = new Map<string, EndpointAddress>();
  const byPort = new Map<string, { port?: EndpointPort; ready: Map<string, boolean> }>();
  const note = (a: EndpointAddress, port: EndpointPort | undefined, ready: boolean) => {
    const k = addrKey(a);
    if (!addrs.has(k)) addrs.set(k, a);
    const pk = port ? portKey(port) : NO_PORT;
    let entry = byPort.get(pk);
    if (!entry) byPort.set(pk, (entry = { port, ready: new Map() }));
    const was = entry.ready.get(k);
    if (was === undefined || was) entry.ready.set(k, ready);
  };
  for (const ss of subsets) {
    const ports: (EndpointPort | undefined)[] = ss.ports?.length ? ss.ports : [undefined];
    for (const port of ports) {
      for (const a of ss.addresses ?? []) note(a, port, true);
      for (const a of ss.notReadyAddresses ?? []) note(a, port, false);
    }
  }
  const groups = new Map<string, { ready: Map<string, boolean>; ports: EndpointPort[] }>();
  for (const { port, ready } of byPort.values()) {
    const key = [...ready]
      .map(([k, r]) => `${k}\u0000${r}`)
      .sort()
      .join('\n');
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ready, ports: [] }));
    if (port) g.ports.push(port);
  }
  const byIpUid = (a: EndpointAddress, b: EndpointAddress) => cmp(a.ip, b.ip) || cmp(a.targetRef?.uid ?? '', b.targetRef?.uid ?? '');
  const out: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const ready: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [k, r] of g.ready) (r ? ready : notReady).push(addrs.get(k)!);
    const ss: EndpointSubset = {};
    if (ready.length) ss.addresses = ready.sort(byIpUid);
    if (notReady.length) ss.notReadyAddresses = notReady.sort(byIpUid);
    if (g.ports.length)
      ss.ports = g.ports.sort(
        (a, b) => cmp(a.name ?? '', b.name ?? '') || (a.port ?? 0) - (b.port ?? 0) || cmp(a.protocol ?? '', b.protocol ?? ''),
      );
    out.push(ss);
  }
  return out.sort((a, b) => cmp(JSON.stringify(a), JSON.stringify(b)));
}

/**
 * truncateEndpoints: cuts to MAX_CAPACITY addresses, not-ready ones first,
 * each subset keeping its share (rounded up). Returns whether it cut.
 */
export function truncateSubsets(subsets: EndpointSubset[]): boolean {
  let ready = 0;
  let notReady = 0;
  for (const ss of subsets) {
    ready += ss.addresses?.length ?? 0;
    notReady += ss.notReadyAddresses?.length ?? 0;
  }
  if (ready + notReady <= MAX_CAPACITY) return false;
  const cutReady = ready > MAX_CAPACITY;
  const max = cutReady ? MAX_CAPACITY : MAX_CAPACITY - ready;
  const total = cutReady ? ready : notReady;
  let room = max;
  for (const ss of subsets) {
    const n = (cutReady ? ss.addresses?.length : ss.notReadyAddresses?.length) ?? 0;
    const take = Math.min(Math.ceil((n / total) * max), room);
    if (cutReady) {
      ss.addresses = ss.addresses?.slice(0, take);
      delete ss.notReadyAddresses;
      room -= ss.addresses?.length ?? 0;
    } else {
      ss.notReadyAddresses = ss.notReadyAddresses?.slice(0, take);
      room -= ss.notReadyAddresses?.length ?? 0;
    }
    if (ss.addresses?.length === 0) delete ss.addresses;
    if (ss.notReadyAddresses?.length === 0) delete ss.notReadyAddresses;
  }
  return true;
}

/** The labels of a Service's Endpoints: the Service's, the managed-by label, and the headless label when it has no cluster IP. */
export function endpointsLabels(svc: Service): Record<string, string> {
  const labels: Record<string, string> = { ...svc.metadata?.labels };
  delete labels[HEADLESS_LABEL];
  labels[LABEL_MANAGED_BY] = CONTROLLER_NAME;
  if (!isServiceIPSet(svc)) labels[HEADLESS_LABEL] = '';
  return labels;
}

/** What to do with a Service's Endpoints. */
export type EndpointsPlan = { action: 'none' } | { action: 'create' | 'update'; endpoints: Endpoints };

/** Subsets as compared: a Pod's resourceVersion in a targetRef does not count (kube ignores it too). */
function comparable(subsets: readonly EndpointSubset[] | undefined | null): unknown {
  const strip = (as?: EndpointAddress[]) =>
    as?.map((a) => (a.targetRef ? { ...a, targetRef: { ...a.targetRef, resourceVersion: undefined } } : a));
  return (subsets ?? []).map((ss) => ({ ...ss, addresses: strip(ss.addresses), notReadyAddresses: strip(ss.notReadyAddresses) }));
}

/**
 * Plans one sync of the Endpoints of `svc` (which has a selector), given
 * the matching Pods, the current Endpoints if any and the trigger time
 * (epoch ms) for the annotation. Unchanged subsets and labels (and a correct
 * over-capacity annotation) mean no write.
 */
export function planEndpoints(svc: Service, pods: readonly Pod[], current: Endpoints | undefined, triggerTime?: number): EndpointsPlan {
  const subsets = computeSubsets(svc, pods);
  const truncated = truncateSubsets(subsets);
  const labels = endpointsLabels(svc);
  if (current) {
    const annotated = current.metadata?.annotations?.[OVER_CAPACITY] !== undefined;
    if (
      deepEqual(comparable(current.subsets), comparable(subsets)) &&
      deepEqual(current.metadata?.labels ?? {}, labels) &&
      annotated === truncated
    )
      return { action: 'none' };
  }
  const next: Endpoints = current
    ? structuredClone(current)
    : { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: svc.metadata?.name, namespace: svc.metadata?.namespace } };
  next.apiVersion = 'v1';
  next.kind = 'Endpoints';
  const meta = next.metadata!;
  meta.labels = labels;
  const annotations = { ...meta.annotations };
  if (triggerTime !== undefined) annotations[LAST_CHANGE_TRIGGER_TIME] = formatRFC3339Nano(triggerTime);
  else delete annotations[LAST_CHANGE_TRIGGER_TIME];
  if (truncated) annotations[OVER_CAPACITY] = 'truncated';
  else delete annotations[OVER_CAPACITY];
  if (Object.keys(annotations).length > 0) meta.annotations = annotations;
  else delete meta.annotations;
  if (subsets.length > 0) next.subsets = subsets;
  else delete next.subsets;
  return { action: current ? 'update' : 'create', endpoints: next };
}
