// kube's NamespaceLifecycle admission: objects may only be created in a
// namespace that exists and is not being deleted.
import { forbidden, notFound } from '../../shared/api/errors.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { Store } from '../storage/store.ts';

const NAMESPACES_BUCKET = '/registry/core/namespaces';

/** Throws 404 when `namespace` is missing and 403 when it is terminating. */
export function admitNamespace(store: Store, rt: ResourceType, namespace: string): void {
  if (!rt.namespaced) return;
  const entry = store.get(`${NAMESPACES_BUCKET}/${namespace}`);
  if (!entry) throw notFound({ group: '', resource: 'namespaces' }, namespace);
  // Cheap check first: most namespaces are not terminating.
  if (entry.json.includes('"deletionTimestamp"') && JSON.parse(entry.json).metadata?.deletionTimestamp) {
    throw forbidden(
      `${rt.plural}${rt.group ? '.' + rt.group : ''} "" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      {
        group: rt.group || undefined,
        kind: rt.plural,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      },
    );
  }
}
