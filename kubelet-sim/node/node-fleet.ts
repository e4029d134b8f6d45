// The simulated nodes of one process: registers each Node, renews its Lease
// in kube-node-lease every 10 s (kubelet's nodeLeaseRenewInterval), checks
// its status every 10 s and posts it only when it changed or every 5 min
// (nodeStatusUpdateFrequency / nodeStatusReportFrequency), all divided by
// --speed. A beat that finds nothing changed costs no request. Two
// BeatWheels (one timer each) drive every node's beats, so thousands of
// nodes cost one request per lease period each and no timer of their own. A
// node can be stopped (powered off), started, or partitioned (cut off from
// the apiserver while its containers keep running) for chaos.
import type { Logger } from 'pino';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../shared/api/errors.ts';
import { findResource } from '../../shared/api/resources.ts';
import type { Clock } from '../../shared/clock/clock.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import type { NodeRuntime } from '../runtime/pod-worker.ts';
import type { Timings } from '../runtime/timings.ts';
import { BeatWheel } from './beat-wheel.ts';
import { nodeIP, PodCidr, podCIDRFor } from './ipam.ts';
import { buildLease, buildNode, microStamp, nodeConditions, type KubeletEndpoint, type NodeProfile } from './node-object.ts';

const nodes = findResource('', 'v1', 'nodes')!;
const leases = findResource('coordination.k8s.io', 'v1', 'leases')!;

/** A node's chaos state. */
export type NodeMode = 'running' | 'stopped' | 'partitioned';

/** One simulated node. */
export class SimNode implements NodeRuntime {
  readonly images = new Set<string>();
  readonly hostIP: string;
  mode: NodeMode = 'running';
  registered = false;
  uid?: string;
  lease?: Lease;
  readySince = 0;
  lastReport = 0;
  reportedImages = 0;
  /** A lease renewal or a status check is in flight: the next beat skips it rather than pile up. */
  leaseBusy = false;
  statusBusy = false;
  private readonly ipam: PodCidr;

  constructor(
    readonly name: string,
    readonly index: number,
    hostIP: string,
  ) {
    this.hostIP = hostIP;
    this.ipam = new PodCidr(podCIDRFor(index));
  }

  allocateIP(podKey: string): string {
    return this.ipam.allocate(podKey);
  }

  reserveIP(podKey: string, ip: string): string {
    return this.ipam.reserve(podKey, ip);
  }

  releaseIP(podKey: string): void {
    this.ipam.release(podKey);
  }

  /** True when the node talks to the apiserver. */
  get online(): boolean {
    return this.mode === 'running';
  }
}

/** How a fleet is configured. */
export interface FleetOptions {
  /** The process's client (heartbeats); each node's requests go through `clientFor`. */
  client: KubeClient;
  /** The client node `name` registers and heartbeats with: its own identity (default: `client`). */
  clientFor?(name: string): KubeClient;
  clock: Clock;
  timings: Timings;
  profile: NodeProfile;
  endpoint: KubeletEndpoint;
  log: Logger;
  /** Registrations in flight at once. */
  concurrency?: number;
  /** Called when a node comes back (started or healed), so its pods resync. */
  onNodeOnline?(node: SimNode, rebooted: boolean): void;
  /** Called when a node powers off, so its containers stop. */
  onNodeStopped?(node: SimNode): void;
  /** Counts API requests by kind, for metrics. */
  onRequest?(kind: 'lease' | 'status' | 'register', ok: boolean): void;
}

/** Limits concurrent async work. */
export async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let i = 0;
  const worker = async () => {
    while (i < items.length) await fn(items[i++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** See the file comment. */
export class NodeFleet {
  readonly nodes = new Map<string, SimNode>();
  private stopped = false;
  private readonly leaseWheel: BeatWheel<SimNode>;
  private readonly statusWheel: BeatWheel<SimNode>;

  constructor(
    private readonly opts: FleetOptions,
    identities: { name: string; index: number }[],
  ) {
    for (const id of identities) this.nodes.set(id.name, new SimNode(id.name, id.index, nodeIP(id.index)));
    this.leaseWheel = new BeatWheel(opts.clock, opts.timings.leaseRenewMs, (n) => this.leaseBeat(n));
    this.statusWheel = new BeatWheel(opts.clock, opts.timings.nodeStatusUpdateMs, (n) => this.statusBeat(n));
  }

  /** True for a node of this process that talks to the apiserver. */
  isOnline(name: string | undefined): boolean {
    return !!name && this.nodes.get(name)?.online === true;
  }

  /** Registers every node and starts heartbeats; resolves once all are registered. */
  async start(): Promise<void> {
    await eachLimited([...this.nodes.values()], this.opts.concurrency ?? 64, async (n) => {
      await this.registerWithRetry(n);
      if (this.stopped || !n.online) return;
      this.startBeats(n);
    });
  }

  /** Stops every timer (the process is shutting down). */
  stop(): void {
    this.stopped = true;
    this.leaseWheel.stop();
    this.statusWheel.stop();
  }

  /** Number of registered nodes. */
  get registeredCount(): number {
    let k = 0;
    for (const n of this.nodes.values()) if (n.registered) k++;
    return k;
  }

  private async registerWithRetry(n: SimNode): Promise<void> {
    let backoff = 500;
    while (!this.stopped && n.online) {
      try {
        await this.register(n);
        await this.renewLease(n);
        return;
      } catch (err) {
        this.opts.log.warn({ node: n.name, err: (err as Error).message }, 'node registration failed; retrying');
        await this.opts.clock.sleep(backoff);
        backoff = Math.min(backoff * 2, 7000);
      }
    }
  }

  /** kubelet's registerWithAPIServer: create the Node, or adopt the existing one and post fresh status. */
  private clientOf(n: SimNode): KubeClient {
    return this.opts.clientFor?.(n.name) ?? this.opts.client;
  }

  private async register(n: SimNode): Promise<void> {
    const client = this.clientOf(n);
    const now = this.opts.clock.now();
    const desired = buildNode({ name: n.name, index: n.index }, this.opts.profile, this.opts.endpoint, now);
    n.readySince = now;
    let created: Node;
    try {
      created = await client.create(nodes, undefined, desired);
      this.opts.onRequest?.('register', true);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 409)) throw err;
      created = await client.patch(nodes, undefined, n.name, 'merge', {
        metadata: { labels: desired.metadata!.labels, annotations: desired.metadata!.annotations },
      });
    }
    n.uid = created.metadata?.uid;
    // Status is the status subresource's business: post it there, whatever create kept.
    if (
      !created.status?.conditions?.length ||
      created.status.conditions.find((c) => c.type === 'Ready')?.status !== 'True' ||
      created.status.daemonEndpoints?.kubeletEndpoint?.Port !== this.opts.endpoint.port
    ) {
      await client.patch(nodes, undefined, n.name, 'merge', { status: desired.status }, 'status');
    }
    n.lastReport = now;
    n.registered = true;
  }

  private startBeats(n: SimNode): void {
    this.leaseWheel.add(n);
    this.statusWheel.add(n);
  }

  private stopBeats(n: SimNode): void {
    this.leaseWheel.delete(n);
    this.statusWheel.delete(n);
  }

  private leaseBeat(n: SimNode): void {
    if (this.stopped || !n.online || !n.registered || n.leaseBusy) return;
    n.leaseBusy = true;
    this.renewLease(n)
      .catch((err) => this.opts.log.warn({ node: n.name, err: (err as Error).message }, 'lease renewal failed'))
      .finally(() => (n.leaseBusy = false));
  }

  /** Renews the Lease with the last copy (no read), re-reading only on a conflict. */
  async renewLease(n: SimNode): Promise<void> {
    const now = this.opts.clock.now();
    const client = this.clientOf(n);
    try {
      if (!n.lease) {
        try {
          n.lease = await client.create<Lease>(
            leases,
            'kube-node-lease',
            buildLease(n.name, n.uid, this.opts.timings.leaseDurationSeconds, now),
          );
          this.opts.onRequest?.('lease', true);
          return;
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 409)) throw err;
          n.lease = await client.get<Lease>(leases, 'kube-node-lease', n.name);
        }
      }
      const next = {
        ...n.lease,
        spec: {
          ...n.lease.spec,
          holderIdentity: n.name,
          leaseDurationSeconds: this.opts.timings.leaseDurationSeconds,
          renewTime: microStamp(now),
        },
      };
      try {
        n.lease = await client.update<Lease>(leases, next);
      } catch (err) {
        if (err instanceof StatusError && (err.code === 409 || err.code === 404)) {
          n.lease = undefined;
          if (err.code === 409) n.lease = await client.get<Lease>(leases, 'kube-node-lease', n.name);
          return this.renewLease(n);
        }
        throw err;
      }
      this.opts.onRequest?.('lease', true);
    } catch (err) {
      this.opts.onRequest?.('lease', false);
      throw err;
    }
  }

  private statusBeat(n: SimNode): void {
    if (this.stopped || !n.online || !n.registered || n.statusBusy) return;
    const now = this.opts.clock.now();
    // Post when something changed (the images on the node), or every nodeStatusReportFrequency anyway.
    if (now - n.lastReport < this.opts.timings.nodeStatusReportMs && n.images.size === n.reportedImages) return;
    n.statusBusy = true;
    this.postStatus(n, now)
      .catch(async (err) => {
        if (err instanceof StatusError && err.code === 404) {
          // Someone deleted our Node: kubelet registers again.
          n.registered = false;
          n.lease = undefined;
          await this.registerWithRetry(n);
        } else this.opts.log.warn({ node: n.name, err: (err as Error).message }, 'node status update failed');
      })
      .finally(() => (n.statusBusy = false));
  }

  private async postStatus(n: SimNode, now: number): Promise<void> {
    try {
      await this.clientOf(n).patch(
        nodes,
        undefined,
        n.name,
        'merge',
        {
          status: {
            conditions: nodeConditions(now, n.readySince),
            images: [...n.images].slice(0, 50).map((i) => ({ names: [i], sizeBytes: 10_000_000 })),
          },
        },
        'status',
      );
      n.lastReport = now;
      n.reportedImages = n.images.size;
      this.opts.onRequest?.('status', true);
    } catch (err) {
      this.opts.onRequest?.('status', false);
      throw err;
    }
  }

  // ---------------------------------------------------------------- chaos

  /** Applies a chaos action to one node; returns its new mode. */
  async chaos(name: string, action: 'stop' | 'start' | 'partition' | 'heal'): Promise<NodeMode> {
    const n = this.nodes.get(name);
    if (!n) throw new Error(`no node ${name} in this process`);
    const was = n.mode;
    if (action === 'stop' || action === 'partition') {
      this.stopBeats(n);
      n.mode = action === 'stop' ? 'stopped' : 'partitioned';
      if (action === 'stop' && was !== 'stopped') this.opts.onNodeStopped?.(n);
      this.opts.log.info({ node: name, action }, 'node cut off');
      return n.mode;
    }
    if (was === 'running') return was;
    if (action === 'heal' && was === 'stopped') throw new Error(`node ${name} is stopped; start it instead`);
    n.mode = 'running';
    if (was === 'stopped') {
      n.images.clear();
      n.registered = false;
      await this.registerWithRetry(n);
    } else {
      await this.renewLease(n).catch(() => {});
      await this.postStatus(n, this.opts.clock.now()).catch(() => {});
    }
    this.startBeats(n);
    this.opts.onNodeOnline?.(n, was === 'stopped');
    this.opts.log.info({ node: name, action }, 'node back');
    return n.mode;
  }
}
