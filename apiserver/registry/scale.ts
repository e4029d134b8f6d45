// The scale subresource: the autoscaling/v1 Scale view of a workload's
// replicas, and writing a Scale back into the workload. A
// ReplicationController's selector is a map, not a LabelSelector.
import { fieldError, invalid } from '../../shared/api/errors.ts';
import { formatLabelSelector } from '../../shared/labels/label-selector.ts';
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import type { KubeObject } from './object.ts';

/** What a Deployment, ReplicaSet, StatefulSet and ReplicationController share that a Scale shows. */
interface Scalable extends KubeObject {
  spec?: { replicas?: number; selector?: LabelSelector | Record<string, string> };
  status?: { replicas?: number };
}

/** The Scale's status.selector: a LabelSelector formatted, an RC's map as labels.SelectorFromSet(...).String(). */
function selectorString(obj: Scalable): string {
  const sel = obj.spec?.selector;
  if (!sel) return '';
  if (obj.kind === 'ReplicationController') {
    const set = sel as Record<string, string>;
    return Object.keys(set)
      .sort()
      .map((k) => `${k}=${set[k]}`)
      .join(',');
  }
  return formatLabelSelector(sel);
}

/** An autoscaling/v1 Scale of object `obj` (its identity metadata), with these replica counts and selector. */
export function scaleOf(obj: KubeObject, specReplicas: number, statusReplicas: number, selector: string | undefined): Scale {
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
    spec: { replicas: specReplicas },
    status: { replicas: statusReplicas, ...(selector !== undefined ? { selector } : {}) },
  };
}

/** The Scale object kube serves for a Deployment, ReplicaSet, StatefulSet or ReplicationController. */
export function toScale(obj: Scalable): Scale {
  return scaleOf(obj, obj.spec?.replicas ?? 0, obj.status?.replicas ?? 0, selectorString(obj));
}

/** Validates a Scale written by a client and returns its replica count. */
export function replicasFromScale(scale: Scale | null | undefined): number {
  // The client's JSON: spec.replicas may be anything.
  const replicas: unknown = scale?.spec?.replicas ?? 0;
  const name = scale?.metadata?.name ?? '';
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    throw invalid('Scale', 'autoscaling', name, [fieldError.invalid('spec.replicas', replicas, 'must be an integer')]);
  }
  if (replicas < 0) {
    throw invalid('Scale', 'autoscaling', name, [fieldError.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  }
  return replicas;
}

/** The workload `old` with spec.replicas from `scale` (a new object, ready for prepareUpdate). */
export function applyScale(old: Scalable, scale: Scale | null | undefined): Scalable {
  const next = structuredClone(old);
  next.spec = { ...next.spec, replicas: replicasFromScale(scale) };
  return next;
}
