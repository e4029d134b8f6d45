// What the Node authorizer knows of each node: the Pods bound to it and the
// Secrets, ConfigMaps, PersistentVolumeClaims and ServiceAccount each of them
// references (kube's node authorizer graph, plugin/pkg/auth/authorizer/node,
// limited to the edges that start at a Pod). Kept from the store lazily:
// only the Pods written since the last look are parsed again, so a status
// write costs one parse, not a rebuild.
import type { Container, EphemeralContainer, Pod, Volume } from 'kubernetes-types/core/v1.js';
import type { Store } from '../../storage/store.ts';

/** The kinds of object a Pod can reference. */
export type RefType = 'secret' | 'configmap' | 'pvc' | 'serviceaccount';

export interface PodRefs {
  namespace: string;
  name: string;
  nodeName: string;
  secrets: string[];
  configmaps: string[];
  pvcs: string[];
  serviceAccount: string;
}

function containerRefs(c: Container | EphemeralContainer, secrets: Set<string>, configmaps: Set<string>): void {
  for (const e of c.envFrom ?? []) {
    if (e.secretRef?.name) secrets.add(e.secretRef.name);
    if (e.configMapRef?.name) configmaps.add(e.configMapRef.name);
  }
  for (const e of c.env ?? []) {
    const vf = e.valueFrom;
    if (vf?.secretKeyRef?.name) secrets.add(vf.secretKeyRef.name);
    if (vf?.configMapKeyRef?.name) configmaps.add(vf.configMapKeyRef.name);
  }
}

function volumeRefs(podName: string, v: Volume, secrets: Set<string>, configmaps: Set<string>, pvcs: Set<string>): void {
  if (v.secret?.secretName) secrets.add(v.secret.secretName);
  if (v.configMap?.name) configmaps.add(v.configMap.name);
  for (const s of v.projected?.sources ?? []) {
    if (s.secret?.name) secrets.add(s.secret.name);
    if (s.configMap?.name) configmaps.add(s.configMap.name);
  }
  if (v.persistentVolumeClaim?.claimName) pvcs.add(v.persistentVolumeClaim.claimName);
  // A generic ephemeral volume's claim is named after the pod and the volume.
  if (v.ephemeral) pvcs.add(`${podName}-${v.name}`);
  for (const ref of [
    v.azureFile?.secretName,
    v.cephfs?.secretRef?.name,
    v.cinder?.secretRef?.name,
    v.flexVolume?.secretRef?.name,
    v.iscsi?.secretRef?.name,
    v.rbd?.secretRef?.name,
    v.scaleIO?.secretRef?.name,
    v.storageos?.secretRef?.name,
    v.csi?.nodePublishSecretRef?.name,
  ]) {
    if (ref) secrets.add(ref);
  }
}

/** What a Pod references (kube's VisitPodSecretNames / VisitPodConfigmapNames and the graph's PVC and ServiceAccount edges). */
export function podRefs(pod: Pod): PodRefs {
  const spec = pod.spec;
  const name = pod.metadata?.name ?? '';
  const secrets = new Set<string>();
  const configmaps = new Set<string>();
  const pvcs = new Set<string>();
  for (const s of spec?.imagePullSecrets ?? []) if (s.name) secrets.add(s.name);
  for (const c of [...(spec?.initContainers ?? []), ...(spec?.containers ?? []), ...(spec?.ephemeralContainers ?? [])]) {
    containerRefs(c, secrets, configmaps);
  }
  for (const v of spec?.volumes ?? []) volumeRefs(name, v, secrets, configmaps, pvcs);
  return {
    namespace: pod.metadata?.namespace ?? '',
    name,
    nodeName: spec?.nodeName ?? '',
    secrets: [...secrets],
    configmaps: [...configmaps],
    pvcs: [...pvcs],
    serviceAccount: spec?.serviceAccountName ?? '',
  };
}

function refKeys(p: PodRefs): string[] {
  const keys = [`pod/${p.namespace}/${p.name}`];
  for (const s of p.secrets) keys.push(`secret/${p.namespace}/${s}`);
  for (const c of p.configmaps) keys.push(`configmap/${p.namespace}/${c}`);
  for (const c of p.pvcs) keys.push(`pvc/${p.namespace}/${c}`);
  if (p.serviceAccount) keys.push(`serviceaccount/${p.namespace}/${p.serviceAccount}`);
  return keys;
}

/** Which nodes each object is related to, through the Pods bound to them. */
export class PodGraph {
  private readonly pods = new Map<string, { rev: number; refs: PodRefs }>();
  /** "type/namespace/name" -> node -> number of that node's Pods that reference it. */
  private readonly related = new Map<string, Map<string, number>>();

  /** Sets (or, with undefined, removes) the Pod stored at `key`. */
  set(key: string, rev: number, pod: Pod | undefined): void {
    const old = this.pods.get(key);
    if (old) {
      this.pods.delete(key);
      this.count(old.refs, -1);
    }
    if (!pod) return;
    const refs = podRefs(pod);
    this.pods.set(key, { rev, refs });
    this.count(refs, 1);
  }

  revOf(key: string): number | undefined {
    return this.pods.get(key)?.rev;
  }

  private count(refs: PodRefs, delta: number): void {
    if (!refs.nodeName) return;
    for (const k of refKeys(refs)) {
      let byNode = this.related.get(k);
      if (!byNode) this.related.set(k, (byNode = new Map()));
      const n = (byNode.get(refs.nodeName) ?? 0) + delta;
      if (n > 0) byNode.set(refs.nodeName, n);
      else {
        byNode.delete(refs.nodeName);
        if (byNode.size === 0) this.related.delete(k);
      }
    }
  }

  /** Whether object `type` namespace/name is related to `nodeName` (kube's hasPathFrom). */
  relatedTo(nodeName: string, type: RefType | 'pod', namespace: string, name: string): boolean {
    return this.related.get(`${type}/${namespace}/${name}`)?.has(nodeName) ?? false;
  }
}

export const PODS_BUCKET = '/registry/core/pods';

/**
 * A PodGraph that follows the store's pods bucket. On first use it marks
 * every stored Pod and registers a watcher that only notes which keys
 * changed; each use then re-reads just those, so the cost is that of the
 * pod writes since the last node request, not of the whole bucket.
 */
export function storePodGraph(store: Store): () => PodGraph {
  const graph = new PodGraph();
  let dirty: Set<string> | undefined;
  return () => {
    if (!dirty) {
      const marked = new Set(store.keys(PODS_BUCKET, `${PODS_BUCKET}/`));
      dirty = marked;
      // Delivered synchronously as each batch commits, before its writers are answered.
      store.watch(
        { bucket: PODS_BUCKET, keyPrefix: `${PODS_BUCKET}/`, deliver: (events) => events.forEach((e) => marked.add(e.key)) },
        store.revision,
      );
    }
    if (dirty.size === 0) return graph;
    for (const key of dirty) {
      const entry = store.get(key);
      if (!entry) graph.set(key, 0, undefined);
      else if (graph.revOf(key) !== entry.rev) graph.set(key, entry.rev, JSON.parse(entry.json) as Pod);
    }
    dirty.clear();
    return graph;
  };
}
