// Addresses of simulated nodes: each node's InternalIP and podCIDR follow
// from its index, and a node hands out Pod IPs from its podCIDR as the
// host-local IPAM plugin does (first free address, .1 is the gateway).

/** The InternalIP of node `index`: 172.18.0.2, 172.18.0.3, ... (kind's docker network). */
export function nodeIP(index: number): string {
  const n = index + 2;
  return `172.${18 + Math.floor(n / 65536)}.${Math.floor(n / 256) % 256}.${n % 256}`;
}

/**
 * The podCIDR of node `index`: 10.244.<index>.0/24 for the first 12 * 256 nodes
 * (10.244.0.0/16 ... 10.255.255.0/24), then 100.64.0.0/10 for the rest.
 */
export function podCIDRFor(index: number): string {
  if (index < 12 * 256) return `10.${244 + Math.floor(index / 256)}.${index % 256}.0/24`;
  const j = index - 12 * 256;
  return `100.${64 + Math.floor(j / 256)}.${j % 256}.0/24`;
}

/** A /24 handing out .2 to .254 round-robin (an address is not reused at once, as host-local IPAM does). */
export class PodCidr {
  private readonly prefix: string;
  private readonly used = new Map<string, number>();
  private readonly taken = new Set<number>();
  private last = 1;

  constructor(cidr: string) {
    this.prefix = cidr.split('/')[0].split('.').slice(0, 3).join('.');
  }

  /** The address of `key` (a Pod), allocating one on first call. */
  allocate(key: string): string {
    let n = this.used.get(key);
    if (n === undefined) {
      for (let k = 0; k < 253; k++) {
        const cand = ((this.last - 2 + 1 + k) % 253) + 2;
        if (!this.taken.has(cand)) {
          n = cand;
          break;
        }
      }
      if (n === undefined) throw new Error(`podCIDR ${this.prefix}.0/24 is exhausted`);
      this.last = n;
      this.taken.add(n);
      this.used.set(key, n);
    }
    return `${this.prefix}.${n}`;
  }

  /** Records that `key` holds `ip` (a Pod found running after a restart); an address outside the /24 is kept as is. */
  reserve(key: string, ip: string): string {
    const parts = ip.split('.');
    if (parts.slice(0, 3).join('.') !== this.prefix) return ip;
    const n = Number(parts[3]);
    this.used.set(key, n);
    this.taken.add(n);
    return ip;
  }

  release(key: string): void {
    const n = this.used.get(key);
    if (n === undefined) return;
    this.used.delete(key);
    this.taken.delete(n);
  }
}
