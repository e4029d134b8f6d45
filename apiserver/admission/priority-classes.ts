// What Priority admission reads: the PriorityClasses by name and the one
// marked globalDefault. On the main thread they come from the store, parsed
// again only when the bucket changed; on a create worker they come from a
// snapshot the main thread sends along whenever the bucket has changed.
import type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
import type { Store } from '../storage/store.ts';

/** Read-only access to the PriorityClasses. */
export interface PriorityClassView {
  lookup(name: string): PriorityClass | undefined;
  globalDefault(): PriorityClass | undefined;
}

export const PRIORITY_CLASSES_BUCKET = '/registry/scheduling.k8s.io/priorityclasses';

/** A view of fixed PriorityClass objects (a snapshot). */
export function priorityClassSnapshot(classes: PriorityClass[]): PriorityClassView {
  const byName = new Map<string | undefined, PriorityClass>(classes.map((pc) => [pc.metadata?.name, pc]));
  const globalDefault = classes.find((pc) => pc.globalDefault === true);
  return { lookup: (name) => byName.get(name), globalDefault: () => globalDefault };
}

/** The stored PriorityClasses' JSON texts, in key order. */
export function storedPriorityClassTexts(store: Store): string[] {
  return store.list({ bucket: PRIORITY_CLASSES_BUCKET, keyPrefix: `${PRIORITY_CLASSES_BUCKET}/` }).items;
}

/** A view of the store's committed PriorityClasses, rebuilt only after the bucket changed. */
export function storePriorityClasses(store: Store): PriorityClassView {
  let version = -1;
  let view: PriorityClassView = priorityClassSnapshot([]);
  const current = (): PriorityClassView => {
    const now = store.bucketVersion(PRIORITY_CLASSES_BUCKET);
    if (now !== version) {
      view = priorityClassSnapshot(storedPriorityClassTexts(store).map((j) => JSON.parse(j) as PriorityClass));
      version = now;
    }
    return view;
  };
  return { lookup: (name) => current().lookup(name), globalDefault: () => current().globalDefault() };
}
