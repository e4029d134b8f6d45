// Fans committed change events out to watchers. One dispatch per commit
// batch: each watcher gets all its events of the batch in one call, so its
// transport can write them with one socket write. Selector-filtered watchers
// see kube's transitions: an object that stops matching is DELETED for them,
// one that starts matching is ADDED. Whatever the filters, every watcher
// that sees the same events of a batch as the same types gets the same
// array (and the same event objects), so that its encoding is made once
// and held once however many watchers have it queued.
import { bucketOf } from './object-index.ts';
import type { ChangeEvent, EventType, ObjectMatcher, StoredObject } from './types.ts';

/** One event as a watcher receives it. */
export interface WatchEvent {
  type: EventType;
  rev: number;
  /** The object's storage key. */
  key: string;
  json: string;
}

/** A subscriber registered with the hub. */
export interface Watcher {
  /** The resource bucket watched, e.g. "/registry/core/pods". */
  bucket: string;
  /** Only keys starting with this prefix (a namespace, or one exact key). */
  keyPrefix: string;
  /** Exact key to match instead of a prefix (a metadata.name field selector). */
  exactKey?: string;
  /** Label and field selector test; absent means everything matches. */
  matches?: ObjectMatcher;
  /** Receives the batch's events for this watcher, in revision order (an array possibly shared with other watchers: read-only). */
  deliver(events: WatchEvent[]): void;
}

/**
 * Identifies what an unselected watcher sees: two watchers with the same
 * range key get exactly the same events, so they can share one list and one
 * encoding of it.
 */
export function rangeKeyOf(w: Pick<Watcher, 'bucket' | 'keyPrefix' | 'exactKey'>): string {
  return `${w.bucket}\u0000${w.exactKey ?? ''}\u0000${w.keyPrefix}`;
}

/** What viewOf needs: parsed objects, and (optionally) one event object per event and type, shared by every watcher. */
export interface ViewCache {
  get(json: string): StoredObject;
  variant?(ev: ChangeEvent, type: EventType): WatchEvent;
}

/** Parses each JSON at most once per dispatch, and makes each event's ADDED or DELETED form once, however many watchers look at it. */
class DispatchCache implements ViewCache {
  private readonly cache = new Map<string, StoredObject>();
  private readonly variants = new Map<ChangeEvent, Partial<Record<EventType, WatchEvent>>>();
  get(json: string): StoredObject {
    let v = this.cache.get(json);
    if (v === undefined) {
      v = JSON.parse(json) as StoredObject;
      this.cache.set(json, v);
    }
    return v;
  }
  variant(ev: ChangeEvent, type: EventType): WatchEvent {
    let forms = this.variants.get(ev);
    if (!forms) this.variants.set(ev, (forms = {}));
    return (forms[type] ??= transition(ev, type, this));
  }
}

/**
 * `ev` seen by a watcher whose selector it enters (ADDED, the new object)
 * or leaves (DELETED): as kube's cacher, the last state that matched, the
 * previous object, with the event's resourceVersion.
 */
function transition(ev: ChangeEvent, type: EventType, parsed: Pick<ViewCache, 'get'>): WatchEvent {
  if (type !== 'DELETED' || ev.type === 'DELETED' || ev.prev === undefined) return { type, rev: ev.rev, key: ev.key, json: ev.json };
  const prev = parsed.get(ev.prev);
  // A copy: the parsed object is shared with every other watcher's selector.
  const json = JSON.stringify({ ...prev, metadata: { ...prev.metadata, resourceVersion: String(ev.rev) } });
  return { type, rev: ev.rev, key: ev.key, json };
}

function inRange(w: Pick<Watcher, 'keyPrefix' | 'exactKey'>, key: string): boolean {
  return w.exactKey !== undefined ? key === w.exactKey : key.startsWith(w.keyPrefix);
}

/** `ev` as `type`: the event itself when the type is its own (shared with every watcher), else one form per event when the cache makes them. */
function as(ev: ChangeEvent, type: EventType, cache: ViewCache): WatchEvent {
  if (ev.type === type) return ev;
  return cache.variant ? cache.variant(ev, type) : transition(ev, type, cache);
}

/** Decides what `watcher` sees of `ev`, or nothing. */
export function viewOf(watcher: Watcher, ev: ChangeEvent, parsed: ViewCache): WatchEvent | undefined {
  if (!inRange(watcher, ev.key)) return undefined;
  if (!watcher.matches) return ev;
  const nowMatches = ev.type !== 'DELETED' && watcher.matches(parsed.get(ev.json));
  const before = ev.type === 'ADDED' ? undefined : ev.type === 'DELETED' ? ev.json : ev.prev;
  const wasMatching = before !== undefined && watcher.matches(parsed.get(before));
  if (ev.type === 'DELETED') return wasMatching ? ev : undefined;
  if (nowMatches && wasMatching) return as(ev, 'MODIFIED', parsed);
  if (nowMatches) return as(ev, 'ADDED', parsed);
  if (wasMatching) return as(ev, 'DELETED', parsed);
  return undefined;
}

/** What a batch's list for one watcher is, as text: two lists with the same signature hold the same event objects. */
function signatureOf(list: readonly WatchEvent[]): string {
  let sig = '';
  for (const ev of list) sig += `${ev.rev}${ev.type[0]},`;
  return sig;
}

/** Unselected watchers of one range: the range is tested once per event for all of them. */
interface RangeGroup {
  keyPrefix: string;
  exactKey?: string;
  members: Set<Watcher>;
}

/** The watchers of one bucket. */
interface BucketWatchers {
  groups: Map<string, RangeGroup>;
  /** Watchers with a selector: each decides per event (transitions differ per selector). */
  selected: Set<Watcher>;
}

/** Registry of watchers by bucket, and the per-batch fan-out. */
export class WatchHub {
  private readonly byBucket = new Map<string, BucketWatchers>();
  private total = 0;

  add(w: Watcher): void {
    let b = this.byBucket.get(w.bucket);
    if (!b) {
      b = { groups: new Map(), selected: new Set() };
      this.byBucket.set(w.bucket, b);
    }
    if (w.matches) {
      if (b.selected.has(w)) return;
      b.selected.add(w);
    } else {
      const key = rangeKeyOf(w);
      let g = b.groups.get(key);
      if (!g) {
        g = { keyPrefix: w.keyPrefix, exactKey: w.exactKey, members: new Set() };
        b.groups.set(key, g);
      }
      if (g.members.has(w)) return;
      g.members.add(w);
    }
    this.total++;
  }

  remove(w: Watcher): void {
    const b = this.byBucket.get(w.bucket);
    if (!b) return;
    if (w.matches) {
      if (b.selected.delete(w)) this.total--;
      return;
    }
    const key = rangeKeyOf(w);
    const g = b.groups.get(key);
    if (g?.members.delete(w)) {
      this.total--;
      if (g.members.size === 0) b.groups.delete(key);
    }
  }

  /** Number of registered watchers. */
  get size(): number {
    return this.total;
  }

  /** Every registered watcher (for bookmarks and shutdown). */
  *all(): Generator<Watcher> {
    for (const b of this.byBucket.values()) {
      for (const g of b.groups.values()) yield* g.members;
      yield* b.selected;
    }
  }

  /**
   * Delivers one committed batch. For each event that `tally` holds, adds to
   * its count the watchers it was handed to (the request trace's "watchers
   * notified"); events not in it are not counted, so counting costs nothing
   * when nobody asks.
   */
  dispatch(events: ChangeEvent[], tally?: Map<ChangeEvent, number>): void {
    if (this.total === 0) return;
    // One list per range group, handed as is to each member: their transports can share one encoding of it.
    const perGroup = new Map<RangeGroup, WatchEvent[]>();
    const perSelected = new Map<Watcher, WatchEvent[]>();
    let cache: DispatchCache | undefined;
    let lastBucket = '';
    let b: BucketWatchers | undefined;
    for (const ev of events) {
      const bucket = bucketOf(ev.key);
      if (bucket !== lastBucket) {
        lastBucket = bucket;
        b = this.byBucket.get(bucket);
      }
      if (!b) continue;
      const counted = tally?.has(ev) ? tally : undefined;
      let recipients = 0;
      for (const g of b.groups.values()) {
        if (!inRange(g, ev.key)) continue;
        recipients += g.members.size;
        const list = perGroup.get(g);
        if (list) list.push(ev);
        else perGroup.set(g, [ev]);
      }
      if (b.selected.size > 0) {
        cache ??= new DispatchCache();
        for (const w of b.selected) {
          const view = viewOf(w, ev, cache);
          if (!view) continue;
          recipients++;
          const list = perSelected.get(w);
          if (list) list.push(view);
          else perSelected.set(w, [view]);
        }
      }
      if (counted) counted.set(ev, counted.get(ev)! + recipients);
    }
    for (const [g, list] of perGroup) for (const w of g.members) w.deliver(list);
    if (perSelected.size === 0) return;
    // Selected watchers that see the same events as the same types get one array, a range group's if it has the same one.
    const shared = new Map<string, WatchEvent[]>();
    for (const list of perGroup.values()) {
      const sig = signatureOf(list);
      if (!shared.has(sig)) shared.set(sig, list);
    }
    for (const [w, list] of perSelected) {
      const sig = signatureOf(list);
      const same = shared.get(sig);
      if (same) w.deliver(same);
      else {
        shared.set(sig, list);
        w.deliver(list);
      }
    }
  }
}
