// A work queue of keys with client-go's guarantees: a key waiting in the
// queue is held once however often it is added; a key is never handed to two
// workers at once (an add while it is processed is replayed after done());
// failed keys come back after a rate-limited delay; delayed adds.
//
// For causality (shared/causality/), a waiting key also remembers the
// resourceVersions of the watch events whose handlers added it (its
// triggers); they go with the key when a worker takes it, and an add while
// it is processed starts the triggers of its next turn.
import { MAX_TRIGGERS } from '../api/write-cause.ts';
import { currentEventRV } from '../causality/event-context.ts';
import { Fifo } from '../util/fifo.ts';
import { realClock, type Clock } from '../clock/clock.ts';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.ts';

const NONE: readonly string[] = Object.freeze([]);

/** Adds `rv` to a key's triggers unless it is there; the newest MAX_TRIGGERS are kept. */
function pushTrigger(list: string[], rv: string): void {
  if (list.includes(rv)) return;
  list.push(rv);
  if (list.length > MAX_TRIGGERS) list.shift();
}

/** Hooks for queue metrics. */
export interface QueueMetrics {
  added(): void;
  depth(n: number): void;
  retried(): void;
  latency(seconds: number): void;
}

/** Options of a queue. */
export interface WorkQueueOptions {
  clock?: Clock;
  rateLimiter?: RateLimiter;
  metrics?: QueueMetrics;
}

/** See the file comment. */
export class WorkQueue {
  private readonly queue = new Fifo<string>();
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly addedAt = new Map<string, number>();
  private readonly waiting = new Map<string, { at: number; cancel: () => void; rvs: string[] }>();
  /** Triggers of keys waiting to be taken (dirty). */
  private readonly triggers = new Map<string, string[]>();
  /** Triggers of keys being processed. */
  private readonly taken = new Map<string, readonly string[]>();
  private getters: ((key: string | undefined) => void)[] = [];
  private shuttingDown = false;
  private readonly clock: Clock;
  private readonly limiter: RateLimiter;

  constructor(private readonly opts: WorkQueueOptions = {}) {
    this.clock = opts.clock ?? realClock;
    this.limiter = opts.rateLimiter ?? defaultControllerRateLimiter(this.clock);
  }

  /** Number of keys waiting (not counting those being processed). */
  get length(): number {
    return this.queue.length;
  }

  /**
   * Queues `key` unless it is already waiting. Called from an informer's
   * handler, the event's resourceVersion becomes one of the key's triggers.
   */
  add(key: string): void {
    this.addTriggered(key, currentEventRV());
  }

  private addTriggered(key: string, rv: string | undefined): void {
    if (this.shuttingDown) return;
    if (rv !== undefined) this.remember(key, rv);
    if (this.dirty.has(key)) return;
    this.opts.metrics?.added();
    this.dirty.add(key);
    if (!this.addedAt.has(key)) this.addedAt.set(key, this.clock.now());
    if (this.processing.has(key)) return;
    const getter = this.getters.shift();
    if (getter) this.handOut(key, getter);
    else {
      this.queue.push(key);
      this.opts.metrics?.depth(this.length);
    }
  }

  private remember(key: string, rv: string): void {
    const list = this.triggers.get(key);
    if (!list) this.triggers.set(key, [rv]);
    else pushTrigger(list, rv);
  }

  /**
   * Queues `key` after `ms`; of several pending delayed adds of one key, the
   * earliest wins. The event being dispatched now, if any, is a trigger of
   * the add when it happens.
   */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const rv = currentEventRV();
    const at = this.clock.now() + ms;
    const previous = this.waiting.get(key);
    if (previous && previous.at <= at) {
      if (rv !== undefined) pushTrigger(previous.rvs, rv);
      return;
    }
    previous?.cancel();
    const rvs = previous?.rvs ?? [];
    if (rv !== undefined) pushTrigger(rvs, rv);
    const cancel = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      for (const r of rvs) this.remember(key, r);
      this.addTriggered(key, undefined);
    }, ms);
    this.waiting.set(key, { at, cancel, rvs });
  }

  /** Queues `key` after its rate-limited retry delay. */
  addRateLimited(key: string): void {
    this.opts.metrics?.retried();
    this.addAfter(key, this.limiter.when(key));
  }

  /** Clears `key`'s failure history (call after a successful sync). */
  forget(key: string): void {
    this.limiter.forget(key);
  }

  /** How many times `key` has been retried since it last succeeded. */
  retries(key: string): number {
    return this.limiter.retries(key);
  }

  /** The next key to process, or undefined once the queue shuts down. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.opts.metrics?.depth(this.length);
      return Promise.resolve(this.take(key));
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /**
   * The resourceVersions of the watch events that queued `key` for the turn
   * it is being processed in (newest last, at most MAX_TRIGGERS); empty when
   * it is not being processed or nothing dispatched queued it.
   */
  triggersOf(key: string): readonly string[] {
    return this.taken.get(key) ?? NONE;
  }

  private take(key: string): string {
    this.dirty.delete(key);
    this.processing.add(key);
    const triggers = this.triggers.get(key);
    if (triggers) {
      this.triggers.delete(key);
      this.taken.set(key, triggers);
    } else this.taken.delete(key);
    const at = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (at !== undefined) this.opts.metrics?.latency((this.clock.now() - at) / 1000);
    return key;
  }

  private handOut(key: string, getter: (key: string | undefined) => void): void {
    getter(this.take(key));
  }

  /** Marks `key` finished; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    this.taken.delete(key);
    if (this.dirty.has(key)) {
      this.dirty.delete(key);
      // Its triggers, gathered while it was processed, wait with it.
      this.addTriggered(key, undefined);
    }
  }

  /** Stops handing out keys; waiting getters get undefined. */
  shutdown(): void {
    this.shuttingDown = true;
    for (const w of this.waiting.values()) w.cancel();
    this.waiting.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }

  /** True after shutdown(). */
  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }
}
