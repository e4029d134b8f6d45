// The committed objects in memory, grouped per resource ("bucket"), with the
// keys of each bucket kept sorted lazily: writes are O(1) and the first list
// after a burst of writes pays one merge, so 10k creates/s stay cheap. Keys
// added in order (as a load from disk delivers them) need no merge at all.
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
  /** Counts the bucket's changes: a cache of something derived from it is current while this is unchanged. */
  version = 0;

  /** Stores `entry` at `key`; true when the key is new. */
  set(key: string, entry: Entry): boolean {
    this.version++;
    const size = this.entries.size;
    this.entries.set(key, entry);
    if (this.entries.size === size) return false;
    // Keys that arrive in order (a load from disk, names created in sequence) extend the sorted list as they are.
    const sorted = this.sorted;
    if (sorted.length === 0 || compareKeys(sorted[sorted.length - 1], key) < 0) sorted.push(key);
    else this.added.push(key);
    return true;
  }

  delete(key: string): void {
    if (this.entries.delete(key)) {
      this.removed++;
      this.version++;
    }
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
    if (this.bucket(bucketOf(key)).set(key, entry)) this.count++;
  }

  delete(key: string): void {
    const b = this.buckets.get(bucketOf(key));
    if (b?.entries.has(key)) {
      this.count--;
      b.delete(key);
    }
  }

  /** Sorted keys of `bucket` that start with `prefix` (keys[from..to)), and the bucket's entries to read them from. */
  keysWithPrefix(bucket: string, prefix: string): { keys: string[]; from: number; to: number; entries: ReadonlyMap<string, Entry> } {
    const b = this.buckets.get(bucket);
    if (!b) return { keys: [], from: 0, to: 0, entries: new Map() };
    const keys = b.sortedKeys();
    const from = lowerBound(keys, prefix, false);
    const to = lowerBound(keys, prefix + '\uffff', false);
    return { keys, from, to, entries: b.entries };
  }

  /** The index's own string for `key` (equal to it), when the key is live. */
  storedKey(key: string): string | undefined {
    const keys = this.buckets.get(bucketOf(key))?.sortedKeys();
    if (!keys) return undefined;
    const i = lowerBound(keys, key, false);
    return keys[i] === key ? keys[i] : undefined;
  }

  /** A number that changes whenever an object of `bucket` does. */
  bucketVersion(bucket: string): number {
    return this.buckets.get(bucket)?.version ?? 0;
  }

  /** Number of live objects in `bucket`, or in all buckets. */
  size(bucket?: string): number {
    if (bucket === undefined) return this.count;
    return this.buckets.get(bucket)?.entries.size ?? 0;
  }
}
