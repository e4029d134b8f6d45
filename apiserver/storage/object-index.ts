// The committed objects in memory, grouped per resource ("bucket"), with the
// keys of each bucket kept sorted lazily: writes are O(1) and the first list
// after a burst of writes pays one merge, so 10k creates/s stay cheap.
import type { Entry } from './types.ts';

/** "/registry/apps/deployments/ns/name" -> "/registry/apps/deployments". */
export function bucketOf(key: string): string {
  let slashes = 0;
  for (let i = 0; i < key.length; i++) {
    if (key.charCodeAt(i) === 47 && ++slashes === 4) return key.slice(0, i);
  }
  return key;
}

class Bucket {
  readonly entries = new Map<string, Entry>();
  private sorted: string[] = [];
  private added: string[] = [];
  private removed = 0;

  set(key: string, entry: Entry): void {
    if (!this.entries.has(key)) this.added.push(key);
    this.entries.set(key, entry);
  }

  delete(key: string): void {
    if (this.entries.delete(key)) this.removed++;
  }

  /** The bucket's keys in byte order. */
  sortedKeys(): string[] {
    if (this.added.length === 0 && this.removed === 0) return this.sorted;
    const fresh = this.added.filter((k) => this.entries.has(k)).sort(compareKeys);
    const merged: string[] = [];
    let i = 0;
    let j = 0;
    const old = this.sorted;
    while (i < old.length || j < fresh.length) {
      const takeOld = j >= fresh.length || (i < old.length && compareKeys(old[i], fresh[j]) <= 0);
      const k = takeOld ? old[i++] : fresh[j++];
      if (this.entries.has(k) && merged[merged.length - 1] !== k) merged.push(k);
    }
    this.sorted = merged;
    this.added = [];
    this.removed = 0;
    return merged;
  }
}

/** Orders keys the way LevelDB and etcd do (by UTF-16 code unit, which matches bytes for ASCII names). */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first index in sorted `keys` whose key is > `after` (or >= `from`). */
export function lowerBound(keys: string[], from: string, exclusive: boolean): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKeys(keys[mid], from);
    if (c < 0 || (exclusive && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Every committed object, by bucket. */
export class ObjectIndex {
  private readonly buckets = new Map<string, Bucket>();
  private count = 0;

  private bucket(name: string): Bucket {
    let b = this.buckets.get(name);
    if (!b) {
      b = new Bucket();
      this.buckets.set(name, b);
    }
    return b;
  }

  get(key: string): Entry | undefined {
    return this.buckets.get(bucketOf(key))?.entries.get(key);
  }

  set(key: string, entry: Entry): void {
    const b = this.bucket(bucketOf(key));
    if (!b.entries.has(key)) this.count++;
    b.set(key, entry);
  }

  delete(key: string): void {
    const b = this.buckets.get(bucketOf(key));
    if (b?.entries.has(key)) {
      this.count--;
      b.delete(key);
    }
  }

  /** Sorted keys of `bucket` that start with `prefix`. */
  keysWithPrefix(bucket: string, prefix: string): { keys: string[]; from: number; to: number } {
    const keys = this.buckets.get(bucket)?.sortedKeys() ?? [];
    const from = lowerBound(keys, prefix, false);
    const to = lowerBound(keys, prefix + '\uffff', false);
    return { keys, from, to };
  }

  /** Number of live objects in `bucket`, or in all buckets. */
  size(bucket?: string): number {
    if (bucket === undefined) return this.count;
    return this.buckets.get(bucket)?.entries.size ?? 0;
  }
}
