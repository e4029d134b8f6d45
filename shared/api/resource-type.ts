// The shape of one row of the resource table: everything the apiserver
// (storage keys, discovery, routing, selectors) and the components need to
// know about a served kind.

/** Fields that a field selector may name, beyond metadata.name and metadata.namespace; `obj` is the stored JSON. */
export type FieldGetter = (obj: unknown) => string | undefined;

/** A served resource: one row of the resource table. */
export interface ResourceType {
  /** API group; '' for the core group. */
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** The plural resource name used in paths, e.g. "deployments". */
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Subresources served besides the main resource. */
  subresources: Subresource[];
  /** Extra field selector keys kube supports for this resource. */
  selectableFields: Record<string, FieldGetter>;
  /**
   * The key under which storage keys objects: "/registry/<group|core>/<plural>",
   * or another resource's when this one is a second API for the same objects
   * (events.k8s.io/v1 Events are core/v1 Events, converted on the way in and out).
   */
  storagePrefix: string;
  /** The verbs served; create-only for the review resources, which are computed, never stored. */
  verbs: string[];
}

/** A subresource and how it maps onto the parent object. */
export type Subresource =
  | 'status'
  | 'scale'
  | 'binding'
  | 'eviction'
  | 'log'
  | 'exec'
  | 'attach'
  | 'portforward'
  | 'token'
  | 'approval'
  | 'proxy'
  | 'ephemeralcontainers';

/** "apps/v1" or "v1" for the core group. */
export function apiVersionOf(rt: Pick<ResourceType, 'group' | 'version'>): string {
  return rt.group ? `${rt.group}/${rt.version}` : rt.version;
}

/** The resource's path prefix: "/api/v1" or "/apis/apps/v1". */
export function groupVersionPath(rt: Pick<ResourceType, 'group' | 'version'>): string {
  return rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
}

/** The verbs every served resource supports on its main endpoint. */
export const STANDARD_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
