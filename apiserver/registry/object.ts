// The registry's view of an object of any kind: the storage's StoredObject
// (type meta and metadata; a request body has them once checkTypeMeta ran),
// plus the spec and status that only the per-kind rules read, through
// kubernetes-types.
import type { StoredObject } from '../storage/types.ts';

/** An object of any kind, as the generic lifecycle rules handle it. */
export interface KubeObject extends StoredObject {
  spec?: unknown;
  status?: unknown;
}
