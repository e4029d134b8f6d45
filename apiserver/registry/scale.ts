// The scale subresource: the autoscaling/v1 Scale view of a workload's
// replicas, and writing a Scale back into the workload.
import { fieldError, invalid } from '../../shared/api/errors.ts';
import { formatLabelSelector } from '../../shared/labels/label-selector.ts';

/** The Scale object kube serves for a Deployment, ReplicaSet or StatefulSet. */
export function toScale(obj: any): any {
  const m = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: obj.spec?.replicas ?? 0 },
    status: { replicas: obj.status?.replicas ?? 0, selector: obj.spec?.selector ? formatLabelSelector(obj.spec.selector) : '' },
  };
}

/** Validates a Scale written by a client and returns its replica count. */
export function replicasFromScale(scale: any): number {
  const replicas = scale?.spec?.replicas ?? 0;
  const name = scale?.metadata?.name ?? '';
  if (!Number.isInteger(replicas)) {
    throw invalid('Scale', 'autoscaling', name, [fieldError.invalid('spec.replicas', replicas, 'must be an integer')]);
  }
  if (replicas < 0) {
    throw invalid('Scale', 'autoscaling', name, [fieldError.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  return replicas;
}

/** The workload `old` with spec.replicas from `scale` (a new object, ready for prepareUpdate). */
export function applyScale(old: any, scale: any): any {
  const next = structuredClone(old);
  next.spec = { ...next.spec, replicas: replicasFromScale(scale) };
  return next;
}
