// A map that forgets its least recently used entry beyond a capacity (as
// groupcache's lru, which client-go's event correlator uses): for caches of
// derived values that must not grow without bound.
//
// Recency is a doubly linked list through the entries, so a hit relinks two
// pointers. Moving the entry to the end of the Map instead (delete + set)
// was measured at about half a microsecond per hit inside the apiserver,
// where a Pod create makes some twenty quantity lookups.

interface Slot<V> {
  key: string;
  value: V;
  /** Toward the most recently used end. */
  newer: Slot<V> | undefined;
  /** Toward the least recently used end. */
  older: Slot<V> | undefined;
}

/** See the file comment. */
export class LruCache<V> {
  private readonly entries = new Map<string, Slot<V>>();
  private newest: Slot<V> | undefined;
  private oldest: Slot<V> | undefined;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    this.touch(slot);
    return slot.value;
  }

  set(key: string, value: V): void {
    const slot = this.entries.get(key);
    if (slot !== undefined) {
      slot.value = value;
      this.touch(slot);
      return;
    }
    const added: Slot<V> = { key, value, newer: undefined, older: this.newest };
    if (this.newest) this.newest.newer = added;
    this.newest = added;
    this.oldest ??= added;
    this.entries.set(key, added);
    if (this.entries.size > this.capacity) {
      const evicted = this.oldest;
      this.unlink(evicted);
      this.entries.delete(evicted.key);
    }
  }

  /** The cached value for `key`, computed and cached on a miss. */
  getOrCompute(key: string, compute: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const v = compute();
    this.set(key, v);
    return v;
  }

  /** Makes `slot` the most recently used. */
  private touch(slot: Slot<V>): void {
    if (slot === this.newest) return;
    this.unlink(slot);
    slot.older = this.newest;
    slot.newer = undefined;
    if (this.newest) this.newest.newer = slot;
    this.newest = slot;
    this.oldest ??= slot;
  }

  private unlink(slot: Slot<V>): void {
    if (slot.newer) slot.newer.older = slot.older;
    else this.newest = slot.older;
    if (slot.older) slot.older.newer = slot.newer;
    else this.oldest = slot.newer;
    slot.newer = slot.older = undefined;
  }
}
