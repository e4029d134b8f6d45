// The store: the single source of truth inside the apiserver. Writes are
// sequenced in memory (one global revision counter), group-committed to the
// backend in one synced batch per tick, and only then made visible to reads
// and watches and acknowledged. Reads are served from memory at the last
// committed revision, or at an older one inside the change-log window.
//
// When the backend fails a commit (a full or read-only disk), the batch is
// undone as if it had never been sequenced: its writers and every write
// queued behind it get a 500 Status, memory, the revision counter and the
// watchers never see it. Reads and watches go on from memory; writes are
// refused until a background retry has reopened the backend and durably
// undone whatever part of the batch reached the disk.
//
// History (every revision of every object, with who wrote it) is written in
// the same batch as the change, and kept by its own HistoryPolicy: watch
// window compaction never trims it (see history.ts for the reads).
import { gone } from '../../shared/api/errors.ts';
import { ChangeLog } from './change-log.ts';
import { History } from './history.ts';
import { bucketOf, compareKeys, lowerBound, ObjectIndex } from './object-index.ts';
import { WatchHub, viewOf, type WatchEvent, type Watcher } from './watch-hub.ts';
import { SerializedObject } from './serialized-object.ts';
import { classifyStorageFailure, storageWriteError, type StorageFailureKind, type WriteOperation } from './storage-errors.ts';
import type {
  ChangeEvent,
  Entry,
  HistoryPolicy,
  HistoryRecord,
  Mutate,
  ObjectMatcher,
  ObjectToStore,
  PersistenceBackend,
  PersistOp,
  StoredObject,
  TxnResult,
  WriteRecord,
} from './types.ts';

/** What a write says about itself beyond the object. */
export interface WriteOptions {
  /** Who made the write, kept with the revision in history. */
  writer?: WriteRecord;
}

/**
 * Told of a write the moment it starts (txn was called): returns what to call
 * with its outcome (the committed result, or why it was refused), or
 * undefined for a write it does not follow. The request trace follows the
 * writes of traced requests.
 */
export type WriteObserver = (key: string, opts: WriteOptions) => ((outcome: { result?: TxnResult; error?: unknown }) => void) | undefined;

/**
 * Told of every committed batch's history records, in revision order, right
 * after its watchers (the history API's watch of `changes`). Only while
 * history is kept: without it there are no changes to follow.
 */
export type CommitObserver = (records: readonly HistoryRecord[]) => void;

/** How long the change log is kept. */
export interface CompactionPolicy {
  /** Every interval, compact to the revision seen one interval ago (kube-apiserver's etcd-compaction-interval, 5 min). */
  intervalMs: number;
  /** Never hold more than this many events, whatever their age. */
  maxEvents: number;
  /**
   * How many of the newest events a restart loads back into the window.
   * Older ones stay on disk until compacted, but a watch or list from before
   * them gets 410, as kube's watch cache answers after an apiserver restart.
   */
  restoreEvents: number;
}

/** A list request against one bucket. */
export interface ListOptions {
  bucket: string;
  /** Only keys with this prefix (bucket + "/" for all, or a namespace). */
  keyPrefix: string;
  /** Continue after this key (exclusive). */
  startAfter?: string;
  /** Serve the list as of this revision (must be inside the window); default the latest. */
  atRev?: number;
  limit?: number;
  matches?: ObjectMatcher;
}

/** A page of a list. */
export interface ListResult {
  rev: number;
  items: string[];
  /** The last key returned, when more items may follow. */
  lastKey?: string;
  /** How many matching-by-key items remain after this page (before selector filtering). */
  remaining?: number;
}

interface PendingWrite {
  key: string;
  event?: ChangeEvent;
  /** For history: when the write was sequenced and by whom. */
  at?: number;
  writer?: WriteRecord;
  rev: number;
  json: string | undefined;
  type: TxnResult['type'];
  resolve: (r: TxnResult) => void;
  reject: (err: unknown) => void;
  /** A WriteObserver follows it: its result counts the watchers its event reached. */
  observed?: boolean;
}

/** What the store does about a failing backend, and whom it tells. */
export interface FailurePolicy {
  /** How long after a failure (and after each failed attempt) the store tries to recover (default 1 s). */
  retryIntervalMs: number;
  /** Called when storage starts failing, and again when the failure changes (say, from no space to read-only). */
  onFailure: (err: unknown, kind: StorageFailureKind) => void;
  /** Called once writes work again. */
  onRecovered: () => void;
  /** Called when compacting the on-disk log failed (harmless: it is retried at the next tick). */
  onCompactionError: (err: unknown) => void;
}

/** The health of storage, for /readyz and /livez. */
export type StorageHealth = { ok: true } | { ok: false; kind: StorageFailureKind; error: unknown; sinceMs: number };

const OPERATION: Record<TxnResult['type'], WriteOperation> = { ADDED: 'create', MODIFIED: 'update', DELETED: 'delete', NOOP: 'update' };

const DEFAULT_COMPACTION: CompactionPolicy = { intervalMs: 5 * 60_000, maxEvents: 200_000, restoreEvents: 20_000 };
const DEFAULT_FAILURE: FailurePolicy = { retryIntervalMs: 1000, onFailure: () => {}, onRecovered: () => {}, onCompactionError: () => {} };

function stampAndSerialize(obj: ObjectToStore, rev: number): string {
  obj.metadata ??= {};
  obj.metadata.resourceVersion = String(rev);
  return JSON.stringify(obj);
}

/** See the file comment. */
export class Store {
  private readonly index = new ObjectIndex();
  private readonly log = new ChangeLog();
  private readonly hub = new WatchHub();
  /** Sequenced but not yet committed writes, by key (null = deleted). */
  private readonly pending = new Map<string, { rev: number; json: string | null }>();
  private queue: PendingWrite[] = [];
  private writing = false;
  private flushScheduled = false;
  private committedRev = 0;
  private assignedRev = 0;
  private compactedRev = 0;
  /** Lists older than this cannot be rebuilt (previous versions lost at a restart). */
  private snapshotFloor = 0;
  /** Waiting for a revision to commit; `abandon` is called instead when a failed commit drops that revision. */
  private revWaiters: { rev: number; resolve: () => void; abandon?: (kind: StorageFailureKind) => void }[] = [];
  /** Set while storage fails: the events to undo on disk before the next commit, and the failure. */
  private failure?: { error: unknown; kind: StorageFailureKind; sinceMs: number; undo: ChangeEvent[] };
  private recoveryTimer?: NodeJS.Timeout;
  private compactionTimer?: NodeJS.Timeout;
  private lastTickRev = 0;
  private closed = false;
  private readonly writeObservers: WriteObserver[] = [];
  private readonly commitObservers = new Set<CommitObserver>();
  private commitDelayListener?: (ms: number) => void;
  /** Keys written since the last history trim (only tracked when history is kept by count). */
  private readonly trimKeys = new Set<string>();
  private trimming?: Promise<void>;
  /** Reads of every kept revision of every object. */
  readonly history: History;

  private constructor(
    private readonly backend: PersistenceBackend,
    private readonly policy: CompactionPolicy,
    private readonly failurePolicy: FailurePolicy,
    private readonly historyPolicy: HistoryPolicy | false,
    private readonly now: () => number,
  ) {
    this.history = new History({ backend, revision: () => this.committedRev, get: (key) => this.index.get(key) });
  }

  /**
   * Loads everything from `backend` and starts compaction. `history` is how
   * long every revision is kept (default: for ever; false keeps none), and
   * `now` the clock that stamps each revision's time.
   */
  static async open(
    backend: PersistenceBackend,
    opts: {
      compaction?: Partial<CompactionPolicy>;
      failure?: Partial<FailurePolicy>;
      history?: HistoryPolicy | false;
      now?: () => number;
    } = {},
  ): Promise<Store> {
    const policy = { ...DEFAULT_COMPACTION, ...opts.compaction };
    const store = new Store(backend, policy, { ...DEFAULT_FAILURE, ...opts.failure }, opts.history ?? {}, opts.now ?? Date.now);
    await store.load();
    store.compactionTimer = setInterval(() => void store.compactTick(), policy.intervalMs);
    store.compactionTimer.unref();
    return store;
  }

  private async load(): Promise<void> {
    const meta = await this.backend.loadMeta();
    await this.backend.loadObjects((key, rev, json) => this.index.set(key, { rev, json }));
    // Only the newest events come back: a restart must serve quickly, whatever the history's size.
    const floor = Math.max(meta.compacted, meta.rev - this.policy.restoreEvents);
    this.compactedRev = floor;
    this.snapshotFloor = floor;
    const latest = new Map<string, ChangeEvent>();
    let lastRev = floor;
    await this.backend.loadLog(floor, (ev) => {
      // The newest version of a key is the stored object itself: share its
      // strings. The decoded key is a slice of the whole ~2 KB log record and
      // would keep that record alive once the JSON no longer does.
      const current = this.index.get(ev.key);
      if (current && current.rev === ev.rev) {
        ev.json = current.json;
        ev.key = this.index.storedKey(ev.key) ?? ev.key;
      }
      if (ev.prevRev > 0) {
        const before = latest.get(ev.key);
        if (before && before.rev === ev.prevRev && before.json !== '') ev.prev = before.json;
        else {
          ev.prevUnknown = true;
          this.snapshotFloor = Math.max(this.snapshotFloor, ev.rev);
        }
      }
      latest.set(ev.key, ev);
      lastRev = ev.rev;
      if (ev.json === '') {
        // This version's JSON was never copied out of its object record
        // (its replacement was written after a restart had dropped the event
        // from memory): the window starts after it.
        this.log.trimThrough(ev.rev);
        this.compactedRev = this.snapshotFloor = Math.max(this.snapshotFloor, ev.rev);
        return;
      }
      this.log.append(ev);
    });
    this.committedRev = this.assignedRev = Math.max(meta.rev, lastRev);
    this.lastTickRev = this.committedRev;
  }

  /** The last committed revision: the resourceVersion of a list served now. */
  get revision(): number {
    return this.committedRev;
  }

  /** The revision below which history is gone. */
  get compactedRevision(): number {
    return this.compactedRev;
  }

  /** Whether writes reach the disk now, and if not, why and since when. */
  get health(): StorageHealth {
    const f = this.failure;
    return f ? { ok: false, kind: f.kind, error: f.error, sinceMs: f.sinceMs } : { ok: true };
  }

  /** Number of open watchers. */
  get watcherCount(): number {
    return this.hub.size;
  }

  /** Number of live objects, in one bucket or in all. */
  objectCount(bucket?: string): number {
    return this.index.size(bucket);
  }

  /** A number that changes whenever a committed object of `bucket` does (for caches of derived data). */
  bucketVersion(bucket: string): number {
    return this.index.bucketVersion(bucket);
  }

  /** The committed keys of `bucket` that start with `keyPrefix`, in key order. */
  keys(bucket: string, keyPrefix: string): string[] {
    const { keys, from, to } = this.index.keysWithPrefix(bucket, keyPrefix);
    return keys.slice(from, to);
  }

  /** The committed entry at `key`. */
  get(key: string): Entry | undefined {
    return this.index.get(key);
  }

  /** Resolves true once `rev` is committed, false after `timeoutMs`. */
  waitForRevision(rev: number, timeoutMs: number): Promise<boolean> {
    if (rev <= this.committedRev) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { rev, resolve: () => resolve(true) };
      this.revWaiters.push(waiter);
      setTimeout(() => {
        const i = this.revWaiters.indexOf(waiter);
        if (i >= 0) {
          this.revWaiters.splice(i, 1);
          resolve(false);
        }
      }, timeoutMs).unref();
    });
  }

  /**
   * Reads the latest version of `key` (including uncommitted writes ahead of
   * it), lets `mutate` decide, and commits the decision durably. `mutate` runs
   * synchronously and may throw a StatusError to refuse the write.
   * `opts.writer` is recorded with the revision in history.
   */
  txn(key: string, mutate: Mutate, opts: WriteOptions = {}): Promise<TxnResult> {
    if (this.writeObservers.length === 0) return this.write(key, mutate, opts);
    const told = this.writeObservers.map((o) => o(key, opts)).filter((f) => f !== undefined);
    const done = this.write(key, mutate, opts, told.length > 0);
    if (told.length)
      done.then(
        (result) => told.forEach((f) => f({ result })),
        (error: unknown) => told.forEach((f) => f({ error })),
      );
    return done;
  }

  /** Follows every later commit (see CommitObserver) until the returned function is called. */
  /** Calls `listener` with each committed write's delay from its sequencing (its revision's time) to its commit: the wait for earlier batches and the durable write. */
  observeCommitDelays(listener: (ms: number) => void): void {
    this.commitDelayListener = listener;
  }

  observeCommits(observer: CommitObserver): () => void {
    this.commitObservers.add(observer);
    return () => this.commitObservers.delete(observer);
  }

  /** Follows every later write (see WriteObserver). */
  observeWrites(observer: WriteObserver): void {
    this.writeObservers.push(observer);
  }

  private write(key: string, mutate: Mutate, opts: WriteOptions, observed = false): Promise<TxnResult> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    let resolve!: (r: TxnResult) => void;
    let reject!: (e: unknown) => void;
    const done = new Promise<TxnResult>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    try {
      const current = this.latest(key);
      const next = mutate(current ? JSON.parse(current.json) : undefined);
      if (this.failure && next !== undefined) {
        // Nothing is pending while storage fails: `current` is committed, and a no-op is answered as usual.
        reject(storageWriteError(this.failure.kind, key, next === null ? 'delete' : current ? 'update' : 'create'));
      } else if (next === undefined) {
        this.enqueue({ key, rev: current?.rev ?? this.assignedRev, json: current?.json, type: 'NOOP', resolve, reject });
      } else if (next === null) {
        if (!current) throw new Error(`store: delete of missing key ${key}`);
        const rev = ++this.assignedRev;
        const obj = JSON.parse(current.json) as StoredObject;
        obj.metadata.resourceVersion = String(rev);
        const json = JSON.stringify(obj);
        const event: ChangeEvent = { rev, type: 'DELETED', key, json, prevRev: current.rev, prev: current.json };
        this.pending.set(key, { rev, json: null });
        this.enqueue({ key, event, rev, json, type: 'DELETED', resolve, reject, at: this.now(), writer: opts.writer, observed });
      } else {
        const rev = ++this.assignedRev;
        const json = next instanceof SerializedObject ? next.withResourceVersion(rev) : stampAndSerialize(next, rev);
        const type = current ? 'MODIFIED' : 'ADDED';
        const event: ChangeEvent = { rev, type, key, json, prevRev: current?.rev ?? 0, prev: current?.json };
        this.pending.set(key, { rev, json });
        this.enqueue({ key, event, rev, json, type, resolve, reject, at: this.now(), writer: opts.writer, observed });
      }
    } catch (err) {
      // A refusal that read a write not yet committed is answered once that write is: whoever
      // gets it (a NotFound for an object being deleted, say) can no longer read the older state.
      const uncommitted = this.pending.get(key);
      if (uncommitted)
        this.revWaiters.push({
          rev: uncommitted.rev,
          resolve: () => reject(err),
          abandon: (kind) => reject(storageWriteError(kind, key, 'update')),
        });
      else reject(err);
    }
    return done;
  }

  private latest(key: string): Entry | undefined {
    const p = this.pending.get(key);
    if (p) return p.json === null ? undefined : { rev: p.rev, json: p.json };
    return this.index.get(key);
  }

  private enqueue(w: PendingWrite): void {
    this.queue.push(w);
    if (!this.writing && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  private async flush(): Promise<void> {
    this.flushScheduled = false;
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const batch = this.queue;
    this.queue = [];
    const writes = batch.filter((w) => w.event !== undefined);
    const events = writes.map((w) => w.event!);
    try {
      if (events.length > 0) await this.backend.commit(this.persistOps(writes), events[events.length - 1].rev);
    } catch (err) {
      this.abandon(batch, events, err);
      this.writing = false;
      return;
    }
    const committedAt = this.now();
    if (this.commitDelayListener) for (const w of writes) this.commitDelayListener(committedAt - w.at!);
    for (const ev of events) this.apply(ev);
    if (events.length > 0) this.committedRev = events[events.length - 1].rev;
    // Followed writes learn how many watchers their event reached.
    let tally: Map<ChangeEvent, number> | undefined;
    for (const w of writes) if (w.observed) (tally ??= new Map()).set(w.event!, 0);
    this.hub.dispatch(events, tally);
    if (this.commitObservers.size > 0 && this.historyPolicy !== false && writes.length > 0) this.tellCommit(writes, committedAt);
    for (const w of batch)
      w.resolve(
        tally && w.observed && w.event
          ? { type: w.type, rev: w.rev, json: w.json, watchers: tally.get(w.event) }
          : { type: w.type, rev: w.rev, json: w.json },
      );
    this.wakeRevisionWaiters();
    this.trimWindow();
    this.writing = false;
    if (this.queue.length > 0) void this.flush();
  }

  /** Hands a committed batch's records to the commit observers; one that throws is dropped, the others go on. */
  private tellCommit(writes: PendingWrite[], committedAt: number): void {
    const records: HistoryRecord[] = writes.map((w) => {
      const ev = w.event!;
      const r: HistoryRecord = { rev: ev.rev, type: ev.type, key: ev.key, at: w.at!, json: ev.json, committedAt };
      if (w.writer) r.writer = w.writer;
      return r;
    });
    for (const observe of [...this.commitObservers]) {
      try {
        observe(records);
      } catch {
        this.commitObservers.delete(observe);
      }
    }
  }

  /**
   * Forgets a batch the backend failed to commit, and everything sequenced
   * after it (each may have read the batch's writes): their writers get the
   * storage error, the revision counter goes back to the last commit, and
   * storage counts as failing until recover() has undone the batch on disk.
   */
  private abandon(batch: PendingWrite[], events: ChangeEvent[], err: unknown): void {
    const kind = classifyStorageFailure(err);
    this.failure = { error: err, kind, sinceMs: Date.now(), undo: events };
    const dropped = [...batch, ...this.queue];
    this.queue = [];
    this.pending.clear();
    this.assignedRev = this.committedRev;
    for (const w of dropped) {
      // A no-op that read only committed state stays true.
      if (w.type === 'NOOP' && w.rev <= this.committedRev && (w.json === undefined || this.index.get(w.key)?.json === w.json)) {
        w.resolve({ type: w.type, rev: w.rev, json: w.json });
      } else {
        w.reject(storageWriteError(kind, w.key, OPERATION[w.type]));
      }
    }
    // Refusals that read a dropped write were judged on state that never existed: they fail as it did.
    const abandoned = this.revWaiters.filter((w) => w.abandon && w.rev > this.committedRev);
    this.revWaiters = this.revWaiters.filter((w) => !abandoned.includes(w));
    for (const w of abandoned) w.abandon!(kind);
    this.failurePolicy.onFailure(err, kind);
    this.scheduleRecovery();
  }

  private scheduleRecovery(): void {
    if (this.closed || this.recoveryTimer) return;
    this.recoveryTimer = setTimeout(() => void this.recover(), this.failurePolicy.retryIntervalMs);
    this.recoveryTimer.unref();
  }

  /** Tries to make the backend usable again; on success writes are accepted again. */
  private async recover(): Promise<void> {
    this.recoveryTimer = undefined;
    const failure = this.failure;
    if (!failure || this.closed) return;
    this.writing = true;
    try {
      await this.backend.recover(failure.undo, this.committedRev);
    } catch (err) {
      const kind = classifyStorageFailure(err);
      if (kind !== failure.kind) this.failurePolicy.onFailure(err, kind);
      Object.assign(failure, { error: err, kind });
      this.writing = false;
      this.scheduleRecovery();
      return;
    }
    this.failure = undefined;
    this.writing = false;
    this.failurePolicy.onRecovered();
    if (this.queue.length > 0) void this.flush();
  }

  /**
   * The batch's writes, each with the event it replaces when that is still
   * in the window (this batch included), and its history record when kept.
   */
  private persistOps(writes: PendingWrite[]): PersistOp[] {
    const inBatch = new Map<number, ChangeEvent>();
    const ops: PersistOp[] = [];
    const policy = this.historyPolicy;
    const keep = policy !== false;
    const byCount = policy !== false && policy.maxRevisionsPerObject !== undefined;
    for (const w of writes) {
      const event = w.event!;
      const op: PersistOp = { event };
      if (event.prevRev > this.compactedRev) {
        const replaces = inBatch.get(event.prevRev) ?? this.log.at(event.prevRev);
        if (replaces) op.replaces = replaces;
      }
      if (keep) op.history = w.writer ? { at: w.at!, writer: w.writer } : { at: w.at! };
      if (byCount) this.trimKeys.add(event.key);
      ops.push(op);
      inBatch.set(event.rev, event);
    }
    return ops;
  }

  private apply(ev: ChangeEvent): void {
    if (ev.type === 'DELETED') this.index.delete(ev.key);
    else this.index.set(ev.key, { rev: ev.rev, json: ev.json });
    this.log.append(ev);
    const p = this.pending.get(ev.key);
    if (p && p.rev === ev.rev) this.pending.delete(ev.key);
  }

  private wakeRevisionWaiters(): void {
    if (this.revWaiters.length === 0) return;
    const ready = this.revWaiters.filter((w) => w.rev <= this.committedRev);
    this.revWaiters = this.revWaiters.filter((w) => w.rev > this.committedRev);
    for (const w of ready) w.resolve();
  }

  /**
   * Lists a bucket, at the latest revision or at `atRev` inside the window. A
   * page is a binary search into the bucket's sorted keys and a walk over the
   * stored strings; objects are parsed only when a selector has to look at them.
   */
  list(opts: ListOptions): ListResult {
    const rev = opts.atRev ?? this.committedRev;
    if (rev < this.snapshotFloor) throw gone(`The resourceVersion for the provided list is too old.`);
    const { keys, from, to, entries } = this.index.keysWithPrefix(opts.bucket, opts.keyPrefix);
    const start = opts.startAfter !== undefined ? Math.max(from, lowerBound(keys, opts.startAfter, true)) : from;
    const historical = rev < this.committedRev ? this.versionsAt(rev, opts) : undefined;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const matches = opts.matches;
    const items: string[] = [];
    let lastKey: string | undefined;
    let i = start;
    const extra = historical?.extraKeys ?? [];
    const versions = historical?.versions;
    let j = 0;
    while (i < to || j < extra.length) {
      if (items.length >= limit) {
        return { rev, items, lastKey, remaining: to - i + (extra.length - j) };
      }
      const key = j >= extra.length || (i < to && compareKeys(keys[i], extra[j]) < 0) ? keys[i++] : extra[j++];
      const json = versions?.has(key) ? versions.get(key) : entries.get(key)?.json;
      if (json == null) continue;
      if (matches && !matches(JSON.parse(json))) continue;
      items.push(json);
      lastKey = key;
    }
    return { rev, items };
  }

  /** The version at `rev` of every key changed since then, and the keys deleted since. */
  private versionsAt(rev: number, opts: ListOptions): { versions: Map<string, string | null>; extraKeys: string[] } {
    const versions = new Map<string, string | null>();
    for (const ev of this.log.since(rev)) {
      if (versions.has(ev.key) || bucketOf(ev.key) !== opts.bucket || !ev.key.startsWith(opts.keyPrefix)) continue;
      if (ev.prevUnknown) throw gone(`The resourceVersion for the provided list is too old.`);
      versions.set(ev.key, ev.prevRev === 0 ? null : (ev.prev ?? null));
    }
    const extraKeys = [...versions]
      .filter(
        ([key, json]) => json !== null && !this.index.get(key) && (opts.startAfter === undefined || compareKeys(key, opts.startAfter) > 0),
      )
      .map(([key]) => key)
      .sort(compareKeys);
    return { versions, extraKeys };
  }

  /**
   * Registers `watcher` and replays what it missed: every event after
   * `fromRev`. Throws 410 Gone when `fromRev` is older than the window.
   * Returns the function that unregisters it.
   */
  watch(watcher: Watcher, fromRev: number): () => void {
    if (fromRev < this.compactedRev) throw gone(`too old resource version: ${fromRev} (${this.compactedRev + 1})`);
    const replay: WatchEvent[] = [];
    const parsed = { get: (json: string) => JSON.parse(json) };
    for (const ev of this.log.since(fromRev)) {
      if (ev.rev > this.committedRev) break;
      const view = viewOf(watcher, ev, parsed);
      if (view) replay.push(view);
    }
    if (replay.length > 0) watcher.deliver(replay);
    this.hub.add(watcher);
    return () => this.hub.remove(watcher);
  }

  /** Every open watcher (the apiserver sends them bookmarks). */
  watchers(): Iterable<Watcher> {
    return this.hub.all();
  }

  /** Compacts the change log through `rev`. */
  async compact(rev: number): Promise<void> {
    const target = Math.min(rev, this.committedRev);
    if (target <= this.compactedRev) return;
    this.log.trimThrough(target);
    this.compactedRev = target;
    this.snapshotFloor = Math.max(this.snapshotFloor, target);
    await this.backend.compact(target);
  }

  private async compactTick(): Promise<void> {
    const target = this.lastTickRev;
    this.lastTickRev = this.committedRev;
    await this.compact(target).catch((err) => this.failurePolicy.onCompactionError(err));
    await this.trimHistory().catch((err) => this.failurePolicy.onCompactionError(err));
  }

  /**
   * Applies the history policy now (the compaction tick does it too): drops
   * revisions older than maxAgeMs, the oldest beyond maxBytes, and each
   * object's beyond maxRevisionsPerObject. The watch window is untouched.
   */
  async trimHistory(): Promise<void> {
    const policy = this.historyPolicy;
    if (policy === false || (policy.maxAgeMs === undefined && policy.maxBytes === undefined && policy.maxRevisionsPerObject === undefined))
      return;
    if (this.trimming) return this.trimming;
    const keys = [...this.trimKeys];
    this.trimKeys.clear();
    this.trimming = this.backend.trimHistory(policy, this.now(), keys).then(
      () => {
        this.trimming = undefined;
      },
      (err: unknown) => {
        // Try these keys again at the next trim.
        for (const key of keys) this.trimKeys.add(key);
        this.trimming = undefined;
        throw err;
      },
    );
    return this.trimming;
  }

  /** Keeps the window within maxEvents, trimming in steps of a tenth so compaction stays rare. */
  private trimWindow(): void {
    const max = this.policy.maxEvents;
    if (this.log.length <= max + Math.ceil(max / 10)) return;
    const target = this.log.revAt(this.log.length - max - 1);
    if (target !== undefined) void this.compact(target).catch((err) => this.failurePolicy.onCompactionError(err));
  }

  /** Bytes on disk. */
  sizeBytes(): Promise<number> {
    return this.backend.sizeBytes();
  }

  /** Waits for in-flight writes, then closes the backend. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.compactionTimer);
    clearTimeout(this.recoveryTimer);
    await this.trimming?.catch(() => {});
    while (this.writing || this.queue.length > 0 || this.flushScheduled) {
      await new Promise((r) => setTimeout(r, 5));
      if (!this.writing && this.queue.length > 0) await this.flush();
    }
    await this.backend.close();
  }
}
