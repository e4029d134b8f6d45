// The ownership and selection graph as data: a pure function from the
// objects of a namespace (and the cluster's Nodes) to nodes and edges.
// Deployment -> ReplicaSet -> Pod by ownerReferences, Pod -> Node by
// spec.nodeName, Service -> EndpointSlice by the kubernetes.io/service-name
// label, EndpointSlice -> Pod by each endpoint's targetRef, and Pod -> the
// PersistentVolumeClaims and ConfigMaps its volumes mount. An edge is drawn
// only between objects that are both present.
import type { ObjectRef } from '../../shared/api/history-types.ts';

/** The lists the graph is built from (any may be missing). */
export interface GraphObjects {
  deployments?: any[];
  replicasets?: any[];
  pods?: any[];
  nodes?: any[];
  services?: any[];
  endpointslices?: any[];
  persistentvolumeclaims?: any[];
  configmaps?: any[];
}

/** One object in the graph; `id` is "Kind/namespace/name" ("Node//name" for a Node). */
export interface GraphNode {
  id: string;
  kind: string;
  namespace?: string;
  name: string;
  /** Where its history is (the history API's object reference). */
  ref: ObjectRef;
}

/** What an edge means. */
export type EdgeKind = 'owns' | 'runs-on' | 'selects' | 'endpoint' | 'mounts';

/** One edge, from `source` to `target` (node ids). */
export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  kind: EdgeKind;
}

/** The whole graph. */
export interface GraphModel {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

const KINDS: { key: keyof GraphObjects; kind: string; group: string; namespaced: boolean }[] = [
  { key: 'deployments', kind: 'Deployment', group: 'apps', namespaced: true },
  { key: 'replicasets', kind: 'ReplicaSet', group: 'apps', namespaced: true },
  { key: 'pods', kind: 'Pod', group: '', namespaced: true },
  { key: 'nodes', kind: 'Node', group: '', namespaced: false },
  { key: 'services', kind: 'Service', group: '', namespaced: true },
  { key: 'endpointslices', kind: 'EndpointSlice', group: 'discovery.k8s.io', namespaced: true },
  { key: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', group: '', namespaced: true },
  { key: 'configmaps', kind: 'ConfigMap', group: '', namespaced: true },
];

/** The id of an edge of `kind` from `source` to `target`. */
export function edgeId(kind: EdgeKind, source: string, target: string): string {
  return `${kind}:${source}->${target}`;
}

/** The id of an object's node. */
export function nodeId(kind: string, namespace: string | undefined, name: string): string {
  return `${kind}/${namespace ?? ''}/${name}`;
}

/** Builds the graph; the same objects give the same nodes and edges, in the same order. */
export function buildGraph(objects: GraphObjects): GraphModel {
  const nodes: GraphNode[] = [];
  const byId = new Map<string, GraphNode>();
  const byUid = new Map<string, GraphNode>();
  for (const k of KINDS) {
    for (const o of objects[k.key] ?? []) {
      const name = o?.metadata?.name;
      if (typeof name !== 'string') continue;
      const namespace = k.namespaced ? (o.metadata.namespace as string | undefined) : undefined;
      const node: GraphNode = {
        id: nodeId(k.kind, namespace, name),
        kind: k.kind,
        namespace,
        name,
        ref: { group: k.group, resource: k.key, kind: k.kind, namespace, name },
      };
      if (byId.has(node.id)) continue;
      byId.set(node.id, node);
      if (o.metadata.uid) byUid.set(o.metadata.uid, node);
      nodes.push(node);
    }
  }

  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  const edge = (source: string | undefined, target: string | undefined, kind: EdgeKind) => {
    if (!source || !target || !byId.has(source) || !byId.has(target)) return;
    const id = edgeId(kind, source, target);
    if (seen.has(id)) return;
    seen.add(id);
    edges.push({ id, source, target, kind });
  };

  for (const k of KINDS) {
    for (const o of objects[k.key] ?? []) {
      const meta = o?.metadata;
      if (typeof meta?.name !== 'string') continue;
      const self = nodeId(k.kind, k.namespaced ? meta.namespace : undefined, meta.name);
      for (const ref of meta.ownerReferences ?? []) {
        const owner = (ref.uid && byUid.get(ref.uid)?.id) || nodeId(ref.kind, meta.namespace, ref.name);
        edge(owner, self, 'owns');
      }
      if (k.key === 'pods') podEdges(o, self, edge);
      if (k.key === 'endpointslices') {
        const service = meta.labels?.['kubernetes.io/service-name'];
        if (service) edge(nodeId('Service', meta.namespace, service), self, 'selects');
        for (const ep of o.endpoints ?? []) {
          const t = ep?.targetRef;
          if (t?.kind === 'Pod' && t.name) edge(self, nodeId('Pod', t.namespace ?? meta.namespace, t.name), 'endpoint');
        }
      }
    }
  }
  return { nodes, edges };
}

function podEdges(pod: any, self: string, edge: (s: string | undefined, t: string | undefined, k: EdgeKind) => void): void {
  const ns = pod.metadata.namespace;
  if (pod.spec?.nodeName) edge(self, nodeId('Node', undefined, pod.spec.nodeName), 'runs-on');
  for (const v of pod.spec?.volumes ?? []) {
    if (v?.persistentVolumeClaim?.claimName) edge(self, nodeId('PersistentVolumeClaim', ns, v.persistentVolumeClaim.claimName), 'mounts');
    if (v?.configMap?.name) edge(self, nodeId('ConfigMap', ns, v.configMap.name), 'mounts');
    for (const src of v?.projected?.sources ?? [])
      if (src?.configMap?.name) edge(self, nodeId('ConfigMap', ns, src.configMap.name), 'mounts');
  }
}
