// The simulated cluster network as seen from inside a container: cluster DNS
// (Service names -> ClusterIP, as CoreDNS answers with the Pod's search
// path), and HTTP through a Service to one of its ready Endpoints, or to a
// Pod IP. A wrong selector (no endpoints), a wrong port or a name that does
// not exist fails as it would on a real cluster. The answering container is
// simulated from its image (nginx's welcome page, http-echo's -text, ...).
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';

/** Lookups the network needs (informer caches). */
export interface NetSource {
  service(namespace: string, name: string): Service | undefined;
  endpoints(namespace: string, name: string): Endpoints | undefined;
  serviceByIP(ip: string): Service | undefined;
  podByIP(ip: string): Pod | undefined;
  pod(namespace: string, name: string): Pod | undefined;
}

/** A name resolved by cluster DNS. */
export interface Resolved {
  fqdn: string;
  ip: string;
  service?: Service;
}

/**
 * A ready endpoint. Its port is the Endpoints' port, else the Service's
 * targetPort as written (a named port stays a name, which no container port
 * equals).
 */
interface Backend {
  ip: string;
  port: number | string;
  pod?: { namespace: string; name: string };
}

/** The outcome of an HTTP request. */
export type HttpResult = { ok: true; body: string; status: number } | { ok: false; error: 'resolve' | 'refused' | 'timeout'; ip?: string };

const CLUSTER_DOMAIN = 'cluster.local';

/** The cluster network for Pods of one namespace. */
export class ClusterNet {
  constructor(
    private readonly src: NetSource,
    private readonly namespace: string,
  ) {}

  /** Resolves a host name with the Pod's DNS search path (ns.svc.cluster.local, svc.cluster.local, cluster.local). */
  resolve(host: string): Resolved | undefined {
    if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return { fqdn: host, ip: host, service: this.src.serviceByIP(host) };
    const h = host.replace(/\.$/, '');
    const parts = h.split('.');
    let name: string | undefined;
    let ns: string | undefined;
    if (parts.length === 1) [name, ns] = [parts[0], this.namespace];
    else if (parts.length === 2 || (parts[2] === 'svc' && (parts.length === 3 || h.endsWith(`.svc.${CLUSTER_DOMAIN}`))))
      [name, ns] = [parts[0], parts[1]];
    if (h === 'kubernetes' || h === 'kubernetes.default' || h.startsWith('kubernetes.default.svc'))
      return { fqdn: `kubernetes.default.svc.${CLUSTER_DOMAIN}`, ip: '10.96.0.1' };
    if (!name || !ns) return undefined;
    const svc = this.src.service(ns, name);
    if (!svc) return undefined;
    const ip = svc.spec?.clusterIP && svc.spec.clusterIP !== 'None' ? svc.spec.clusterIP : this.readyAddresses(svc, undefined)[0]?.ip;
    if (!ip) return undefined;
    return { fqdn: `${name}.${ns}.svc.${CLUSTER_DOMAIN}`, ip, service: svc };
  }

  private readyAddresses(svc: Service, port: number | undefined): Backend[] {
    const ep = this.src.endpoints(svc.metadata!.namespace!, svc.metadata!.name!);
    const out: Backend[] = [];
    const svcPort = port === undefined ? svc.spec?.ports?.[0] : svc.spec?.ports?.find((p) => p.port === port);
    if (port !== undefined && !svcPort) return [];
    for (const subset of ep?.subsets ?? []) {
      const epPort = (subset.ports ?? []).find((p) => !svcPort?.name || p.name === svcPort.name) ?? subset.ports?.[0];
      for (const a of subset.addresses ?? [])
        out.push({
          ip: a.ip,
          port: epPort?.port ?? svcPort?.targetPort ?? 80,
          pod: a.targetRef ? { namespace: a.targetRef.namespace ?? '', name: a.targetRef.name ?? '' } : undefined,
        });
    }
    return out;
  }

  /** GET url: through a Service's ClusterIP to a ready endpoint, or to a Pod IP. */
  httpGet(url: string, pick = 0): HttpResult {
    let u: URL;
    try {
      u = new URL(/^[a-z]+:\/\//.test(url) ? url : `http://${url}`);
    } catch {
      return { ok: false, error: 'resolve' };
    }
    const r = this.resolve(u.hostname);
    if (!r) return { ok: false, error: 'resolve' };
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    if (r.ip === '10.96.0.1')
      return {
        ok: true,
        status: 403,
        body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"system:anonymous\\" cannot get path \\"/\\"","reason":"Forbidden","details":{},"code":403}\n',
      };
    if (r.service) {
      const backends = this.readyAddresses(r.service, port);
      if (backends.length === 0) return { ok: false, error: 'refused', ip: r.ip };
      const b = backends[pick % backends.length];
      const pod = b.pod ? this.src.pod(b.pod.namespace, b.pod.name) : this.src.podByIP(b.ip);
      return this.answer(pod, b.port, u.pathname, r.ip);
    }
    return this.answer(this.src.podByIP(r.ip), port, u.pathname, r.ip);
  }

  private answer(pod: Pod | undefined, port: number | string, path: string, ip: string): HttpResult {
    if (!pod || pod.status?.phase !== 'Running') return { ok: false, error: 'refused', ip };
    // A container running its image's own server listens; one running a command (a shell) does not.
    const c = pod.spec?.containers.find((x) => !x.command?.length && (!x.ports?.length || x.ports.some((p) => p.containerPort === port)));
    if (!c) return { ok: false, error: 'refused', ip };
    const image = c.image ?? '';
    const text = c.args?.find((a) => a.startsWith('-text='))?.slice(6);
    if (text !== undefined) return { ok: true, status: 200, body: text + '\n' };
    if (/nginx/.test(image))
      return path === '/' || path === '/index.html'
        ? { ok: true, status: 200, body: NGINX_WELCOME }
        : { ok: true, status: 404, body: nginx404 };
    if (/httpd/.test(image)) return { ok: true, status: 200, body: '<html><body><h1>It works!</h1></body></html>\n' };
    return { ok: true, status: 200, body: `${pod.metadata?.name}\n` };
  }
}

const nginx404 =
  '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

const NGINX_WELCOME = `<!DOCTYPE html>
<html>
<head>
<title>Welcome to nginx!</title>
</head>
<body>
<h1>Welcome to nginx!</h1>
<p>If you see this page, the nginx web server is successfully installed and
working. Further configuration is required.</p>

<p><em>Thank you for using nginx.</em></p>
</body>
</html>
`;
