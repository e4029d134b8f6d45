// A ReplicationController seen as a ReplicaSet, as kube's replication
// controller does it (pkg/controller/replication/conversion.go): the map
// selector becomes matchLabels, everything else has the same shape. The
// status the ReplicaSet controller computes is a valid RC status as it is.
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import type { ReplicaSetLike } from '../deployment/util.ts';

/** The ReplicaSet view of `rc`; it shares the RC's template and metadata (read-only). */
export function replicaSetOf(rc: ReplicationController): ReplicaSetLike {
  const spec = rc.spec;
  return {
    metadata: rc.metadata,
    spec: spec && {
      replicas: spec.replicas,
      minReadySeconds: spec.minReadySeconds,
      // A nil map converts to a selector that matches nothing, as kube's conversion leaves it nil.
      selector: spec.selector ? { matchLabels: spec.selector } : undefined,
      template: spec.template,
    },
    status: rc.status,
  };
}
