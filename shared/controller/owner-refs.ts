// Owner references: finding an object's controller, and building the
// controller reference a ReplicaSet puts on its Pods (controller: true,
// blockOwnerDeletion: true), as kube's controller ref manager does.

/** A metav1.OwnerReference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The ownerReference with controller: true, if any. */
export function controllerOf(obj: { metadata?: { ownerReferences?: OwnerReference[] } }): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** The controller reference pointing at `owner`. */
export function controllerRef(
  owner: { apiVersion?: string; kind?: string; metadata: { name: string; uid: string } },
  apiVersion: string,
  kind: string,
): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name, uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
}
