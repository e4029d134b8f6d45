// The shape every Kubernetes object and list shares, for the code that handles
// objects of any kind (client, informer, cache, controllers' helpers). A
// kind's own type (kubernetes-types' Pod, Node, Deployment...) is a KubeObject,
// so generic code takes `T extends KubeObject` and hands back the caller's T.
import type { ListMeta, ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** Any Kubernetes object: what generic code may read of it. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** A list of objects as the apiserver answers a list request. */
export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: T[];
}

/**
 * The value at `path` in decoded JSON, or undefined where a step is not an
 * object: `valueAt(obj, 'spec', 'nodeName')` reads `obj.spec?.nodeName`.
 */
export function valueAt(v: unknown, ...path: string[]): unknown {
  let cur = v;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}
