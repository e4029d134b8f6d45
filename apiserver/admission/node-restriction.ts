// kube's NodeRestriction admission: a node's identity (system:node:NAME in
// system:nodes) may change only its own Node (and none of the labels kube
// reserves for administrators, nor its taints), only the status of Pods
// bound to it, delete or evict only those Pods, create only mirror Pods of
// its own, and touch only its own Lease in kube-node-lease.
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { ObjectToStore, StoredObject } from '../storage/types.ts';
import { nodeNameOf } from '../auth/user-info.ts';
import type { AdmissionAttributes, AdmissionPlugin, Operation } from './types.ts';
import { admissionForbidden, isCore } from './common.ts';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** The kubernetes.io labels a kubelet may set on its Node (kube's kubeletapis.KubeletLabels and label namespaces). */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/arch',
  'kubernetes.io/os',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'beta.kubernetes.io/arch',
  'beta.kubernetes.io/os',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const domainOf = (key: string) => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inDomain = (domain: string, d: string) => domain === d || domain.endsWith('.' + d);

/** Whether a node may not set label `key` on itself. */
export function forbiddenNodeLabel(key: string): boolean {
  const domain = domainOf(key);
  if (inDomain(domain, 'node-restriction.kubernetes.io')) return true;
  if (!inDomain(domain, 'kubernetes.io') && !inDomain(domain, 'k8s.io')) return false;
  if (KUBELET_LABELS.has(key)) return false;
  return !KUBELET_LABEL_NAMESPACES.some((ns) => inDomain(domain, ns));
}

function checkPod(node: string, op: Operation, pod: Pod, attrs: AdmissionAttributes): string | undefined {
  const name = pod.metadata?.name ?? '';
  const bound = pod.spec?.nodeName === node;
  if (attrs.subresource === 'status')
    return bound ? undefined : `node "${node}" can only update pod status for pods with spec.nodeName set to itself`;
  if (attrs.subresource === 'eviction') return bound ? undefined : `node "${node}" can only evict pods with spec.nodeName set to itself`;
  if (op === 'DELETE') return bound ? undefined : `node "${node}" can only delete pods with spec.nodeName set to itself`;
  if (op !== 'CREATE' || attrs.subresource) return `unexpected operation ${op}, node "${node}" can only create and delete mirror pods`;
  if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] === undefined)
    return `pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node "${node}" can only create mirror pods`;
  if (!bound) return `node "${node}" can only create pods with spec.nodeName set to itself`;
  for (const ref of pod.metadata?.ownerReferences ?? []) {
    if (ref.apiVersion !== 'v1' || ref.kind !== 'Node' || ref.name !== node)
      return `node "${node}" can only create pods with an owner reference set to itself`;
  }
  const spec = pod.spec!;
  if (spec.serviceAccountName) return `node "${node}" can not create pods that reference a service account`;
  const vols = spec.volumes ?? [];
  const envFrom = [...(spec.containers ?? []), ...(spec.initContainers ?? [])];
  const refs = (kind: 'secret' | 'configMap') =>
    vols.some((v) => (kind === 'secret' ? v.secret : v.configMap) || v.projected?.sources?.some((s) => s[kind])) ||
    envFrom.some(
      (c) =>
        c.envFrom?.some((e) => (kind === 'secret' ? e.secretRef : e.configMapRef)) ||
        c.env?.some((e) => (kind === 'secret' ? e.valueFrom?.secretKeyRef : e.valueFrom?.configMapKeyRef)),
    );
  if (refs('secret')) return `node "${node}" can not create pods that reference secrets`;
  if (refs('configMap')) return `node "${node}" can not create pods that reference configmaps`;
  if (vols.some((v) => v.persistentVolumeClaim || v.ephemeral))
    return `node "${node}" can not create pods that reference persistentvolumeclaims`;
  void name;
  return undefined;
}

function checkNode(node: string, op: Operation, obj: ObjectToStore | StoredObject, old: StoredObject | undefined): string | undefined {
  const requested = obj.metadata?.name ?? '';
  if (requested !== node) return `node "${node}" is not allowed to modify node "${requested}"`;
  if (op === 'DELETE') return undefined;
  const labels = obj.metadata?.labels ?? {};
  if (op === 'CREATE') {
    const bad = Object.keys(labels).filter(forbiddenNodeLabel).sort();
    if (bad.length) return `node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`;
    return undefined;
  }
  const before = old?.metadata.labels ?? {};
  const changed = [...new Set([...Object.keys(labels), ...Object.keys(before)])].filter((k) => labels[k] !== before[k]);
  const bad = changed.filter(forbiddenNodeLabel).sort();
  if (bad.length) return `node "${node}" is not allowed to modify labels: ${bad.join(', ')}`;
  const taints = JSON.stringify((obj as Node).spec?.taints ?? []);
  if (old && taints !== JSON.stringify((old as Node).spec?.taints ?? [])) return `node "${node}" is not allowed to modify taints`;
  return undefined;
}

function decide(
  op: Operation,
  rt: { group: string; plural: string },
  obj: ObjectToStore | StoredObject,
  old: StoredObject | undefined,
  attrs: AdmissionAttributes,
) {
  const node = nodeNameOf(attrs.user);
  if (node === undefined) return;
  let reason: string | undefined;
  if (isCore(rt, 'pods')) reason = checkPod(node, op, obj as Pod, attrs);
  else if (isCore(rt, 'nodes')) reason = checkNode(node, op, obj, old);
  else if (rt.group === 'coordination.k8s.io' && rt.plural === 'leases' && obj.metadata?.namespace === NODE_LEASE_NAMESPACE) {
    if (obj.metadata?.name !== node) reason = 'can only access node lease with the same name as the requesting node';
  }
  if (reason) throw admissionForbidden(rt, obj.metadata?.name ?? '', reason);
}

/** NodeRestriction. */
export const nodeRestriction: AdmissionPlugin = {
  name: 'NodeRestriction',
  contextual: true,
  wanted: (_rt, attrs) => nodeNameOf(attrs.user) !== undefined,
  admit(op, rt, obj, old, attrs) {
    if (attrs) decide(op, rt, obj, old, attrs);
  },
  admitDelete(rt, obj, attrs) {
    decide('DELETE', rt, obj, undefined, attrs);
  },
};
