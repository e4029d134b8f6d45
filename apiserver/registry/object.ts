// The registry's view of an object of any kind: type meta and metadata are
// known (a stored object always has metadata; a request body has it once
// checkTypeMeta ran), and spec and status are the kind's own JSON, which only
// the per-kind rules read, through kubernetes-types. It has the shape of the
// storage's StoredObject, so the two pass to each other as they are.
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** ObjectMeta as the apiserver writes it: the fields kubernetes-types marks read-only are the server's to set. */
export type ServerMeta = { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] };

/** An object of any kind, as the generic lifecycle rules handle it. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ServerMeta;
  spec?: unknown;
  status?: unknown;
}
