// kube's NamespaceLifecycle admission as a chain plugin: no new object in a
// missing or terminating namespace (see handlers/namespace-lifecycle.ts,
// which a create calls first to keep kube's order of refusals), and the
// namespaces kube-apiserver keeps alive may not be deleted.
import type { Store } from '../storage/store.ts';
import { admitNamespace } from '../handlers/namespace-lifecycle.ts';
import type { AdmissionPlugin } from './types.ts';
import { admissionForbidden, isCore } from './common.ts';

/** The namespaces kube refuses to delete (lifecycle's immortalNamespaces). */
export const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/** NamespaceLifecycle, reading namespaces from `store`. */
export function namespaceLifecycle(store: Store): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    contextual: true,
    // A create checks its namespace itself before preparing the object.
    wanted: () => false,
    admit(op, rt, obj) {
      if (op === 'CREATE') admitNamespace(store, rt, obj.metadata?.namespace ?? '');
    },
    admitDelete(rt, obj) {
      const name = obj.metadata?.name ?? '';
      if (isCore(rt, 'namespaces') && IMMORTAL_NAMESPACES.has(name))
        throw admissionForbidden(rt, name, 'this namespace may not be deleted');
    },
  };
}
