// Reads the objects a token is bound to (ServiceAccount, Pod, Secret, Node)
// straight from the store, as kube's token getter reads them from its caches.
import type { Node, Pod, Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';
import { findResource } from '../../../shared/api/resources.ts';
import { objectKey } from '../../registry/keys.ts';
import type { Store } from '../../storage/store.ts';
import type { StoredObject } from '../../storage/types.ts';

type Stored<T> = T & StoredObject;

/** The kinds a token can name, by their plural. */
export interface BoundObjects {
  serviceAccount(namespace: string, name: string): Stored<ServiceAccount> | undefined;
  pod(namespace: string, name: string): Stored<Pod> | undefined;
  secret(namespace: string, name: string): Stored<Secret> | undefined;
  node(name: string): Stored<Node> | undefined;
}

function resource(plural: string) {
  const rt = findResource('', 'v1', plural);
  if (!rt) throw new Error(`core/v1 ${plural} is not in the resource table`);
  return rt;
}

/** The bound objects as `store` holds them now. */
export function storeObjects(store: Store): BoundObjects {
  const sa = resource('serviceaccounts');
  const pods = resource('pods');
  const secrets = resource('secrets');
  const nodes = resource('nodes');
  const read = <T>(key: string): Stored<T> | undefined => {
    const entry = store.get(key);
    return entry ? (JSON.parse(entry.json) as Stored<T>) : undefined;
  };
  return {
    serviceAccount: (ns, name) => read<ServiceAccount>(objectKey(sa, ns, name)),
    pod: (ns, name) => read<Pod>(objectKey(pods, ns, name)),
    secret: (ns, name) => read<Secret>(objectKey(secrets, ns, name)),
    node: (name) => read<Node>(objectKey(nodes, '', name)),
  };
}
