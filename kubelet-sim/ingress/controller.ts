// ksim's ingress-nginx: the simulated ingress controller kubelet-sim runs. It
// answers HTTP at the Ingresses' address (INGRESS_IP, from Pods) and on a
// real TCP port of the host, chooses the backend as routes.ts does, and
// proxies to one of that Service's ready endpoints through the simulated
// network as the controller's Pod (so NetworkPolicies apply to it), with
// nginx's own error pages: 404 from the default server, 503 when the
// Service has no endpoint, 502 when the endpoint refuses, 504 when a policy
// drops the connection.
import type { Ingress, IngressClass } from 'kubernetes-types/networking/v1.js';
import { ClusterNet, INGRESS_IP, INGRESS_POD, type IngressEndpoint, type NetSource } from '../runtime/cluster-net.ts';
import type { HttpRequest, HttpResponse, SimNetwork } from '../runtime/images/network.ts';
import { isOurs, route } from './routes.ts';

const REASONS: Record<number, string> = {
  404: 'Not Found',
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
};

/** nginx's built-in error page. */
export function nginxErrorPage(status: number): HttpResponse {
  const title = `${status} ${REASONS[status] ?? 'Error'}`;
  return {
    status,
    body: `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
    headers: { 'content-type': 'text/html' },
  };
}

/** What the controller reads: its Ingresses and IngressClasses (informer caches) and the cluster network. */
export interface IngressSource {
  ingresses(): Ingress[];
  classes(): IngressClass[];
  net: NetSource;
  /** Where the backends listen (default: this process's network). */
  network?: SimNetwork;
}

/** See the file comment. */
export class IngressController implements IngressEndpoint {
  constructor(private readonly src: IngressSource) {}

  /** Answers one request that reached the controller (Host header and path decide). */
  http(req: HttpRequest): HttpResponse {
    const r = route(this.src.ingresses(), this.src.classes(), req.host, req.path);
    const svc = r?.backend.service;
    if (!r || !svc?.name) return nginxErrorPage(404);
    const namespace = r.ingress.metadata?.namespace ?? 'default';
    const net = new ClusterNet(this.src.net, namespace, {
      clientIP: INGRESS_IP,
      network: this.src.network,
      self: {
        ip: INGRESS_IP,
        pod: {
          ...INGRESS_POD,
          namespaceLabels: {
            'kubernetes.io/metadata.name': INGRESS_POD.namespace,
            ...(this.src.net.namespace?.(INGRESS_POD.namespace)?.metadata?.labels ?? {}),
          },
        },
      },
    });
    const port = svc.port?.name || svc.port?.number || 80;
    // nginx passes the client's Host header and address on (X-Forwarded-For); the backend sees the path, rewritten or not.
    const res = net.proxyToService(namespace, svc.name, port, { ...req, path: r.path });
    if (res.ok) return { status: res.status, body: res.body };
    return nginxErrorPage(res.error === 'timeout' ? 504 : res.error === 'refused' && res.ip ? 502 : 503);
  }

  /** The address the controller publishes in its Ingresses' status. */
  get address(): string {
    return INGRESS_IP;
  }

  /** Whether the controller serves this Ingress. */
  serves(ing: Ingress): boolean {
    return isOurs(ing, this.src.classes());
  }
}
