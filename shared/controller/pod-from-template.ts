// kube's controller.GetPodFromTemplate: a new Pod for a workload, named
// `OWNER-` plus the server's suffix, with the template's labels, annotations,
// finalizers and spec, and a controller reference to its owner. Shared by the
// controllers that make Pods from a template (ReplicaSet and
// ReplicationController, DaemonSet).
import type { Pod, PodTemplateSpec } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import { controllerRef } from './owner-refs.ts';

/** The Pod `owner` (of kind `ownerKind`) creates from `template`. */
export function podFromTemplate(template: PodTemplateSpec, owner: ObjectMeta, ownerKind: { apiVersion: string; kind: string }): Pod {
  const t = template.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${owner.name}-`,
      namespace: owner.namespace,
      labels: { ...t?.labels },
      ...(t?.annotations ? { annotations: { ...t.annotations } } : {}),
      ...(t?.finalizers ? { finalizers: [...t.finalizers] } : {}),
      ownerReferences: [controllerRef({ metadata: { name: owner.name!, uid: owner.uid! } }, ownerKind.apiVersion, ownerKind.kind)],
    },
    spec: structuredClone(template.spec!),
  };
}
