// A map that forgets its least recently used entries beyond a capacity (as
// groupcache's lru, which client-go's event correlator uses): for caches of
// derived values that must not grow without bound.

/** See the file comment. */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  set(key: string, v: V): void {
    this.entries.delete(key);
    this.entries.set(key, v);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** The cached value for `key`, computed and cached on a miss. */
  getOrCompute(key: string, compute: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const v = compute();
    this.set(key, v);
    return v;
  }
}
