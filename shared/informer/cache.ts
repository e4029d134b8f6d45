// An informer's local cache: objects by key ("namespace/name" or "name")
// with named indexes (namespace, owner, node name, label, ...). Objects in
// it are shared: callers must copy before changing anything.
import type { KubeObject } from '../api/object.ts';

/** Computes the index values of an object. */
export type IndexFunc<T> = (obj: T) => string[];

/** "namespace/name", or "name" for cluster-scoped objects: client-go's MetaNamespaceKeyFunc. */
export function keyOf(obj: KubeObject): string {
  const m = obj.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name}` : (m.name ?? '');
}

/** Splits a key back into namespace and name. */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** The cache of `T`s (e.g. `Cache<Pod>`): the store behind an informer, with its indexer. */
export class Cache<T extends KubeObject = KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();

  constructor() {
    this.addIndex('namespace', (o) => [o.metadata?.namespace ?? '']);
  }

  /** Adds an index; existing objects are indexed at once. */
  addIndex(name: string, fn: IndexFunc<T>): void {
    this.indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.indexes.set(name, index);
    for (const [key, obj] of this.items) for (const v of fn(obj)) addTo(index, v, key);
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  get size(): number {
    return this.items.size;
  }

  /** Objects whose `index` values include `value`. */
  byIndex(index: string, value: string): T[] {
    const keys = this.indexes.get(index)?.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) {
      const o = this.items.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  /** Stores `obj`, returning the previous version. */
  upsert(obj: T): T | undefined {
    const key = keyOf(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) for (const v of fn(obj)) addTo(this.indexes.get(name)!, v, key);
    return old;
  }

  /** Removes the object at `key`, returning it. */
  remove(key: string): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indexes.get(name)!;
      for (const v of fn(obj)) {
        const set = index.get(v);
        set?.delete(key);
        if (set?.size === 0) index.delete(v);
      }
    }
  }
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let set = index.get(value);
  if (!set) {
    set = new Set();
    index.set(value, set);
  }
  set.add(key);
}
