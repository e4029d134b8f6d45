// Fans committed change events out to watchers. One dispatch per commit
// batch: each watcher gets all its events of the batch in one call, so its
// transport can write them with one socket write. Selector-filtered watchers
// see kube's transitions: an object that stops matching is DELETED for them,
// one that starts matching is ADDED.
import { bucketOf } from './object-index.ts';
import type { ChangeEvent, EventType } from './types.ts';

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
  matches?: (obj: any) => boolean;
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

/** Parses each JSON at most once per dispatch, however many watchers look at it. */
class ParseCache {
  private readonly cache = new Map<string, any>();
  get(json: string): any {
    let v = this.cache.get(json);
    if (v === undefined) {
      v = JSON.parse(json);
      this.cache.set(json, v);
    }
    return v;
  }
}

function inRange(w: Pick<Watcher, 'keyPrefix' | 'exactKey'>, key: string): boolean {
  return w.exactKey !== undefined ? key === w.exactKey : key.startsWith(w.keyPrefix);
}

/** Decides what `watcher` sees of `ev`, or nothing. */
export function viewOf(watcher: Watcher, ev: ChangeEvent, parsed: { get(json: string): any }): WatchEvent | undefined {
  if (!inRange(watcher, ev.key)) return undefined;
  if (!watcher.matches) return ev;
  const nowMatches = ev.type !== 'DELETED' && watcher.matches(parsed.get(ev.json));
  const before = ev.type === 'ADDED' ? undefined : ev.type === 'DELETED' ? ev.json : ev.prev;
  const wasMatching = before !== undefined && watcher.matches(parsed.get(before));
  if (ev.type === 'DELETED') return wasMatching ? ev : undefined;
  if (nowMatches && wasMatching) return { type: 'MODIFIED', rev: ev.rev, key: ev.key, json: ev.json };
  if (nowMatches) return { type: 'ADDED', rev: ev.rev, key: ev.key, json: ev.json };
  if (wasMatching) return { type: 'DELETED', rev: ev.rev, key: ev.key, json: ev.json };
  return undefined;
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

  /** Delivers one committed batch. */
  dispatch(events: ChangeEvent[]): void {
    if (this.total === 0) return;
    // One list per range group, handed as is to each member: their transports can share one encoding of it.
    const perGroup = new Map<RangeGroup, WatchEvent[]>();
    const perSelected = new Map<Watcher, WatchEvent[]>();
    let parsed: ParseCache | undefined;
    let lastBucket = '';
    let b: BucketWatchers | undefined;
    for (const ev of events) {
      const bucket = bucketOf(ev.key);
      if (bucket !== lastBucket) {
        lastBucket = bucket;
        b = this.byBucket.get(bucket);
      }
      if (!b) continue;
      for (const g of b.groups.values()) {
        if (!inRange(g, ev.key)) continue;
        const list = perGroup.get(g);
        if (list) list.push(ev);
        else perGroup.set(g, [ev]);
      }
      if (b.selected.size === 0) continue;
      parsed ??= new ParseCache();
      for (const w of b.selected) {
        const view = viewOf(w, ev, parsed);
        if (!view) continue;
        const list = perSelected.get(w);
        if (list) list.push(view);
        else perSelected.set(w, [view]);
      }
    }
    for (const [g, list] of perGroup) for (const w of g.members) w.deliver(list);
    for (const [w, list] of perSelected) w.deliver(list);
  }
}
