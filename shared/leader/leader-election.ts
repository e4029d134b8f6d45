// Leader election on a coordination.k8s.io/v1 Lease, with client-go's
// timings (lease 15 s, renew deadline 10 s, retry 2 s; --speed does not
// shorten them, see MAX_ELECTION_SPEED) and its rule that a lease is judged expired by when this candidate
// last saw it change on its own monotonic clock, not by the holder's
// renewTime: a holder whose clock is skewed writes wrong timestamps but does
// not lose (or steal) the lease by it. Losing the lease stops the work at once.
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { StatusError } from '../api/errors.ts';
import { findResource } from '../api/resources.ts';
import { monotonicClock, wallNow, type Clock } from '../clock/clock.ts';
import type { KubeClient } from '../client/kube-client.ts';
import { setLeaderStatus } from './metrics.ts';

const leases = findResource('coordination.k8s.io', 'v1', 'leases')!;

/**
 * The most --speed shortens leader election by: not at all. The renew
 * deadline is how long a holder survives an apiserver it cannot reach, and
 * kube's components exit when they lose their Lease. What an apiserver
 * restart or a loaded machine costs in real time (2-5 s for `ksim chaos kill
 * apiserver` then `start` on two busy cores) does not shrink with --speed:
 * divided by 20 the renew deadline would be 0.5 s, and by 2 it was still
 * lost in the test suite, leaving the cluster without a scheduler. Slow
 * motion (--speed below 1) still lengthens it.
 */
export const MAX_ELECTION_SPEED = 1;

/** What leader election divides kube's timings by at this --speed (slow motion, below 1, is not capped). */
export function electionSpeed(speed: number | undefined): number {
  return speed && speed > 0 ? Math.min(speed, MAX_ELECTION_SPEED) : 1;
}

/** Timings and identity of a candidate. */
export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  /** kube's values at speed 1 (15 s, 10 s, 2 s); the elector divides them by `speed`. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** --speed: every wait is this many times shorter (at most MAX_ELECTION_SPEED); the Lease's leaseDurationSeconds stays kube's unscaled value. */
  speed?: number;
  /** Timers and the time expiry is judged by (default: monotonic, not skewed). */
  clock?: Clock;
  /** The time written into acquireTime/renewTime (default: the clock's, or the skewed wall clock). */
  wallNow?: () => number;
  /** Where leader_election_master_status{name} is exposed. */
  registry?: Registry;
  log?: Logger;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
}

function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

type Attempt = { ok: true } | { ok: false; expiresInMs?: number };

/** Runs one candidate until stop() is called. */
export class LeaderElector {
  private leading = false;
  private stopped = false;
  private observedRecord = '';
  private observedAt = 0;
  private lastRenew = 0;
  private written?: Lease;
  private cancelTimer?: () => void;
  private cancelDeadline?: () => void;
  private readonly clock: Clock;
  private readonly wallNow: () => number;
  private readonly speed: number;
  private readonly leaseMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryMs: number;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: LeaderElectionOptions,
  ) {
    this.clock = opts.clock ?? monotonicClock;
    const clock = opts.clock;
    this.wallNow = opts.wallNow ?? (clock ? () => clock.now() : wallNow);
    this.speed = electionSpeed(opts.speed);
    this.leaseMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = (opts.renewDeadlineMs ?? 10_000) / this.speed;
    this.retryMs = (opts.retryPeriodMs ?? 2_000) / this.speed;
    if (opts.registry) setLeaderStatus(opts.registry, opts.name, false);
  }

  /** True while this candidate holds the lease (and renewed it within the renew deadline). */
  get isLeader(): boolean {
    return this.leading && this.clock.now() - this.lastRenew < this.renewDeadlineMs;
  }

  /** "namespace/name" of the Lease. */
  get lease(): string {
    return `${this.opts.namespace}/${this.opts.name}`;
  }

  /** Starts trying to acquire, then renewing. */
  start(): void {
    void this.tick();
  }

  private schedule(ms: number): void {
    if (!this.stopped) this.cancelTimer = this.clock.setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let attempt: Attempt = { ok: false };
    // A renewal counts from when it was sent: a standby cannot have seen it any earlier.
    const started = this.clock.now();
    try {
      attempt = await this.tryAcquireOrRenew();
    } catch (err) {
      this.opts.log?.warn({ err: (err as Error).message, lease: this.opts.name }, 'leader election request failed');
    }
    if (this.stopped) return;
    const now = this.clock.now();
    if (attempt.ok) {
      this.lastRenew = started;
      this.armRenewDeadline();
      if (!this.leading) this.setLeading(true, 'became leader');
    } else if (this.leading && now - this.lastRenew >= this.renewDeadlineMs) {
      this.loseLeadership('failed to renew the lease before the renew deadline');
    }
    // A standby looks again right when the holder's lease runs out (not up to a retry period later).
    const wait = !attempt.ok && attempt.expiresInMs !== undefined ? Math.min(this.retryMs, attempt.expiresInMs + 1) : this.retryMs;
    this.schedule(Math.max(1, wait));
  }

  /**
   * Steps down once the renew deadline passes without a renewal, even while a
   * renewal request is still hanging (client-go bounds its renew loop by the
   * deadline the same way), so a standby never takes over from a holder that
   * still thinks it leads.
   */
  private armRenewDeadline(): void {
    this.cancelDeadline?.();
    this.cancelDeadline = this.clock.setTimeout(() => {
      if (!this.stopped && this.leading && this.clock.now() - this.lastRenew >= this.renewDeadlineMs)
        this.loseLeadership('failed to renew the lease before the renew deadline');
    }, this.renewDeadlineMs);
  }

  private setLeading(leading: boolean, msg: string, why?: string): void {
    this.leading = leading;
    if (this.opts.registry) setLeaderStatus(this.opts.registry, this.opts.name, leading);
    if (leading) {
      this.opts.log?.info({ lease: this.opts.name, identity: this.opts.identity }, msg);
      this.opts.onStartedLeading();
    } else {
      this.opts.log?.warn({ lease: this.opts.name, why }, msg);
      this.opts.onStoppedLeading();
    }
  }

  private loseLeadership(why: string): void {
    this.setLeading(false, 'lost leadership', why);
  }

  /** How long, on this candidate's clock, a lease of `seconds` (kube's unscaled value) lasts. */
  private judgedLeaseMs(seconds: number | undefined): number {
    return ((seconds ?? this.leaseMs / 1000) * 1000) / this.speed;
  }

  private async tryAcquireOrRenew(): Promise<Attempt> {
    const { namespace, name, identity } = this.opts;
    const now = this.clock.now();
    const stamp = microTime(this.wallNow());
    const seconds = Math.ceil(this.leaseMs / 1000);
    // client-go's fast path: a leader renews the Lease it wrote last, in one request; on any error it reads it again.
    const mine = this.leading ? this.written : undefined;
    if (mine?.spec) {
      try {
        const renewed = await this.client.update<Lease>(leases, { ...mine, spec: { ...mine.spec, renewTime: stamp } });
        this.wrote(renewed, now);
        return { ok: true };
      } catch (err) {
        this.written = undefined;
        this.opts.log?.debug({ err: (err as Error).message, lease: name }, 'renewing the lease optimistically failed; reading it again');
        if (this.stopped) return { ok: false };
      }
    }
    let lease: Lease;
    try {
      lease = await this.client.get<Lease>(leases, namespace, name);
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
      const created = await this.client.create<Lease>(leases, namespace, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: { holderIdentity: identity, leaseDurationSeconds: seconds, acquireTime: stamp, renewTime: stamp, leaseTransitions: 0 },
      });
      this.wrote(created, now);
      return { ok: true };
    }
    const spec = lease.spec ?? {};
    const record = recordOf(lease);
    if (record !== this.observedRecord) this.observe(record, now);
    const holder = spec.holderIdentity ?? '';
    const remaining = this.observedAt + this.judgedLeaseMs(spec.leaseDurationSeconds) - now;
    if (holder && holder !== identity && remaining >= 0) {
      if (this.leading) this.loseLeadership(`lease taken by ${holder}`);
      return { ok: false, expiresInMs: remaining };
    }
    const transitions = spec.leaseTransitions ?? 0;
    const next: Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds: seconds,
        renewTime: stamp,
        acquireTime: holder === identity ? spec.acquireTime : stamp,
        leaseTransitions: holder === identity ? transitions : transitions + (holder ? 1 : 0),
      },
    };
    this.wrote(await this.client.update<Lease>(leases, next), now);
    return { ok: true };
  }

  private observe(record: string, at: number): void {
    this.observedRecord = record;
    this.observedAt = at;
  }

  /** Keeps the Lease as this candidate's write left it, for the next renewal's fast path. */
  private wrote(lease: Lease, at: number): void {
    this.written = lease;
    this.observe(recordOf(lease), at);
  }

  /** Stops; a leader gives the lease up so another candidate can take it at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelDeadline?.();
    if (!this.leading) return;
    this.leading = false;
    if (this.opts.registry) setLeaderStatus(this.opts.registry, this.opts.name, false);
    try {
      const lease = await this.client.get<Lease>(leases, this.opts.namespace, this.opts.name);
      if (lease.spec?.holderIdentity === this.opts.identity) {
        await this.client.update<Lease>(leases, {
          ...lease,
          spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(this.wallNow()) },
        });
      }
    } catch {
      // Best effort: the lease expires by itself.
    }
    this.opts.onStoppedLeading();
  }
}

/** What a candidate compares to tell that the holder renewed (client-go compares the whole record). */
function recordOf(lease: Lease): string {
  const s = lease.spec ?? {};
  return JSON.stringify([s.holderIdentity, s.renewTime, s.leaseTransitions, s.leaseDurationSeconds]);
}
