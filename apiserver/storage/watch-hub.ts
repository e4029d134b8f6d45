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

/** Decides what `watcher` sees of `ev`, or nothing. */
export function viewOf(watcher: Watcher, ev: ChangeEvent, parsed: { get(json: string): any }): WatchEvent | undefined {
  if (watcher.exactKey !== undefined ? ev.key !== watcher.exactKey : !ev.key.startsWith(watcher.keyPrefix)) return undefined;
  if (!watcher.matches) return ev;
  const nowMatches = ev.type !== 'DELETED' && watcher.matches(parsed.get(ev.json));
  const before = ev.type === 'ADDED' ? undefined : ev.type === 'DELETED' ? ev.json : ev.prev;
  const wasMatching = before !== undefined && watcher.matches(parsed.get(before));
  if (ev.type === 'DELETED') return wasMatching ? ev : undefined;
  if (nowMatches && wasMatching) return { type: 'MODIFIED', rev: ev.rev, json: ev.json };
  if (nowMatches) return { type: 'ADDED', rev: ev.rev, json: ev.json };
  if (wasMatching) return { type: 'DELETED', rev: ev.rev, json: ev.json };
  return undefined;
}

/** Registry of watchers by bucket, and the per-batch fan-out. */
export class WatchHub {
  private readonly byBucket = new Map<string, Set<Watcher>>();
  private total = 0;

  add(w: Watcher): void {
    let set = this.byBucket.get(w.bucket);
    if (!set) {
      set = new Set();
      this.byBucket.set(w.bucket, set);
    }
    set.add(w);
    this.total++;
  }

  remove(w: Watcher): void {
    if (this.byBucket.get(w.bucket)?.delete(w)) this.total--;
  }

  /** Number of registered watchers. */
  get size(): number {
    return this.total;
  }

  /** Every registered watcher (for bookmarks and shutdown). */
  *all(): Generator<Watcher> {
    for (const set of this.byBucket.values()) yield* set;
  }

  /** Delivers one committed batch. */
  dispatch(events: ChangeEvent[]): void {
    if (this.total === 0) return;
    const perWatcher = new Map<Watcher, WatchEvent[]>();
    // Watchers without selectors on the same range see the same events: they
    // share one list, so their transports can share one encoding of it.
    const shared = new Map<string, WatchEvent[]>();
    const parsed = new ParseCache();
    for (const ev of events) {
      const set = this.byBucket.get(bucketOf(ev.key));
      if (!set) continue;
      const sharedThisEvent = new Set<string>();
      for (const w of set) {
        const view = viewOf(w, ev, parsed);
        if (!view) continue;
        if (!w.matches) {
          const group = `${w.exactKey ?? ''}\u0000${w.keyPrefix}`;
          let list = shared.get(group);
          if (!list) {
            list = [];
            shared.set(group, list);
          }
          if (!sharedThisEvent.has(group)) {
            list.push(view);
            sharedThisEvent.add(group);
          }
          perWatcher.set(w, list);
          continue;
        }
        const list = perWatcher.get(w);
        if (list) list.push(view);
        else perWatcher.set(w, [view]);
      }
    }
    for (const [w, list] of perWatcher) w.deliver(list);
  }
}
