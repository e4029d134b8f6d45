// kube-scheduler's scheduling queue: activeQ (ordered by priority, then by
// when the Pod was queued), backoffQ (Pods waiting out 1 s doubling to 10 s
// after a failed attempt) and unschedulablePods (parked until a cluster
// event that one of the rejecting plugins cares about, or for at most five
// minutes). Pods with schedulingGates wait in a gated set. Every duration is
// divided by --speed; time comes from the injected clock.
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { Clock } from '../shared/clock/clock.ts';
import { keyOf } from '../shared/informer/cache.ts';
import type { ClusterEvent } from './framework/types.ts';
import { KeyedHeap } from './heap.ts';

/** A Pod in the queue and what its attempts taught. */
export interface QueuedPod {
  pod: Pod;
  key: string;
  /** When it last entered the queue (orders equal priorities). */
  timestamp: number;
  /** When it was first queued (for the pod scheduling duration). */
  initialAttempt: number;
  attempts: number;
  /** Plugins that rejected it last time. */
  unschedulablePlugins: Set<string>;
  /** The scheduling cycle in which it was popped. */
  cycle: number;
}

/** Queue timings (ms, before --speed). */
export interface QueueOptions {
  clock: Clock;
  priorityOf: (pod: Pod) => number;
  /** Which plugins care about which event (a Pod is moved only if one of its rejecting plugins does). */
  pluginsFor: (event: ClusterEvent) => Set<string>;
  speed?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  maxInUnschedulableMs?: number;
}

type Where = 'active' | 'backoff' | 'unschedulable' | 'gated';

/** See the file comment. */
export class SchedulingQueue {
  private readonly active: KeyedHeap<QueuedPod>;
  private readonly backoff: KeyedHeap<QueuedPod>;
  private readonly unschedulable = new Map<string, QueuedPod>();
  private readonly gated = new Map<string, QueuedPod>();
  private readonly inFlight = new Map<string, QueuedPod & { updated?: boolean }>();
  private readonly waiters: ((p: QueuedPod | undefined) => void)[] = [];
  private schedulingCycle = 0;
  private moveRequestCycle = -1;
  private closed = false;
  private readonly cancels: (() => void)[] = [];
  private readonly speed: number;
  private readonly initialBackoff: number;
  private readonly maxBackoff: number;
  private readonly maxUnschedulable: number;

  constructor(private readonly opts: QueueOptions) {
    this.speed = opts.speed && opts.speed > 0 ? opts.speed : 1;
    this.initialBackoff = (opts.initialBackoffMs ?? 1000) / this.speed;
    this.maxBackoff = (opts.maxBackoffMs ?? 10_000) / this.speed;
    this.maxUnschedulable = (opts.maxInUnschedulableMs ?? 300_000) / this.speed;
    this.active = new KeyedHeap(
      (q) => q.key,
      (a, b) => {
        const pa = opts.priorityOf(a.pod);
        const pb = opts.priorityOf(b.pod);
        return pa !== pb ? pa > pb : a.timestamp < b.timestamp;
      },
    );
    this.backoff = new KeyedHeap(
      (q) => q.key,
      (a, b) => this.backoffExpiry(a) < this.backoffExpiry(b),
    );
  }

  /** Starts the periodic flushes (backoff every second, unschedulable every 30 s, both divided by speed). */
  run(): void {
    const every = (ms: number, fn: () => void) => {
      const tick = () => {
        if (this.closed) return;
        fn();
        this.cancels.push(this.opts.clock.setTimeout(tick, ms));
      };
      this.cancels.push(this.opts.clock.setTimeout(tick, ms));
    };
    every(Math.max(10, 1000 / this.speed), () => this.flushBackoffCompleted());
    every(Math.max(10, 30_000 / this.speed), () => this.flushUnschedulableLeftover());
  }

  /** Queue sizes, for scheduler_pending_pods. */
  sizes(): Record<Where, number> {
    return { active: this.active.size, backoff: this.backoff.size, unschedulable: this.unschedulable.size, gated: this.gated.size };
  }

  /** Where `key` waits, if it does. */
  where(key: string): Where | undefined {
    if (this.active.has(key)) return 'active';
    if (this.backoff.has(key)) return 'backoff';
    if (this.unschedulable.has(key)) return 'unschedulable';
    if (this.gated.has(key)) return 'gated';
    return undefined;
  }

  /** A new Pending Pod. */
  add(pod: Pod): void {
    const now = this.opts.clock.now();
    const key = keyOf(pod);
    if (this.where(key) || this.inFlight.has(key)) return this.update(pod);
    this.enqueueActive({ pod, key, timestamp: now, initialAttempt: now, attempts: 0, unschedulablePlugins: new Set(), cycle: 0 });
  }

  /** A Pending Pod changed: replace it, and move it if the change may make it schedulable. */
  update(pod: Pod): void {
    const key = keyOf(pod);
    const flying = this.inFlight.get(key);
    if (flying) {
      if (podChanged(flying.pod, pod)) flying.updated = true;
      flying.pod = pod;
      return;
    }
    for (const heap of [this.active, this.backoff]) {
      const q = heap.get(key);
      if (q) {
        q.pod = pod;
        heap.push(q);
        return;
      }
    }
    const gated = this.gated.get(key);
    if (gated) {
      gated.pod = pod;
      if (!isGated(pod)) {
        this.gated.delete(key);
        this.enqueueActive(gated);
      }
      return;
    }
    const parked = this.unschedulable.get(key);
    if (parked) {
      const changed = podChanged(parked.pod, pod);
      parked.pod = pod;
      if (changed) {
        this.unschedulable.delete(key);
        this.requeue(parked);
      }
      return;
    }
    this.add(pod);
  }

  /** A Pending Pod was deleted or bound by someone else. */
  delete(pod: Pod): void {
    const key = keyOf(pod);
    this.active.delete(key);
    this.backoff.delete(key);
    this.unschedulable.delete(key);
    this.gated.delete(key);
  }

  /** The next Pod to schedule; waits while activeQ is empty; undefined once closed. */
  pop(): Promise<QueuedPod | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const q = this.active.pop();
    if (q) return Promise.resolve(this.takeOff(q));
    return new Promise((r) => this.waiters.push(r));
  }

  private takeOff(q: QueuedPod): QueuedPod {
    q.attempts++;
    q.cycle = ++this.schedulingCycle;
    this.inFlight.set(q.key, q);
    return q;
  }

  /** The attempt of `q` is over (bound, or about to be requeued). */
  done(key: string): void {
    this.inFlight.delete(key);
  }

  /**
   * After a failed attempt: to unschedulablePods, or straight to backoff if
   * the cluster changed during the attempt (a move request was missed), the
   * Pod itself changed, or the failure was an error rather than a misfit.
   */
  requeueAfterFailure(q: QueuedPod, plugins: Set<string>, error = false): void {
    const flying = this.inFlight.get(q.key);
    this.inFlight.delete(q.key);
    if (this.closed || this.where(q.key)) return;
    q.unschedulablePlugins = plugins;
    q.timestamp = this.opts.clock.now();
    if (error || flying?.updated || this.moveRequestCycle >= q.cycle) this.backoff.push(q);
    else this.unschedulable.set(q.key, q);
  }

  /** A cluster event happened: move the unschedulable Pods it may help. */
  moveAllToActiveOrBackoff(event: ClusterEvent): void {
    const interested = this.opts.pluginsFor(event);
    for (const [key, q] of this.unschedulable) {
      if (q.unschedulablePlugins.size > 0 && ![...q.unschedulablePlugins].some((p) => interested.has(p))) continue;
      this.unschedulable.delete(key);
      this.requeue(q);
    }
    this.moveRequestCycle = this.schedulingCycle;
  }

  /** Moves backed-off Pods whose backoff has expired to activeQ. */
  flushBackoffCompleted(): void {
    const now = this.opts.clock.now();
    for (;;) {
      const q = this.backoff.peek();
      if (!q || this.backoffExpiry(q) > now) return;
      this.backoff.pop();
      this.enqueueActive(q);
    }
  }

  /** Moves Pods parked longer than the maximum back into the queue. */
  flushUnschedulableLeftover(): void {
    const now = this.opts.clock.now();
    for (const [key, q] of this.unschedulable) {
      if (now - q.timestamp > this.maxUnschedulable) {
        this.unschedulable.delete(key);
        this.requeue(q);
      }
    }
  }

  /** How long a Pod with `attempts` failed attempts waits. */
  backoffDuration(attempts: number): number {
    let d = this.initialBackoff;
    for (let i = 1; i < attempts; i++) {
      d *= 2;
      if (d >= this.maxBackoff) return this.maxBackoff;
    }
    return d;
  }

  private backoffExpiry(q: QueuedPod): number {
    return q.timestamp + this.backoffDuration(q.attempts);
  }

  private requeue(q: QueuedPod): void {
    if (this.backoffExpiry(q) > this.opts.clock.now()) this.backoff.push(q);
    else this.enqueueActive(q);
  }

  private enqueueActive(q: QueuedPod): void {
    if (this.closed) return;
    if (isGated(q.pod)) {
      this.gated.set(q.key, q);
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter(this.takeOff(q));
    else this.active.push(q);
  }

  /** Stops the queue; pending pop() calls resolve undefined. */
  close(): void {
    this.closed = true;
    for (const c of this.cancels.splice(0)) c();
    for (const w of this.waiters.splice(0)) w(undefined);
  }
}

function isGated(pod: Pod): boolean {
  return (pod.spec?.schedulingGates?.length ?? 0) > 0;
}

const OWN_ANNOTATION = 'ksim.io/scheduling-decision';

/** Whether a Pending Pod changed in a way that may change where it fits (not its status or our annotation). */
export function podChanged(a: Pod, b: Pod): boolean {
  if (JSON.stringify(a.spec) !== JSON.stringify(b.spec)) return true;
  if (JSON.stringify(a.metadata?.labels ?? {}) !== JSON.stringify(b.metadata?.labels ?? {})) return true;
  const strip = (m: ObjectMeta | undefined) => {
    const { [OWN_ANNOTATION]: _own, ...rest } = m?.annotations ?? {};
    return JSON.stringify(rest);
  };
  return strip(a.metadata) !== strip(b.metadata);
}
