// Leader election on a coordination.k8s.io/v1 Lease, with client-go's
// timings (lease 15 s, renew deadline 10 s, retry 2 s) and its rule that a
// lease is judged expired by when this candidate last saw it change, not by
// the holder's clock. Losing the lease stops the work at once.
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Logger } from 'pino';
import { StatusError } from '../api/errors.ts';
import { findResource } from '../api/resources.ts';
import { realClock, type Clock } from '../clock/clock.ts';
import type { KubeClient } from '../client/kube-client.ts';

const leases = findResource('coordination.k8s.io', 'v1', 'leases')!;

/** Timings and identity of a candidate. */
export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  log?: Logger;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
}

function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Runs one candidate until stop() is called. */
export class LeaderElector {
  private leading = false;
  private stopped = false;
  private observedRecord = '';
  private observedAt = 0;
  private lastRenew = 0;
  private cancelTimer?: () => void;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: LeaderElectionOptions,
  ) {
    this.clock = opts.clock ?? realClock;
    this.leaseMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryMs = opts.retryPeriodMs ?? 2_000;
  }

  /** True while this candidate holds the lease. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Starts trying to acquire, then renewing. */
  start(): void {
    void this.tick();
  }

  private schedule(): void {
    if (!this.stopped) this.cancelTimer = this.clock.setTimeout(() => void this.tick(), this.retryMs);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let ok = false;
    try {
      ok = await this.tryAcquireOrRenew();
    } catch (err) {
      this.opts.log?.warn({ err: (err as Error).message, lease: this.opts.name }, 'leader election request failed');
    }
    if (this.stopped) return;
    const now = this.clock.now();
    if (ok) {
      this.lastRenew = now;
      if (!this.leading) {
        this.leading = true;
        this.opts.log?.info({ lease: this.opts.name, identity: this.opts.identity }, 'became leader');
        this.opts.onStartedLeading();
      }
    } else if (this.leading && now - this.lastRenew >= this.renewDeadlineMs) {
      this.loseLeadership('failed to renew the lease before the renew deadline');
    }
    this.schedule();
  }

  private loseLeadership(why: string): void {
    this.leading = false;
    this.opts.log?.warn({ lease: this.opts.name, why }, 'lost leadership');
    this.opts.onStoppedLeading();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { namespace, name, identity } = this.opts;
    const now = this.clock.now();
    let lease: Lease;
    try {
      lease = await this.client.get<Lease>(leases, namespace, name);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
      await this.client.create(leases, namespace, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds: Math.ceil(this.leaseMs / 1000),
          acquireTime: microTime(now),
          renewTime: microTime(now),
          leaseTransitions: 0,
        },
      });
      this.observe(JSON.stringify({ holder: identity }), now);
      return true;
    }
    const spec = lease.spec ?? {};
    const record = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.leaseTransitions]);
    if (record !== this.observedRecord) this.observe(record, now);
    const holder = spec.holderIdentity ?? '';
    const expired = now - this.observedAt > (spec.leaseDurationSeconds ?? this.leaseMs / 1000) * 1000;
    if (holder && holder !== identity && !expired) {
      if (this.leading) this.loseLeadership(`lease taken by ${holder}`);
      return false;
    }
    const next: Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds: Math.ceil(this.leaseMs / 1000),
        renewTime: microTime(now),
        acquireTime: holder === identity ? spec.acquireTime : microTime(now),
        leaseTransitions: holder === identity ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + (holder ? 1 : 0),
      },
    };
    const updated = await this.client.update<Lease>(leases, next);
    this.observe(JSON.stringify([updated.spec!.holderIdentity, updated.spec!.renewTime, updated.spec!.leaseTransitions]), now);
    return true;
  }

  private observe(record: string, at: number): void {
    this.observedRecord = record;
    this.observedAt = at;
  }

  /** Stops; a leader gives the lease up so another candidate can take it at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.client.get<Lease>(leases, this.opts.namespace, this.opts.name);
      if (lease.spec?.holderIdentity === this.opts.identity) {
        await this.client.update<Lease>(leases, {
          ...lease,
          spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(this.clock.now()) },
        });
      }
    } catch {
      // Best effort: the lease expires by itself.
    }
    this.opts.onStoppedLeading();
  }
}
