// The store as one resource sees it. Most resources are stored as they are
// served, and get the store itself; a resource served from another's storage
// (registry/conversions.ts) gets a view that converts every object on the
// way out (get, list, watch, the results of writes) and on the way in (what
// a write stores), and evaluates selectors on the converted objects.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { storageConversion, type StorageConversion } from '../registry/conversions.ts';
import { SerializedObject } from '../storage/serialized-object.ts';
import type { ListOptions, ListResult, Store, WriteOptions } from '../storage/store.ts';
import type { Entry, Mutate, ObjectMatcher, TxnResult } from '../storage/types.ts';
import type { WatchEvent, Watcher } from '../storage/watch-hub.ts';

/** What the handlers use of the store for one resource's objects. */
export type ResourceStore = Pick<Store, 'get' | 'list' | 'txn' | 'watch'>;

/** The store for `rt`'s objects. */
export function resourceStore(store: Store, rt: ResourceType): ResourceStore {
  const conversion = storageConversion(rt);
  return conversion ? new ConvertingStore(store, conversion) : store;
}

class ConvertingStore implements ResourceStore {
  constructor(
    private readonly store: Store,
    private readonly conversion: StorageConversion,
  ) {}

  private served(storedJson: string): string {
    return JSON.stringify(this.conversion.fromStorage(JSON.parse(storedJson)));
  }

  private matcher(matches: ObjectMatcher | undefined): ObjectMatcher | undefined {
    return matches && ((stored) => matches(this.conversion.fromStorage(stored)));
  }

  get(key: string): Entry | undefined {
    const entry = this.store.get(key);
    return entry && { ...entry, json: this.served(entry.json) };
  }

  list(opts: ListOptions): ListResult {
    const page = this.store.list({ ...opts, matches: this.matcher(opts.matches) });
    return { ...page, items: page.items.map((json) => this.served(json)) };
  }

  async txn(key: string, mutate: Mutate, opts?: WriteOptions): Promise<TxnResult> {
    const result = await this.store.txn(
      key,
      (stored) => {
        const next = mutate(stored === undefined ? undefined : this.conversion.fromStorage(stored));
        if (next === undefined || next === null) return next;
        return this.conversion.toStorage(next instanceof SerializedObject ? next.parse() : next);
      },
      opts,
    );
    return result.json === undefined ? result : { ...result, json: this.served(result.json) };
  }

  watch(watcher: Watcher, fromRev: number): () => void {
    const served = (events: WatchEvent[]) => events.map((ev) => ({ ...ev, json: this.served(ev.json) }));
    return this.store.watch(
      { ...watcher, matches: this.matcher(watcher.matches), deliver: (events) => watcher.deliver(served(events)) },
      fromRev,
    );
  }
}
