// A map that forgets its least recently used entries beyond a capacity (as
// groupcache's lru, which client-go's event correlator uses): for caches of
// derived values that must not grow without bound.
//
// A hit only stamps the entry with a use counter. Moving it to the end of the
// Map instead (delete + set) was measured at about half a microsecond per hit
// inside the apiserver, where a Pod create makes some twenty quantity lookups.
// Eviction sorts by stamp and drops the oldest tenth at once, so it stays rare.

interface Slot<V> {
  value: V;
  used: number;
}

/** See the file comment. */
export class LruCache<V> {
  private readonly entries = new Map<string, Slot<V>>();
  private clock = 0;

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    slot.used = ++this.clock;
    return slot.value;
  }

  set(key: string, value: V): void {
    const slot = this.entries.get(key);
    if (slot !== undefined) {
      slot.value = value;
      slot.used = ++this.clock;
      return;
    }
    this.entries.set(key, { value, used: ++this.clock });
    if (this.entries.size > this.capacity) this.evict();
  }

  /** The cached value for `key`, computed and cached on a miss. */
  getOrCompute(key: string, compute: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const v = compute();
    this.set(key, v);
    return v;
  }

  /** Drops the least recently used entries down to nine tenths of the capacity. */
  private evict(): void {
    const keep = Math.floor(this.capacity * 0.9);
    const byAge = [...this.entries].sort((a, b) => a[1].used - b[1].used);
    for (let i = 0; i < byAge.length - keep; i++) this.entries.delete(byAge[i][0]);
  }
}
