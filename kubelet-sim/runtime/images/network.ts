// What listens where on the simulated Pod network of one kubelet-sim process:
// a running image program (nginx, agnhost, redis...) opens its ports here and
// closes them when it exits, so a request to POD_IP:PORT reaches the live
// process (nginx reads its files from the Pod's filesystem at that moment)
// or is refused. It also keeps kube-proxy's ClientIP session affinity table,
// which outlives any one request.

/** An HTTP request as a simulated server sees it. */
export interface HttpRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  /** The Host header (host[:port] of the URL). */
  host: string;
  clientIP: string;
}

/** An HTTP response. */
export interface HttpResponse {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** A listening socket of a simulated process. */
export interface Listener {
  /** Answers HTTP; without it the port speaks something else (a TCP connect succeeds, HTTP gets nothing). */
  http?(req: HttpRequest): HttpResponse;
  /** Answers a TCP client's bytes (redis's RESP, memcached's text protocol). */
  tcp?(data: string): string;
}

/** See the file comment. */
export class SimNetwork {
  private readonly listeners = new Map<string, Listener>();
  private readonly local = new Set<string>();
  private readonly affinity = new Map<string, { ip: string; until: number }>();

  /** Opens ip:port; returns the close function. A second listener on the same port replaces the first. */
  listen(ip: string, port: number, l: Listener): () => void {
    const key = `${ip}:${port}`;
    this.listeners.set(key, l);
    return () => {
      if (this.listeners.get(key) === l) this.listeners.delete(key);
    };
  }

  /** The listener on ip:port, if any. */
  lookup(ip: string, port: number): Listener | undefined {
    return this.listeners.get(`${ip}:${port}`);
  }

  /** Marks a Pod IP as run by this process (its sandbox exists here), so a closed port there is refused. */
  addPod(ip: string): void {
    this.local.add(ip);
  }

  removePod(ip: string): void {
    this.local.delete(ip);
    for (const k of [...this.listeners.keys()]) if (k.startsWith(ip + ':')) this.listeners.delete(k);
  }

  /** True when this process runs the Pod with that IP. */
  isLocal(ip: string): boolean {
    return this.local.has(ip);
  }

  /** The endpoint a ClientIP-affine Service sent this client to, while it has not timed out. */
  affine(service: string, client: string, now: number): string | undefined {
    const a = this.affinity.get(`${service}|${client}`);
    return a && a.until > now ? a.ip : undefined;
  }

  /** Records (or refreshes) a client's endpoint; kube-proxy's timeout counts from the last use. */
  setAffine(service: string, client: string, ip: string, until: number): void {
    this.affinity.set(`${service}|${client}`, { ip, until });
  }
}

/** The network of this process (every node it simulates shares it, as Pods on one cluster network do). */
export const PROCESS_NETWORK = new SimNetwork();
