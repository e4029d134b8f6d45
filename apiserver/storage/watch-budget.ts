// The memory bound over all watchers together. Each outbox tells the budget
// what it holds: the live batches it has queued and the buffers its socket
// has not yet written. A buffer or batch that several watchers hold (the
// shared encodings of watch-encoding.ts, the hub's shared arrays) is counted
// once, with a count of holders; what is a watcher's own (a rendered Table,
// a replay encoded for it alone) is counted for it. When the total passes
// the budget, every outbox first lets go of what its socket has written
// since it last looked (sockets drain without telling anyone), then the
// watchers furthest behind are dropped until the total is back under it.
// Kube's cacher does the same with a watcher whose buffer is full: it
// terminates it, the client sees its stream end and watches again from its
// last resourceVersion.
import { getHeapStatistics } from 'node:v8';

/** A watcher's queue as the budget sees it. */
export interface Budgeted {
  /** How far behind this watcher is: every byte queued for it, shared or not (the order in which watchers are dropped). */
  queuedBytes(): number;
  /** Lets go of what its socket has written since it last looked. */
  refresh(): void;
  /** Ends the watch because the total is over the budget. */
  drop(): void;
}

/**
 * The default total: an eighth of the V8 heap limit, between 64 MiB and
 * 512 MiB. Queued events are strings on the heap (rendered views) or
 * buffers beside it that grow the RSS alike; the heap also has to hold every
 * object, the change-log window and the responses being built, so the
 * watchers get a small share of it. The cap keeps a large heap limit (set
 * with --max-old-space-size) from letting the watchers of a laptop cluster
 * take gigabytes: a watcher half a gigabyte behind all the others is better
 * off relisting.
 */
export function defaultTotalBudget(): number {
  const limit = getHeapStatistics().heap_size_limit;
  return Math.min(512 * 2 ** 20, Math.max(64 * 2 ** 20, Math.floor(limit / 8)));
}

/** A recount walks every watcher: at most once per this many milliseconds. */
const RECOUNT_INTERVAL_MS = 5;
/** Drops go on until the total is this fraction of the budget, so one watcher's next event does not trigger another round at once. */
const AFTER_DROP_FRACTION = 0.9;

/** See the file comment. */
export class WatchBudget {
  private readonly members = new Set<Budgeted>();
  /** Held buffers and batches, with their size and number of holders. */
  private readonly shared = new Map<object, { bytes: number; refs: number }>();
  private sum = 0;
  private lastRecount = -Infinity;
  private dropCount = 0;

  constructor(
    /** Bytes all watchers together may hold. */
    public limit: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Registers a watcher (until leave()). */
  join(w: Budgeted): void {
    this.members.add(w);
  }

  /** Unregisters a watcher; it has released everything it held. */
  leave(w: Budgeted): void {
    this.members.delete(w);
  }

  /** A watcher holds `bytes`: of `ref`, counted once however many hold it, or its own when `ref` is undefined. */
  hold(ref: object | undefined, bytes: number): void {
    if (ref === undefined) {
      this.sum += bytes;
      return;
    }
    const e = this.shared.get(ref);
    if (e) e.refs++;
    else {
      this.shared.set(ref, { bytes, refs: 1 });
      this.sum += bytes;
    }
  }

  /** Undoes one hold(ref, bytes). */
  release(ref: object | undefined, bytes: number): void {
    if (ref === undefined) {
      this.sum -= bytes;
      return;
    }
    const e = this.shared.get(ref);
    if (!e) return;
    if (--e.refs === 0) {
      this.shared.delete(ref);
      this.sum -= e.bytes;
    }
  }

  /** Called after holds: drops watchers when the total is over the budget. */
  check(): void {
    if (this.sum > this.limit) this.enforce();
  }

  /** Bytes held for all watchers, each shared buffer once, as last reported. */
  get total(): number {
    return this.sum;
  }

  /** Watchers dropped because the total was over the budget. */
  get drops(): number {
    return this.dropCount;
  }

  /** Number of watchers registered. */
  get size(): number {
    return this.members.size;
  }

  /** Has every watcher let go of what its socket has written; returns the total. */
  recount(): number {
    this.lastRecount = this.now();
    for (const w of this.members) w.refresh();
    return this.sum;
  }

  private enforce(): void {
    if (this.now() - this.lastRecount < RECOUNT_INTERVAL_MS) return;
    if (this.recount() <= this.limit) return;
    const target = this.limit * AFTER_DROP_FRACTION;
    // Furthest behind first: they are the ones that cannot keep up, and each frees the most.
    const order = [...this.members].map((w) => ({ w, bytes: w.queuedBytes() })).sort((a, b) => b.bytes - a.bytes);
    for (const { w, bytes } of order) {
      // A watcher with nothing queued frees nothing: dropping it would only make its client relist.
      if (this.sum <= target || bytes === 0) break;
      if (!this.members.has(w)) continue;
      this.dropCount++;
      w.drop();
    }
  }
}

/** Why a watcher was dropped: it alone was too far behind, its peer stopped reading, or all watchers together held too much. */
export type DropReason = 'watcher' | 'stalled' | 'total';

/** Counts of dropped watchers, by resource and reason (kube's apiserver_terminated_watchers_total, with ksim's reason beside it). */
export class WatchTerminations {
  private readonly counts = new Map<string, { group: string; resource: string; reason: DropReason; count: number }>();

  record(group: string, resource: string, reason: DropReason): void {
    const key = `${group}/${resource}/${reason}`;
    const c = this.counts.get(key);
    if (c) c.count++;
    else this.counts.set(key, { group, resource, reason, count: 1 });
  }

  all(): Iterable<{ group: string; resource: string; reason: DropReason; count: number }> {
    return this.counts.values();
  }
}

/** The apiserver's record of dropped watchers. */
export const watchTerminations = new WatchTerminations();

/** The apiserver's one budget for every watcher. */
export const watchBudget = new WatchBudget(defaultTotalBudget());
