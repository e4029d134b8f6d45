// The writes a controller made that its informer has not shown yet (kube's
// EndpointSliceTracker and staleEndpointsTracker do this job). Reading the
// cache through it, a sync that follows a create, update or delete sees the
// result of that write instead of the older cached state, so it neither
// creates a second object nor rewrites an unchanged one. An entry goes as
// soon as the informer delivers an event at least as new as the write, and
// after five minutes in any case, so a lost event cannot pin a stale view.
import type { Clock } from '../../../shared/clock/clock.ts';
import { keyOf } from '../../../shared/informer/cache.ts';

const TTL_MS = 5 * 60_000;

interface Meta {
  metadata?: { namespace?: string; name?: string; resourceVersion?: string };
}

interface Entry<T> {
  group: string;
  /** The object as written; undefined for a delete. */
  obj?: T;
  rv: bigint;
  at: number;
}

function rvOf(obj: Meta | undefined): bigint {
  try {
    return BigInt(obj?.metadata?.resourceVersion || 0);
  } catch {
    return 0n;
  }
}

/** See the file comment. Entries are grouped (by Service key) so a group's view can be read. */
export class OwnWrites<T extends Meta> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly clock: Clock) {}

  /** Records an object this controller created or updated (as the server returned it). */
  wrote(group: string, obj: T): void {
    this.entries.set(keyOf(obj), { group, obj, rv: rvOf(obj), at: this.clock.now() });
  }

  /** Records that this controller deleted `obj` (as last seen). */
  deleted(group: string, obj: T): void {
    this.entries.set(keyOf(obj), { group, rv: rvOf(obj), at: this.clock.now() });
  }

  /**
   * The informer delivered `obj` (add or update). Returns true when it is the
   * echo of this controller's own write, which needs no new sync.
   */
  observe(obj: T): boolean {
    const key = keyOf(obj);
    const e = this.entries.get(key);
    if (!e) return false;
    const rv = rvOf(obj);
    if (e.obj && rv === e.rv) {
      this.entries.delete(key);
      return true;
    }
    if (e.obj ? rv >= e.rv : rv > e.rv) this.entries.delete(key);
    return false;
  }

  /** The informer delivered the deletion of `obj`. Returns true when this controller deleted it. */
  observeDelete(obj: T): boolean {
    const key = keyOf(obj);
    const e = this.entries.get(key);
    if (!e) return false;
    if (!e.obj) {
      this.entries.delete(key);
      return true;
    }
    // A deletion older than our write is of an earlier object with the same name.
    if (rvOf(obj) >= e.rv) this.entries.delete(key);
    return false;
  }

  /** The freshest known state of the object at `key`, given what the cache holds. */
  one(key: string, cached: T | undefined): T | undefined {
    const e = this.live(key);
    if (!e) return cached;
    if (!e.obj) return cached && rvOf(cached) > e.rv ? cached : undefined;
    return cached && rvOf(cached) >= e.rv ? cached : e.obj;
  }

  /** The freshest known state of a group's objects, given the cached ones. */
  view(group: string, cached: readonly T[]): T[] {
    const out: T[] = [];
    const seen = new Set<string>();
    for (const obj of cached) {
      const key = keyOf(obj);
      seen.add(key);
      const fresh = this.one(key, obj);
      if (fresh) out.push(fresh);
    }
    for (const [key, e] of this.entries) {
      if (e.group !== group || seen.has(key) || !e.obj) continue;
      if (this.live(key)) out.push(e.obj);
    }
    return out;
  }

  /** Forgets a group (its Service is gone). */
  forget(group: string): void {
    for (const [key, e] of this.entries) if (e.group === group) this.entries.delete(key);
  }

  private live(key: string): Entry<T> | undefined {
    const e = this.entries.get(key);
    if (e && this.clock.now() - e.at > TTL_MS) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }
}
