// Storage keys: "/registry/<group|core>/<resource>/<namespace>/<name>" for
// namespaced objects and "/registry/<group|core>/<resource>/<name>" otherwise.
import type { ResourceType } from '../../shared/api/resource-type.ts';

/** The key of one object. */
export function objectKey(rt: ResourceType, namespace: string, name: string): string {
  return rt.namespaced ? `${rt.storagePrefix}/${namespace}/${name}` : `${rt.storagePrefix}/${name}`;
}

/** The key prefix of a collection: one namespace, or all of the resource. */
export function collectionPrefix(rt: ResourceType, namespace: string): string {
  return rt.namespaced && namespace ? `${rt.storagePrefix}/${namespace}/` : `${rt.storagePrefix}/`;
}
