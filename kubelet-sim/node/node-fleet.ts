// The simulated nodes of one process: registers each Node, renews its Lease
// in kube-node-lease every 10 s (kubelet's nodeLeaseRenewInterval), checks
// its status every 10 s and posts it only when it changed or every 5 min
// (nodeStatusUpdateFrequency / nodeStatusReportFrequency), all divided by
// --speed. A beat that finds nothing changed costs no request. Two
// BeatWheels (one timer each) drive every node's beats, so thousands of
// nodes cost one request per lease period each and no timer of their own. A
// node can be stopped (powered off), started, or partitioned (cut off from
// the apiserver while its containers keep running) for chaos, and its
// kubelet alone can be killed, stopped or paused (containers keep running,
// nothing reaches the apiserver, and the kubelet does nothing for its Pods)
// and started or resumed again; kubelet-sim/chaos/ drives these. A node's
// registration and heartbeats carry a write cause (kubelet, the node's name,
// "register" or "heartbeat: ...").
import type { Logger } from 'pino';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../shared/api/errors.ts';
import { findResource } from '../../shared/api/resources.ts';
import type { Clock } from '../../shared/clock/clock.ts';
import { withCause, type KubeClient, type WriteCause } from '../../shared/client/kube-client.ts';
import type { NodeRuntime } from '../runtime/pod-worker.ts';
import type { Timings } from '../runtime/timings.ts';
import { BeatWheel } from './beat-wheel.ts';
import { nodeIP, PodCidr, podCIDRFor } from './ipam.ts';
import {
  buildLease,
  buildNode,
  microStamp,
  nodeConditions,
  type KubeletEndpoint,
  type NodeIdentity,
  type NodeProfile,
  type PressureState,
} from './node-object.ts';

const nodes = findResource('', 'v1', 'nodes')!;
const leases = findResource('coordination.k8s.io', 'v1', 'leases')!;

/** The cause of a write about node `n` itself (its Node, its Lease). */
function nodeCause(n: SimNode, detail: string): WriteCause {
  return { controller: 'kubelet', key: n.name, detail };
}

/**
 * A node's chaos state: running; stopped (powered off); partitioned (cut off
 * from the apiserver, its kubelet still runs its Pods); or its kubelet alone
 * is gone (killed or stopped: containers keep running, nobody looks after
 * them) or frozen (paused).
 */
export type NodeMode = 'running' | 'stopped' | 'partitioned' | 'kubelet-killed' | 'kubelet-stopped' | 'kubelet-paused';

/** The modes in which the node's kubelet does nothing at all. */
export const KUBELET_DOWN: ReadonlySet<NodeMode> = new Set(['kubelet-killed', 'kubelet-stopped', 'kubelet-paused']);

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
  /** The pressure conditions (chaos: `node.pressure`), reported with every status. */
  readonly pressure: PressureState = {};
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
  /** Called when a node's kubelet goes away or freezes (its containers keep running, untended). */
  onKubeletDown?(node: SimNode): void;
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
  private readonly identities = new Map<string, NodeIdentity>();

  constructor(
    private readonly opts: FleetOptions,
    identities: NodeIdentity[],
  ) {
    for (const id of identities) {
      this.nodes.set(id.name, new SimNode(id.name, id.index, nodeIP(id.index)));
      this.identities.set(id.name, id);
    }
    this.leaseWheel = new BeatWheel(opts.clock, opts.timings.leaseRenewMs, (n) => this.leaseBeat(n));
    this.statusWheel = new BeatWheel(opts.clock, opts.timings.nodeStatusUpdateMs, (n) => this.statusBeat(n));
  }

  /** What the nodes look like (capacity, versions). */
  get profile(): NodeProfile {
    return this.opts.profile;
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

  private register(n: SimNode): Promise<void> {
    return withCause(nodeCause(n, 'register'), () => this.registerNow(n));
  }

  private async registerNow(n: SimNode): Promise<void> {
    const client = this.clientOf(n);
    const now = this.opts.clock.now();
    const desired = buildNode(this.identities.get(n.name) ?? { name: n.name, index: n.index }, this.opts.profile, this.opts.endpoint, now);
    desired.status!.conditions = nodeConditions(now, now, true, n.pressure);
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
      Object.values(n.pressure).some((p) => p?.on) ||
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
  renewLease(n: SimNode): Promise<void> {
    return withCause(nodeCause(n, 'heartbeat: Lease'), () => this.renewLeaseNow(n));
  }

  private async renewLeaseNow(n: SimNode): Promise<void> {
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

  private postStatus(n: SimNode, now: number): Promise<void> {
    return withCause(nodeCause(n, 'heartbeat: Node status'), () => this.patchStatus(n, now));
  }

  private async patchStatus(n: SimNode, now: number): Promise<void> {
    try {
      await this.clientOf(n).patch(
        nodes,
        undefined,
        n.name,
        'merge',
        {
          status: {
            conditions: nodeConditions(now, n.readySince, true, n.pressure),
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

  /** Posts a node's status now (a pressure condition changed), if it talks to the apiserver. */
  async postStatusNow(name: string): Promise<void> {
    const n = this.nodes.get(name);
    if (!n || !n.online || !n.registered) return;
    await this.postStatus(n, this.opts.clock.now());
  }

  /**
   * Posts the status once more after a registration that followed a silence: the
   * node lifecycle controller may have written Ready=Unknown from the stale Lease
   * between the registration's status write and the Lease renewal after it.
   */
  private async postAfterRegistration(n: SimNode): Promise<void> {
    if (!n.registered || !n.online) return;
    await this.postStatus(n, this.opts.clock.now()).catch(() => {});
    // And at the next status beat too, once the controller has surely seen the renewed Lease.
    n.lastReport = -Infinity;
  }

  private node(name: string): SimNode {
    const n = this.nodes.get(name);
    if (!n) throw new Error(`no node ${name} in this process`);
    return n;
  }

  /** Applies a chaos action to one node; returns its new mode. */
  async chaos(name: string, action: 'stop' | 'start' | 'partition' | 'heal'): Promise<NodeMode> {
    const n = this.node(name);
    const was = n.mode;
    if (action === 'stop' || action === 'partition') {
      if (action === 'partition' && KUBELET_DOWN.has(was))
        throw new Error(`the kubelet of node ${name} is ${was.slice(8)}; start it first`);
      this.stopBeats(n);
      n.mode = action === 'stop' ? 'stopped' : 'partitioned';
      if (action === 'stop' && was !== 'stopped') this.opts.onNodeStopped?.(n);
      this.opts.log.info({ node: name, action }, 'node cut off');
      return n.mode;
    }
    if (was === 'running') return was;
    if (action === 'heal' && was !== 'partitioned') throw new Error(`node ${name} is ${was}, not partitioned`);
    if (action === 'start' && was !== 'stopped') throw new Error(`node ${name} is ${was}, not stopped`);
    n.mode = 'running';
    if (was === 'stopped') n.images.clear();
    await this.rejoin(n, was === 'stopped');
    this.opts.onNodeOnline?.(n, was === 'stopped');
    this.opts.log.info({ node: name, action }, 'node back');
    return n.mode;
  }

  /**
   * A node that was away takes up its beats again: `register` (after a power
   * off or a kubelet restart) registers it and posts a fresh status, as
   * kubelet's start-up does; otherwise it renews its Lease and posts its
   * status at once, to catch up on what it missed.
   */
  private async rejoin(n: SimNode, register: boolean): Promise<void> {
    if (register) {
      n.registered = false;
      await this.registerWithRetry(n);
      await this.postAfterRegistration(n);
    } else {
      await this.renewLease(n).catch(() => {});
      await this.postStatus(n, this.opts.clock.now()).catch(() => {});
      n.lastReport = -Infinity;
    }
    this.startBeats(n);
  }

  /**
   * The node's kubelet alone goes away ('killed': SIGKILL, 'stopped':
   * SIGTERM, 'paused': SIGSTOP): no heartbeats, no status writes, no reaction
   * to its Pods; their containers keep running.
   */
  kubeletDown(name: string, how: 'killed' | 'stopped' | 'paused'): NodeMode {
    const n = this.node(name);
    const was = n.mode;
    if (was === 'stopped') throw new Error(`node ${name} is powered off`);
    if (was === 'partitioned') throw new Error(`node ${name} is partitioned; heal it first`);
    if (KUBELET_DOWN.has(was)) {
      if (was === 'kubelet-paused' && how !== 'paused') {
        // A paused kubelet that is killed is simply gone.
        n.mode = `kubelet-${how}`;
        this.opts.log.warn({ node: name, was }, `kubelet ${how}`);
      }
      return n.mode;
    }
    this.stopBeats(n);
    n.mode = `kubelet-${how}`;
    n.leaseBusy = false;
    this.opts.onKubeletDown?.(n);
    this.opts.log.warn({ node: name }, `kubelet ${how}`);
    return n.mode;
  }

  /**
   * The node's kubelet is back: a started kubelet registers again (kubelet's
   * registerWithAPIServer at start-up: the Node exists, fresh status is
   * posted) and re-lists its Pods, taking over their running containers; a
   * resumed one renews its Lease and catches up on what it missed.
   */
  async kubeletUp(name: string, how: 'start' | 'resume'): Promise<NodeMode> {
    const n = this.node(name);
    const was = n.mode;
    if (was === 'running') return was;
    if (!KUBELET_DOWN.has(was)) throw new Error(`node ${name} is ${was}; its kubelet is not down`);
    if (how === 'resume' && was !== 'kubelet-paused')
      throw new Error(`the kubelet of node ${name} is ${was.slice(8)}, not paused; start it`);
    if (how === 'start' && was === 'kubelet-paused') throw new Error(`the kubelet of node ${name} is paused; resume it`);
    n.mode = 'running';
    // A started kubelet is a new process: it knows no Lease and registers again (the images on disk stay).
    if (how === 'start') n.lease = undefined;
    await this.rejoin(n, how === 'start');
    this.opts.onNodeOnline?.(n, false);
    this.opts.log.info({ node: name, how }, 'kubelet back');
    return n.mode;
  }
}
