// What several admission plugins share: kube's admission.NewForbidden
// message shape, its error aggregation, and cached reads of the objects of
// one namespace from the store.
import { forbidden, type StatusError } from '../../shared/api/errors.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { Store } from '../storage/store.ts';

/** True for core/v1 resource `plural`. */
export const isCore = (rt: { group: string; plural: string }, plural: string): boolean => rt.group === '' && rt.plural === plural;

/** kube's admission.NewForbidden: `pods "x" is forbidden: <reason>`. */
export function admissionForbidden(rt: { group: string; plural: string }, name: string, reason: string): StatusError {
  const resource = rt.group ? `${rt.plural}.${rt.group}` : rt.plural;
  return forbidden(`${resource} "${name}" is forbidden: ${reason}`, { name, group: rt.group || undefined, kind: rt.plural });
}

/** utilerrors.NewAggregate(errs).Error(): one message as it is, several in brackets. */
export function aggregate(messages: string[]): string {
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

/**
 * The parsed objects of one bucket in one namespace, re-read only when the
 * bucket changed: admission reads LimitRanges, quotas and ServiceAccounts on
 * every Pod create, and they change rarely.
 */
export class NamespacedObjects<T> {
  private version = -1;
  private byNamespace = new Map<string, T[]>();

  constructor(
    private readonly store: Store,
    private readonly bucket: string,
  ) {}

  /** Whether `namespace` holds any object of the bucket (no parse). */
  any(namespace: string): boolean {
    return this.store.keys(this.bucket, `${this.bucket}/${namespace}/`).length > 0;
  }

  /** The objects of `namespace`. */
  list(namespace: string): T[] {
    const v = this.store.bucketVersion(this.bucket);
    if (v !== this.version) {
      this.version = v;
      this.byNamespace.clear();
    }
    let items = this.byNamespace.get(namespace);
    if (!items) {
      const prefix = `${this.bucket}/${namespace}/`;
      items = this.store.list({ bucket: this.bucket, keyPrefix: prefix }).items.map((j) => JSON.parse(j) as T);
      this.byNamespace.set(namespace, items);
    }
    return items;
  }
}

/** The bucket of a resource's objects. */
export const bucketOf = (rt: ResourceType): string => rt.storagePrefix;
