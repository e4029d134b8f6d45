// ClusterIP and NodePort allocation for Services, done by the apiserver as
// kube's service registry does: a free IP from the service CIDR for each
// ClusterIP Service, a free port in 30000-32767 for each NodePort /
// LoadBalancer port, with user-chosen values checked against what is taken.
// A dry run is answered with the addresses it would get, holding none.
import type { Service } from 'kubernetes-types/core/v1.js';
import { fieldError, invalid } from '../../shared/api/errors.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { AdmissionPlugin, Operation } from './types.ts';

/** Where Services get their addresses. */
export interface ServiceRanges {
  /** IPv4 CIDR, e.g. "10.96.0.0/12". */
  serviceCIDR: string;
  nodePortMin: number;
  nodePortMax: number;
}

export const DEFAULT_SERVICE_RANGES: ServiceRanges = { serviceCIDR: '10.96.0.0/12', nodePortMin: 30000, nodePortMax: 32767 };

function ipToInt(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

const needsClusterIP = (svc: Service) => (svc.spec?.type ?? 'ClusterIP') !== 'ExternalName';
const needsNodePorts = (svc: Service) => svc.spec?.type === 'NodePort' || svc.spec?.type === 'LoadBalancer';

/** The allocation plugin; `existing` seeds what stored Services already hold. */
export function serviceAllocation(ranges: ServiceRanges, existing: Iterable<Service>): AdmissionPlugin {
  const [base, bits] = ranges.serviceCIDR.split('/');
  const first = ipToInt(base)!;
  const size = 2 ** (32 - Number(bits));
  const ips = new Set<number>();
  const ports = new Set<number>();
  let nextIp = 10;
  let nextPort = ranges.nodePortMin;
  for (const svc of existing) hold(svc);

  function hold(svc: Service): void {
    for (const ip of svc.spec?.clusterIPs ?? (svc.spec?.clusterIP ? [svc.spec.clusterIP] : [])) {
      const n = ipToInt(ip);
      if (n !== undefined) ips.add(n);
    }
    for (const p of svc.spec?.ports ?? []) if (p.nodePort) ports.add(p.nodePort);
  }

  function freeIp(): number | undefined {
    // Skip the network address and .1 (the kubernetes Service) on the first pass, as kube's offset does.
    for (let i = 0; i < size - 2; i++) {
      const candidate = first + 1 + ((nextIp + i) % (size - 2));
      if (!ips.has(candidate)) {
        nextIp = (nextIp + i + 1) % (size - 2);
        return candidate;
      }
    }
    return undefined;
  }

  function freePort(): number | undefined {
    const span = ranges.nodePortMax - ranges.nodePortMin + 1;
    for (let i = 0; i < span; i++) {
      const candidate = ranges.nodePortMin + ((nextPort - ranges.nodePortMin + i) % span);
      if (!ports.has(candidate)) {
        nextPort = candidate + 1;
        return candidate;
      }
    }
    return undefined;
  }

  function allocate(op: Operation, svc: Service, old: Service | undefined, commit: boolean): void {
    const name = svc.metadata?.name ?? '';
    const fail = (e: ReturnType<typeof fieldError.invalid>) => invalid('Service', '', name, [e]);
    const spec = (svc.spec ??= {});
    const oldIPs = old?.spec?.clusterIPs ?? [];
    // ClusterIP: immutable once set, allocated when asked for and missing.
    if (op === 'UPDATE' && oldIPs.length && needsClusterIP(svc)) {
      if (spec.clusterIP && spec.clusterIP !== oldIPs[0]) {
        throw fail(fieldError.invalid('spec.clusterIPs[0]', [spec.clusterIP], 'may not change once set'));
      }
      spec.clusterIP = oldIPs[0];
      spec.clusterIPs = oldIPs;
    } else if (needsClusterIP(svc)) {
      const want = spec.clusterIP || spec.clusterIPs?.[0];
      if (want === 'None') {
        spec.clusterIP = 'None';
        spec.clusterIPs = ['None'];
      } else if (want) {
        const n = ipToInt(want);
        if (n === undefined || n < first || n >= first + size) {
          throw fail(
            fieldError.invalid(
              'spec.clusterIPs',
              [want],
              `failed to allocate IP ${want}: the provided IP (${want}) is not in the valid range. The range of valid IPs is ${ranges.serviceCIDR}`,
            ),
          );
        }
        if (ips.has(n))
          throw fail(fieldError.invalid('spec.clusterIPs', [want], `failed to allocate IP ${want}: provided IP is already allocated`));
        if (commit) ips.add(n);
        spec.clusterIP = want;
        spec.clusterIPs = [want];
      } else {
        const n = freeIp();
        if (n === undefined) throw fail(fieldError.invalid('spec.clusterIPs', [], `failed to allocate a serviceIP: range is full`));
        if (commit) ips.add(n);
        spec.clusterIP = intToIp(n);
        spec.clusterIPs = [spec.clusterIP];
      }
      spec.ipFamilies ??= ['IPv4'];
      spec.ipFamilyPolicy ??= 'SingleStack';
    }
    // NodePorts: kept when already held by this Service, checked when chosen, allocated when missing.
    const held = new Set((old?.spec?.ports ?? []).map((p) => p.nodePort).filter((n): n is number => Boolean(n)));
    if (needsNodePorts(svc)) {
      (spec.ports ?? []).forEach((p, i) => {
        if (p.nodePort) {
          if (held.has(p.nodePort)) return;
          if (p.nodePort < ranges.nodePortMin || p.nodePort > ranges.nodePortMax) {
            throw fail(
              fieldError.invalid(
                `spec.ports[${i}].nodePort`,
                p.nodePort,
                `provided port is not in the valid range. The range of valid ports is ${ranges.nodePortMin}-${ranges.nodePortMax}`,
              ),
            );
          }
          if (ports.has(p.nodePort))
            throw fail(fieldError.invalid(`spec.ports[${i}].nodePort`, p.nodePort, 'provided port is already allocated'));
          if (commit) ports.add(p.nodePort);
        } else {
          const port = freePort();
          if (port === undefined) throw fail(fieldError.invalid(`spec.ports[${i}].nodePort`, 0, 'range is full'));
          if (commit) ports.add(port);
          p.nodePort = port;
        }
      });
    } else {
      for (const p of spec.ports ?? []) delete p.nodePort;
    }
    // Release what the old version held and the new one does not (a dry run holds and releases nothing).
    if (!commit) return;
    const nowPorts = new Set((spec.ports ?? []).map((p) => p.nodePort).filter((n): n is number => Boolean(n)));
    for (const p of held) if (!nowPorts.has(p)) ports.delete(p);
    if (!needsClusterIP(svc)) for (const ip of oldIPs) ips.delete(ipToInt(ip)!);
  }

  const isService = (rt: ResourceType) => rt.group === '' && rt.plural === 'services';
  return {
    name: 'ServiceAllocation',
    // The allocation maps must change atomically with the write that takes or frees an address.
    transactional: true,
    appliesTo: isService,
    admit(op, rt, obj, old, attrs) {
      if (isService(rt)) allocate(op, obj as Service, old as Service | undefined, !attrs?.dryRun);
    },
    deleted(rt, obj) {
      if (!isService(rt)) return;
      const svc = obj as Service;
      for (const ip of svc.spec?.clusterIPs ?? []) {
        const n = ipToInt(ip);
        if (n !== undefined) ips.delete(n);
      }
      for (const p of svc.spec?.ports ?? []) if (p.nodePort) ports.delete(p.nodePort);
    },
  };
}
