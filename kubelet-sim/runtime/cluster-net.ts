// The simulated cluster network as seen from inside a container: cluster DNS
// as CoreDNS answers it (Service names -> ClusterIP, a headless Service ->
// every ready Pod address, HOSTNAME.SUBDOMAIN.NS.svc.cluster.local from the
// Endpoints' hostname field, A-B-C-D.NS.pod.cluster.local, tried along the
// Pod's own resolv.conf search path and ndots), and HTTP or raw TCP through a
// Service to one of its ready endpoints, chosen as kube-proxy does (at
// random, or the same one again for a ClientIP-affine Service), or straight
// to a Pod IP. The answer comes from the process listening there (see
// images/network.ts); a wrong selector, a wrong port or a name that does not
// exist fails as it would on a real cluster. Every connection passes the
// NetworkPolicies as a policy-enforcing CNI applies them (after kube-proxy's
// DNAT): a dropped one is a 'timeout' (the client waits its own timeout), and
// a name is not resolved when the Pod may not reach cluster DNS. The ingress
// controller's address (INGRESS_IP) is answered by the NetSource's ingress.
import type { Endpoints, Namespace, Pod, PodDNSConfig, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import type { NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { PROCESS_NETWORK, type HttpRequest, type HttpResponse, type SimNetwork } from './images/network.ts';
import { answerFromSpec } from './images/servers.ts';
import { evaluate, type Connection, type Endpoint, type Verdict } from './network-policy/evaluate.ts';

/** Lookups the network needs (informer caches). */
export interface NetSource {
  service(namespace: string, name: string): Service | undefined;
  endpoints(namespace: string, name: string): Endpoints | undefined;
  serviceByIP(ip: string): Service | undefined;
  podByIP(ip: string): Pod | undefined;
  pod(namespace: string, name: string): Pod | undefined;
  /** The Service's EndpointSlices (label kubernetes.io/service-name), as CoreDNS and kube-proxy read them; without it, its Endpoints. */
  endpointSlices?(namespace: string, service: string): EndpointSlice[];
  /** The NetworkPolicies of a namespace (none: nothing is isolated). */
  networkPolicies?(namespace: string): NetworkPolicy[];
  /** A Namespace, for namespaceSelector. */
  namespace?(name: string): Namespace | undefined;
  /** The ingress controller answering at INGRESS_IP, when this process runs one. */
  ingress?(): IngressEndpoint | undefined;
}

/** What answers HTTP at the ingress controller's address (kubelet-sim/ingress/). */
export interface IngressEndpoint {
  /** Answers a request that reached the controller; `net` is the network as the controller's Pod sees it. */
  http(req: HttpRequest, port: number): HttpResponse | undefined;
}

/** Options of one request. */
export interface RequestOptions {
  /** Request headers (wget/curl --header); a Host header replaces the URL's host. */
  headers?: Record<string, string>;
}

/** A name resolved by cluster DNS. */
export interface Resolved {
  fqdn: string;
  /** The first address (the one a client connects to). */
  ip: string;
  /** Every A record, in the order this answer gave them. */
  ips: string[];
  service?: Service;
  /** The Service is headless: a client connects to a Pod address, not through kube-proxy. */
  headless?: boolean;
}

/** The resolver of one Pod (its /etc/resolv.conf). */
export interface DnsConfig {
  nameservers: string[];
  searches: string[];
  ndots: number;
}

/**
 * A ready endpoint. Its port is the Endpoints' port, else the Service's
 * targetPort as written (a named port stays a name, which no container port
 * equals).
 */
interface Backend {
  ip: string;
  port: number | string;
}

/** The outcome of an HTTP request. */
export type HttpResult = { ok: true; body: string; status: number } | { ok: false; error: 'resolve' | 'refused' | 'timeout'; ip?: string };

/** The outcome of a TCP exchange (nc). */
export type TcpResult = { ok: true; reply: string } | { ok: false; error: 'resolve' | 'refused' | 'timeout'; ip?: string };

const CLUSTER_DOMAIN = 'cluster.local';
/** The kube-dns Service's ClusterIP, which kubelet writes as the nameserver (its --cluster-dns). */
export const CLUSTER_DNS_IP = '10.96.0.10';
const KUBERNETES_SERVICE_IP = '10.96.0.1';
/**
 * The address ksim's ingress-nginx answers on (what its Ingresses' status shows): the first address of the
 * range kind's MetalLB guide gives to LoadBalancer Services on kind's 172.18.0.0/16 network.
 */
export const INGRESS_IP = '172.18.255.200';
/** ksim's ingress-nginx as a NetworkPolicy peer: the labels of ingress-nginx's controller Pod, in its namespace. */
export const INGRESS_POD = {
  namespace: 'ingress-nginx',
  labels: {
    'app.kubernetes.io/name': 'ingress-nginx',
    'app.kubernetes.io/instance': 'ingress-nginx',
    'app.kubernetes.io/component': 'controller',
  },
  ports: [
    { name: 'http', containerPort: 80, protocol: 'TCP' },
    { name: 'https', containerPort: 443, protocol: 'TCP' },
  ],
};
/** CoreDNS's container ports (kubeadm's manifest), for a DNS server that is not a known Pod. */
const DNS_PORTS = [
  { name: 'dns', containerPort: 53, protocol: 'UDP' },
  { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
  { name: 'metrics', containerPort: 9153, protocol: 'TCP' },
];
/** kube-proxy's default ClientIP affinity timeout (3 hours). */
const DEFAULT_AFFINITY_SECONDS = 10800;

/**
 * The resolv.conf kubelet writes for a Pod (kube's dns.Configurer): the
 * cluster DNS with the namespace's search path for ClusterFirst, the node's
 * resolver for Default (and for ClusterFirst on the host network), only
 * dnsConfig for None; dnsConfig's nameservers and searches are appended and
 * its options override by name.
 */
export function podDnsConfig(pod: Pod, nodeResolver: string): DnsConfig & { options: string[] } {
  const spec = pod.spec;
  const policy = spec?.dnsPolicy ?? 'ClusterFirst';
  const ns = pod.metadata?.namespace ?? 'default';
  let base: { nameservers: string[]; searches: string[]; options: string[] };
  const cluster = policy === 'ClusterFirstWithHostNet' || (policy === 'ClusterFirst' && !spec?.hostNetwork);
  if (policy === 'None') base = { nameservers: [], searches: [], options: [] };
  else if (cluster)
    base = {
      nameservers: [CLUSTER_DNS_IP],
      searches: [`${ns}.svc.${CLUSTER_DOMAIN}`, `svc.${CLUSTER_DOMAIN}`, CLUSTER_DOMAIN],
      options: ['ndots:5'],
    };
  else base = { nameservers: [nodeResolver], searches: [], options: [] };
  const extra: PodDNSConfig = spec?.dnsConfig ?? {};
  const nameservers = [...new Set([...base.nameservers, ...(extra.nameservers ?? [])])].slice(0, 3);
  const searches = [...new Set([...base.searches, ...(extra.searches ?? [])])].slice(0, 32);
  const options = new Map(base.options.map((o) => [o.split(':')[0], o]));
  for (const o of extra.options ?? [])
    options.set(o.name ?? '', o.value !== undefined && o.value !== null ? `${o.name}:${o.value}` : (o.name ?? ''));
  const opts = [...options.values()].filter((o) => o !== '');
  const ndots = Number(/^ndots:(\d+)$/.exec(opts.find((o) => o.startsWith('ndots:')) ?? '')?.[1] ?? 1);
  return { nameservers, searches, options: opts, ndots };
}

/** The file text of a resolv.conf. */
export function resolvConf(cfg: { nameservers: string[]; searches: string[]; options: string[] }): string {
  let out = '';
  if (cfg.searches.length) out += `search ${cfg.searches.join(' ')}\n`;
  for (const n of cfg.nameservers) out += `nameserver ${n}\n`;
  if (cfg.options.length) out += `options ${cfg.options.join(' ')}\n`;
  return out;
}

/** Options of one Pod's view of the network. */
export interface ClusterNetOptions {
  /** Where processes listen (default: this process's network). */
  network?: SimNetwork;
  /** The Pod's resolver (default: ClusterFirst for `namespace`). */
  dns?: DnsConfig;
  /** The address requests come from (the Pod IP), for ClientIP affinity and agnhost's /clientip. */
  clientIP?: string;
  /** kube-proxy's random choice (injectable for tests). */
  random?: () => number;
  /** The cluster clock, for the affinity timeout. */
  now?: () => number;
  /** Divides the affinity timeout (--speed). */
  speed?: number;
  /** Who connects, when it is not the Pod at clientIP (the ingress controller), for NetworkPolicy. */
  self?: Endpoint;
}

/** The cluster network for Pods of one namespace. */
export class ClusterNet {
  private readonly network: SimNetwork;
  private readonly dns: DnsConfig;
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(
    private readonly src: NetSource,
    private readonly namespace: string,
    private readonly opts: ClusterNetOptions = {},
  ) {
    this.network = opts.network ?? PROCESS_NETWORK;
    this.dns = opts.dns ?? {
      nameservers: [CLUSTER_DNS_IP],
      searches: [`${namespace}.svc.${CLUSTER_DOMAIN}`, `svc.${CLUSTER_DOMAIN}`, CLUSTER_DOMAIN],
      ndots: 5,
    };
    this.random = opts.random ?? Math.random;
    this.now = opts.now ?? Date.now;
  }

  /** The nameserver the Pod asks (nslookup's "Server:"). */
  get nameserver(): string {
    return this.dns.nameservers[0] ?? CLUSTER_DNS_IP;
  }

  /** The names a resolver tries for `host`, in order (search path and ndots, as glibc and musl do). */
  candidates(host: string): string[] {
    if (host.endsWith('.')) return [host.slice(0, -1)];
    const dots = host.split('.').length - 1;
    const searched = this.dns.searches.map((s) => `${host}.${s}`);
    return dots >= this.dns.ndots ? [host, ...searched] : [...searched, host];
  }

  /** Resolves a host name with the Pod's resolver. */
  resolve(host: string): Resolved | undefined {
    if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return { fqdn: host, ip: host, ips: [host], service: this.src.serviceByIP(host) };
    if (host === 'localhost' && this.opts.clientIP) return { fqdn: 'localhost', ip: '127.0.0.1', ips: ['127.0.0.1'] };
    if (this.nameserver !== CLUSTER_DNS_IP) return undefined;
    if (!this.dnsReachable()) return undefined;
    for (const name of this.candidates(host)) {
      const r = this.lookup(name.toLowerCase());
      if (r) return r;
    }
    return undefined;
  }

  /** What CoreDNS's kubernetes plugin answers for one fully qualified name. */
  private lookup(fqdn: string): Resolved | undefined {
    const suffix = `.${CLUSTER_DOMAIN}`;
    if (!fqdn.endsWith(suffix)) return undefined;
    const parts = fqdn.slice(0, -suffix.length).split('.');
    const kind = parts[parts.length - 1];
    if (kind === 'pod' && parts.length === 3) {
      const ip = parts[0].replace(/-/g, '.');
      return /^\d+\.\d+\.\d+\.\d+$/.test(ip) ? { fqdn, ip, ips: [ip] } : undefined;
    }
    if (kind !== 'svc' || (parts.length !== 3 && parts.length !== 4)) return undefined;
    const [ns, name] = [parts[parts.length - 2], parts[parts.length - 3]];
    const svc = this.src.service(ns, name);
    if (!svc) {
      if (ns === 'default' && name === 'kubernetes' && parts.length === 3)
        return { fqdn, ip: KUBERNETES_SERVICE_IP, ips: [KUBERNETES_SERVICE_IP] };
      return undefined;
    }
    const headless = svc.spec?.clusterIP === 'None';
    if (parts.length === 4) {
      // A Pod's own record in its subdomain: only a headless Service has them.
      if (!headless) return undefined;
      const ip = this.endpointAddresses(svc).find((a) => a.hostname === parts[0])?.ip;
      return ip ? { fqdn, ip, ips: [ip], service: svc, headless } : undefined;
    }
    if (svc.spec?.type === 'ExternalName') return undefined;
    if (!headless) {
      const ip = svc.spec?.clusterIP;
      return ip ? { fqdn, ip, ips: [ip], service: svc } : undefined;
    }
    // CoreDNS's loadbalance plugin shuffles the A records of every answer.
    const ips = [...new Set(this.endpointAddresses(svc).map((a) => a.ip))];
    for (let i = ips.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [ips[i], ips[j]] = [ips[j], ips[i]];
    }
    return ips.length ? { fqdn, ip: ips[0], ips, service: svc, headless } : undefined;
  }

  /** The Service's ready endpoints from its EndpointSlices (one per address), with their ports. */
  private sliceEndpoints(svc: Service): { ip: string; hostname?: string; ports: { name?: string; port?: number }[] }[] | undefined {
    const slices = this.src.endpointSlices?.(svc.metadata!.namespace!, svc.metadata!.name!);
    if (!slices) return undefined;
    return slices.flatMap((sl) =>
      sl.addressType === 'IPv4'
        ? sl.endpoints
            .filter((e) => e.conditions?.ready !== false)
            .map((e) => ({
              ip: e.addresses[0],
              hostname: e.hostname,
              ports: (sl.ports ?? []).map((p) => ({ name: p.name ?? undefined, port: p.port ?? undefined })),
            }))
        : [],
    );
  }

  private endpointAddresses(svc: Service): { ip: string; hostname?: string }[] {
    const fromSlices = this.sliceEndpoints(svc);
    if (fromSlices) return fromSlices;
    const ep = this.src.endpoints(svc.metadata!.namespace!, svc.metadata!.name!);
    return (ep?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => ({ ip: a.ip, hostname: a.hostname })));
  }

  private readyAddresses(svc: Service, port: number | undefined): Backend[] {
    const ep = this.src.endpoints(svc.metadata!.namespace!, svc.metadata!.name!);
    const out: Backend[] = [];
    const svcPort = port === undefined ? svc.spec?.ports?.[0] : svc.spec?.ports?.find((p) => p.port === port);
    if (port !== undefined && !svcPort) return [];
    const fromSlices = this.sliceEndpoints(svc);
    if (fromSlices)
      return fromSlices.map((e) => ({
        ip: e.ip,
        port: (e.ports.find((p) => !svcPort?.name || p.name === svcPort.name) ?? e.ports[0])?.port ?? svcPort?.targetPort ?? 80,
      }));
    for (const subset of ep?.subsets ?? []) {
      const epPort = (subset.ports ?? []).find((p) => !svcPort?.name || p.name === svcPort.name) ?? subset.ports?.[0];
      for (const a of subset.addresses ?? []) out.push({ ip: a.ip, port: epPort?.port ?? svcPort?.targetPort ?? 80 });
    }
    return out;
  }

  /** kube-proxy's choice of endpoint: uniform at random, or the client's previous one under ClientIP affinity. */
  private pick(svc: Service, backends: Backend[]): Backend {
    const chosen = () => backends[Math.min(backends.length - 1, Math.floor(this.random() * backends.length))];
    const client = this.opts.clientIP;
    if (svc.spec?.sessionAffinity !== 'ClientIP' || !client) return chosen();
    const key = `${svc.metadata?.namespace}/${svc.metadata?.name}`;
    const now = this.now();
    const prev = this.network.affine(key, client, now);
    const b = backends.find((x) => x.ip === prev) ?? chosen();
    const seconds = svc.spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_AFFINITY_SECONDS;
    this.network.setAffine(key, client, b.ip, now + (seconds * 1000) / (this.opts.speed ?? 1));
    return b;
  }

  /** Where a connection to host:port lands: a Pod address and port, or why there is none (a policy drop is a timeout). */
  private route(host: string, port: number): { ip: string; port: number } | { error: 'resolve' | 'refused' | 'timeout'; ip?: string } {
    const r = this.resolve(host);
    if (!r) return { error: 'resolve' };
    if (r.ip === '127.0.0.1') return { ip: this.opts.clientIP!, port };
    return this.connect(r, port);
  }

  /** kube-proxy's DNAT of a resolved address, then the policies on the real destination. */
  private connect(r: Resolved, port: number): { ip: string; port: number } | { error: 'refused' | 'timeout'; ip?: string } {
    const to = r.service && !r.headless && r.service.spec?.clusterIP === r.ip ? this.toEndpoint(r.service, port) : { ip: r.ip, port };
    if ('error' in to) return { error: to.error, ip: r.ip };
    if (!this.allows(to.ip, to.port, 'TCP').allowed) return { error: 'timeout', ip: r.ip };
    return to;
  }

  /** One ready endpoint of a Service port, as kube-proxy picks it. */
  private toEndpoint(svc: Service, port: number): { ip: string; port: number } | { error: 'refused' } {
    const backends = this.readyAddresses(svc, port);
    if (backends.length === 0) return { error: 'refused' };
    const b = this.pick(svc, backends);
    return typeof b.port === 'number' ? { ip: b.ip, port: b.port } : { error: 'refused' };
  }

  /** This Pod (or the ingress controller) as a NetworkPolicy peer. */
  private get me(): Endpoint {
    return this.opts.self ?? this.endpointAt(this.opts.clientIP ?? '');
  }

  /** The peer at an address: the Pod there with its labels and its namespace's, or a bare address. */
  endpointAt(ip: string): Endpoint {
    const pod = this.src.podByIP(ip);
    if (!pod || pod.spec?.hostNetwork) return { ip };
    const namespace = pod.metadata?.namespace ?? 'default';
    return {
      ip,
      pod: {
        namespace,
        labels: pod.metadata?.labels ?? {},
        namespaceLabels: this.namespaceLabels(namespace),
        ports: (pod.spec?.containers ?? []).flatMap((c) => c.ports ?? []),
      },
    };
  }

  private namespaceLabels(name: string): Record<string, string> {
    // The apiserver sets kubernetes.io/metadata.name on every Namespace; a namespace not (yet) seen still has it.
    return { 'kubernetes.io/metadata.name': name, ...(this.src.namespace?.(name)?.metadata?.labels ?? {}) };
  }

  /** The NetworkPolicy verdict for a connection from this Pod to ip:port (ip a Pod address after DNAT). */
  allows(ip: string, port: number, protocol: Connection['protocol']): Verdict {
    return this.check({ from: this.me, to: ip === INGRESS_IP ? this.ingressEnd() : this.endpointAt(ip), port, protocol });
  }

  private check(conn: Connection): Verdict {
    if (!this.src.networkPolicies) return { allowed: true };
    const namespaces = new Set([conn.from.pod?.namespace, conn.to.pod?.namespace].filter((n): n is string => !!n));
    return evaluate(
      conn,
      [...namespaces].flatMap((ns) => this.src.networkPolicies?.(ns) ?? []),
    );
  }

  /** The ingress controller as a destination (ingress-nginx's controller Pod in its namespace). */
  private ingressEnd(): Endpoint {
    return { ip: INGRESS_IP, pod: { ...INGRESS_POD, namespaceLabels: this.namespaceLabels(INGRESS_POD.namespace) } };
  }

  /**
   * Whether this Pod may reach cluster DNS: UDP 53 to the kube-dns Service's endpoint (a CoreDNS Pod, else
   * a DNS server standing for one in kube-system with CoreDNS's labels), as the classic "allow DNS" lab needs.
   */
  dnsReachable(): boolean {
    if (!this.src.networkPolicies) return true;
    const svc = this.src.service('kube-system', 'kube-dns');
    const ip = svc ? this.endpointAddresses(svc)[0]?.ip : undefined;
    let to = ip ? this.endpointAt(ip) : undefined;
    if (!to?.pod)
      to = {
        ip: CLUSTER_DNS_IP,
        pod: {
          namespace: 'kube-system',
          labels: { 'k8s-app': 'kube-dns' },
          namespaceLabels: this.namespaceLabels('kube-system'),
          ports: DNS_PORTS,
        },
      };
    return this.check({ from: this.me, to, port: 53, protocol: 'UDP' }).allowed;
  }

  /** GET url: through a Service's ClusterIP to a ready endpoint, or to a Pod IP, or to the ingress controller. */
  httpGet(url: string, opts: RequestOptions = {}): HttpResult {
    let u: URL;
    try {
      u = new URL(/^[a-z]+:\/\//.test(url) ? url : `http://${url}`);
    } catch {
      return { ok: false, error: 'resolve' };
    }
    const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
    const r = this.resolve(u.hostname);
    if (r && (r.ip === KUBERNETES_SERVICE_IP || (r.service?.metadata?.name === 'kubernetes' && r.service.metadata.namespace === 'default')))
      return {
        ok: true,
        status: 403,
        body: '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"system:anonymous\\" cannot get path \\"/\\"","reason":"Forbidden","details":{},"code":403}\n',
      };
    const to = this.route(u.hostname, port);
    if ('error' in to) return { ok: false, error: to.error, ip: to.ip };
    const hostHeader = Object.entries(opts.headers ?? {}).find(([k]) => k.toLowerCase() === 'host')?.[1];
    const req: HttpRequest = {
      method: 'GET',
      path: u.pathname,
      query: u.searchParams,
      host: hostHeader ?? u.host,
      clientIP: this.opts.clientIP ?? '',
    };
    const res = this.deliverHttp(to.ip, to.port, req);
    return res ? { ok: true, status: res.status, body: res.body } : { ok: false, error: 'refused', ip: to.ip };
  }

  /**
   * A request the ingress controller proxies to a Service's endpoint (nginx's upstream): the endpoint kube-proxy
   * would pick, under the policies of the backend's namespace; undefined when the Service has no ready endpoint.
   */
  proxyToService(namespace: string, name: string, port: number | string, req: HttpRequest): HttpResult {
    const svc = this.src.service(namespace, name);
    const svcPort = typeof port === 'number' ? port : svc?.spec?.ports?.find((p) => p.name === port)?.port;
    if (!svc || svcPort === undefined) return { ok: false, error: 'refused' };
    // nginx proxies to the endpoints themselves (ingress-nginx reads EndpointSlices), not to the ClusterIP.
    const to = this.toEndpoint(svc, svcPort);
    if ('error' in to) return { ok: false, error: 'refused' };
    if (!this.allows(to.ip, to.port, 'TCP').allowed) return { ok: false, error: 'timeout', ip: to.ip };
    const res = this.deliverHttp(to.ip, to.port, req);
    return res ? { ok: true, status: res.status, body: res.body } : { ok: false, error: 'refused', ip: to.ip };
  }

  private deliverHttp(ip: string, port: number, req: HttpRequest): HttpResponse | undefined {
    if (ip === INGRESS_IP) return this.src.ingress?.()?.http(req, port);
    const l = this.network.lookup(ip, port);
    if (l) return l.http?.(req);
    if (this.network.isLocal(ip)) return undefined;
    // A Pod this process does not run (another kubelet-sim): answered from its spec, as its image would.
    const pod = this.src.podByIP(ip);
    if (!pod || pod.status?.phase !== 'Running') return undefined;
    return answerFromSpec(pod, port, req);
  }

  /** Sends `data` to host:port and returns what the server answers (nc). */
  tcp(host: string, port: number, data: string): TcpResult {
    const to = this.route(host, port);
    if ('error' in to) return { ok: false, error: to.error, ip: to.ip };
    const l = this.network.lookup(to.ip, to.port);
    if (l) return { ok: true, reply: l.tcp?.(data) ?? '' };
    if (this.network.isLocal(to.ip)) return { ok: false, error: 'refused', ip: to.ip };
    const pod = this.src.podByIP(to.ip);
    if (pod?.status?.phase === 'Running' && answerFromSpec(pod, to.port, undefined)) return { ok: true, reply: '' };
    return { ok: false, error: 'refused', ip: to.ip };
  }
}
