// What the Endpoints and EndpointSlice controllers both need to know about
// Pods and Services (kube keeps it in k8s.io/endpointslice/util): which Pods
// belong in endpoints at all, readiness, Pod IPs by family, resolving a
// Service port's targetPort in one Pod, and which Pod changes matter.
import { isIP } from 'node:net';
import type { Pod, Service, ServicePort } from 'kubernetes-types/core/v1.js';
import type { EventHandlers } from '../../../shared/informer/informer.ts';
import { matchesLabels, selectorFromSet } from '../../../shared/labels/label-selector.ts';

/** The annotation both controllers set to the time of the change that caused a write. */
export const LAST_CHANGE_TRIGGER_TIME = 'endpoints.kubernetes.io/last-change-trigger-time';
/** The label kube puts on the Endpoints and EndpointSlices of a Service without a cluster IP. */
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';

/** True when the Service gets endpoints from a controller: it has a (non-empty) selector and is not ExternalName. */
export function managesService(svc: Service): boolean {
  // An empty selector map does not survive kube's wire format (omitempty), so it counts as none.
  return svc.spec?.type !== 'ExternalName' && Object.keys(svc.spec?.selector ?? {}).length > 0;
}

/** True when `svc`'s selector matches `pod` (same namespace, selector set). */
export function serviceSelects(svc: Service, pod: Pod): boolean {
  if (svc.metadata?.namespace !== pod.metadata?.namespace) return false;
  if (!managesService(svc)) return false;
  return matchesLabels(selectorFromSet(svc.spec!.selector), pod.metadata?.labels);
}

/** podutil.IsPodReady: the Ready condition is True. */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/** podutil.IsPodTerminal: Succeeded or Failed. */
export function isPodTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** status.podIPs, or podIP alone (kube's conversion fills podIPs from podIP). */
export function podIPs(pod: Pod): string[] {
  const many = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip): ip is string => !!ip);
  if (many.length > 0) return many;
  return pod.status?.podIP ? [pod.status.podIP] : [];
}

/** ShouldPodBeInEndpoints: not terminal, has an IP, and not terminating unless `includeTerminating`. */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if (podIPs(pod).length === 0) return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp) return false;
  return true;
}

/** True for an IPv6 address (anything else counts as IPv4, as utilnet does). */
export function isIPv6(ip: string): boolean {
  return isIP(ip) === 6;
}

/** helper.IsServiceIPSet: a cluster IP that is neither empty nor "None". */
export function isServiceIPSet(svc: Service): boolean {
  const ip = svc.spec?.clusterIP;
  return !!ip && ip !== 'None';
}

/** ShouldSetHostname: the Pod asked for a hostname in the subdomain named like the Service. */
export function shouldSetHostname(pod: Pod, svc: Service): boolean {
  return !!pod.spec?.hostname && pod.spec.subdomain === svc.metadata?.name && pod.metadata?.namespace === svc.metadata?.namespace;
}

/**
 * FindPort: a numeric targetPort is used as is (the service port when
 * unset); a named one is looked up among this Pod's container ports (and
 * sidecar init containers) with the same protocol. Undefined when the Pod
 * has no such port.
 */
export function findPort(pod: Pod, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target === 0 ? sp.port : target;
  const protocol = sp.protocol ?? 'TCP';
  const sidecars = (pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always');
  for (const c of [...(pod.spec?.containers ?? []), ...sidecars]) {
    for (const p of c.ports ?? []) if (p.name === target && (p.protocol ?? 'TCP') === protocol) return p.containerPort;
  }
  return undefined;
}

/**
 * podEndpointsChanged: whether a Pod update can change endpoints
 * (`changed`) and whether it can change which Services select it
 * (`labelsChanged`, which also covers hostname and subdomain).
 */
export function podEndpointsChanged(oldPod: Pod, newPod: Pod): { changed: boolean; labelsChanged: boolean } {
  const labelsChanged =
    JSON.stringify(sorted(oldPod.metadata?.labels)) !== JSON.stringify(sorted(newPod.metadata?.labels)) ||
    oldPod.spec?.hostname !== newPod.spec?.hostname ||
    oldPod.spec?.subdomain !== newPod.spec?.subdomain;
  const changed =
    !!oldPod.metadata?.deletionTimestamp !== !!newPod.metadata?.deletionTimestamp ||
    isPodReady(oldPod) !== isPodReady(newPod) ||
    isPodTerminal(oldPod) !== isPodTerminal(newPod) ||
    podIPs(oldPod).join(',') !== podIPs(newPod).join(',') ||
    oldPod.spec?.nodeName !== newPod.spec?.nodeName;
  return { changed, labelsChanged };
}

function sorted(m: Record<string, string> | undefined): [string, string][] {
  return Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Go's time.RFC3339Nano of a UTC instant: fractional seconds only when non-zero, trailing zeros trimmed. */
export function formatRFC3339Nano(ms: number): string {
  const iso = new Date(ms).toISOString();
  const [base, frac] = iso.slice(0, -1).split('.');
  const trimmed = (frac ?? '').replace(/0+$/, '');
  return trimmed ? `${base}.${trimmed}Z` : `${base}Z`;
}

/**
 * Wires the Service and Pod informers of an endpoints-style controller to its
 * queue of Service keys: a Service change queues it; a Pod change that
 * matters for endpoints queues every Service selecting the Pod (before and
 * after a label change). Shared by the endpoints and endpointslice controllers.
 */
export function queueServicesForPods(
  queue: { add(key: string): void },
  svcInformer: { cache: { byIndex(index: string, value: string): Service[] }; on(h: EventHandlers<Service>): void },
  podInformer: { on(h: EventHandlers<Pod>): void },
  keyOf: (obj: Service) => string,
): (pod: Pod) => string[] {
  const servicesOf = (pod: Pod): string[] =>
    svcInformer.cache
      .byIndex('namespace', pod.metadata?.namespace ?? '')
      .filter((svc) => serviceSelects(svc, pod))
      .map((svc) => keyOf(svc));
  svcInformer.on({
    add: (svc: Service) => queue.add(keyOf(svc)),
    update: (_old: Service, svc: Service) => queue.add(keyOf(svc)),
    delete: (svc: Service) => queue.add(keyOf(svc)),
  });
  podInformer.on({
    add: (pod: Pod) => servicesOf(pod).forEach((k) => queue.add(k)),
    update: (old: Pod, pod: Pod) => {
      if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
      const { changed, labelsChanged } = podEndpointsChanged(old, pod);
      if (!changed && !labelsChanged) return;
      const keys = new Set(servicesOf(pod));
      if (labelsChanged) for (const k of servicesOf(old)) keys.add(k);
      for (const k of keys) queue.add(k);
    },
    delete: (pod: Pod) => servicesOf(pod).forEach((k) => queue.add(k)),
  });
  return servicesOf;
}
