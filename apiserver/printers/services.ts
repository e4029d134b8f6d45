// Service and Endpoints printing: Type, Cluster-IP, External-IP ("<none>",
// "<pending>", load-balancer ingress), Port(s) "80/TCP,443:30001/TCP", the
// wide Selector; Endpoints "ip:port,... + N more...".
import type { Endpoints, Service } from 'kubernetes-types/core/v1.js';
import { since } from './duration.ts';
import { compareBytes } from '../../shared/labels/requirement.ts';
import { formatLabels, int, joinHostPort } from './format.ts';
import { ageColumn, column, nameColumn, wide } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

/** loadBalancerStatusStringer with wide=true (the server always prints wide, so nothing is clipped). */
function loadBalancerIngress(svc: Service): string {
  const seen = new Set<string>();
  for (const ing of svc.status?.loadBalancer?.ingress ?? []) {
    if (ing.ip) seen.add(ing.ip);
    else if (ing.hostname) seen.add(ing.hostname);
  }
  return [...seen].sort(compareBytes).join(',');
}

/** getServiceExternalIP. A missing type is treated as ClusterIP, kube's default. */
export function serviceExternalIP(svc: Service): string {
  const externalIPs = svc.spec?.externalIPs ?? [];
  switch (svc.spec?.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerIngress(svc);
      if (externalIPs.length > 0) return [...(lb ? lb.split(',') : []), ...externalIPs].join(',');
      return lb || '<pending>';
    }
    case 'ExternalName':
      return svc.spec?.externalName ?? '';
  }
  return '<unknown>';
}

/** makePortString: "port/PROTO", or "port:nodePort/PROTO" when a node port is allocated. */
export function servicePorts(svc: Service): string {
  const pieces = (svc.spec?.ports ?? []).map((p) => {
    const proto = p.protocol ?? 'TCP';
    return int(p.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${proto}` : `${int(p.port)}/${proto}`;
  });
  return pieces.join(',') || '<none>';
}

/** Service: Name, Type, Cluster-IP, External-IP, Port(s), Age; wide Selector. */
export const servicePrinter: Printer<Service> = {
  columns: [
    nameColumn(),
    column('Type', 'string', 'How the service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.'),
    column('Cluster-IP', 'string', 'The first cluster IP allocated to the service.'),
    column('External-IP', 'string', 'External IPs and load-balancer ingress points.'),
    column('Port(s)', 'string', 'Service ports, with node ports where allocated.'),
    ageColumn(),
    wide(column('Selector', 'string', 'The label selector that picks the backing pods.')),
  ],
  row(svc: Service, ctx: PrintContext): PrintedRow {
    // kube's registry always fills clusterIPs from clusterIP; fall back for objects stored without it.
    const clusterIP = svc.spec?.clusterIPs?.[0] || svc.spec?.clusterIP || '<none>';
    return {
      cells: [
        svc.metadata?.name ?? '',
        svc.spec?.type ?? 'ClusterIP',
        clusterIP,
        serviceExternalIP(svc),
        servicePorts(svc),
        since(svc.metadata?.creationTimestamp, ctx.now),
        formatLabels(svc.spec?.selector),
      ],
    };
  },
};

/** formatEndpoints with all ports: the first three "ip:port" (or bare ip) and "+ N more...". */
export function formatEndpoints(ep: Endpoints): string {
  const subsets = ep.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let more = false;
  let count = 0;
  for (const ss of subsets) {
    const addresses = ss.addresses ?? [];
    const ports = ss.ports ?? [];
    if (ports.length === 0) {
      // Headless services may have no ports.
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(a.ip);
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const a of addresses) {
        if (list.length === max) {
          more = true;
          break;
        }
        list.push(joinHostPort(a.ip, int(port.port)));
      }
    }
  }
  const ret = list.join(',');
  return more ? `${ret} + ${count - max} more...` : ret;
}

/** Endpoints: Name, Endpoints, Age. */
export const endpointsPrinter: Printer<Endpoints> = {
  columns: [nameColumn(), column('Endpoints', 'string', 'Ready endpoint addresses (ip:port).'), ageColumn()],
  row(ep: Endpoints, ctx: PrintContext): PrintedRow {
    return { cells: [ep.metadata?.name ?? '', formatEndpoints(ep), since(ep.metadata?.creationTimestamp, ctx.now)] };
  },
};
