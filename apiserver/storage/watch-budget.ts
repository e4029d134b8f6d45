// The memory bound over all watchers together. Each outbox reports what it
// has queued (its own live batches plus what its socket still holds) when
// that changes; when the sum passes the budget, the figures are refreshed
// (sockets drain without telling anyone) and the watchers furthest behind
// are dropped until the sum is back under it. Kube's cacher does the same
// with a watcher whose buffer is full: it terminates it, the client sees its
// stream end and watches again from its last resourceVersion.
//
// The sum counts a buffer shared by k watchers k times: it is what those
// watchers would cost if nothing were shared (Table views, a watcher's own
// selector transitions), so the true memory is never above it, whatever
// can or cannot be shared.
import { getHeapStatistics } from 'node:v8';

/** A watcher's queue as the budget sees it. */
export interface Budgeted {
  /** Bytes queued now (refreshed when the budget recounts). */
  queuedBytes(): number;
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
  private readonly counted = new Map<Budgeted, number>();
  private sum = 0;
  private lastRecount = -Infinity;
  private dropCount = 0;

  constructor(
    /** Bytes all watchers together may have queued. */
    public limit: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Records what `w` has queued now (registering it); may drop watchers, `w` among them. */
  update(w: Budgeted, bytes: number): void {
    const before = this.counted.get(w) ?? 0;
    this.counted.set(w, bytes);
    this.sum += bytes - before;
    if (this.sum > this.limit) this.enforce();
  }

  /** Forgets `w` (its watch ended). */
  remove(w: Budgeted): void {
    const before = this.counted.get(w);
    if (before === undefined) return;
    this.counted.delete(w);
    this.sum -= before;
  }

  /** Bytes queued to all watchers, as last reported. */
  get total(): number {
    return this.sum;
  }

  /** Watchers dropped because the total was over the budget. */
  get drops(): number {
    return this.dropCount;
  }

  /** Number of watchers counted. */
  get size(): number {
    return this.counted.size;
  }

  /** Refreshes every watcher's figure; returns the total. */
  recount(): number {
    this.lastRecount = this.now();
    let sum = 0;
    for (const w of this.counted.keys()) {
      const bytes = w.queuedBytes();
      this.counted.set(w, bytes);
      sum += bytes;
    }
    this.sum = sum;
    return sum;
  }

  private enforce(): void {
    if (this.now() - this.lastRecount < RECOUNT_INTERVAL_MS) return;
    if (this.recount() <= this.limit) return;
    const target = this.limit * AFTER_DROP_FRACTION;
    // Furthest behind first: they are the ones that cannot keep up, and each frees the most.
    const order = [...this.counted].sort((a, b) => b[1] - a[1]);
    for (const [w] of order) {
      if (this.sum <= target) break;
      if (!this.counted.has(w)) continue;
      this.remove(w);
      this.dropCount++;
      w.drop();
      // Whatever drop() did, it no longer counts.
      this.remove(w);
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
