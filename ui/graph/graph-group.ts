// The graph as it is drawn: an owner's Pods beyond a handful are one node,
// "N Pods", that stands for them all, with one edge to each Node they run
// on, each claim and ConfigMap they mount and each EndpointSlice that targets
// them. A 1,000-replica Deployment is then a graph of a few dozen nodes, as
// readable as a small one and cheap to lay out and draw (cytoscape's layout
// and canvas of 1,100 nodes held the page for seconds, and with it the
// timeline). A Pod of a group is still found through its owner's history
// and in the timeline. The cluster's Nodes are drawn only where a Pod of the
// graph runs (withoutIdleNodes): a namespace's graph on 5,000 nodes is not
// 5,000 dots.
import { edgeId, nodeId, type GraphEdge, type GraphModel, type GraphNode } from './graph-model.ts';

/** An owner with more Pods than this has them drawn as one group node. */
export const MAX_PODS_PER_OWNER = 12;

/** The group node of `owner`'s Pods: kind "Pods", its id derived from the owner's, its ref the owner's. */
function groupOf(owner: GraphNode, count: number): GraphNode {
  return {
    id: nodeId('Pods', owner.namespace, `${owner.kind}/${owner.name}`),
    kind: 'Pods',
    namespace: owner.namespace,
    name: `${count} Pods of ${owner.name}`,
    ref: owner.ref,
  };
}

/** `model` with each owner's Pods beyond `max` drawn as one node (see the file comment); a smaller graph is returned as it is. */
export function groupPods(model: GraphModel, max = MAX_PODS_PER_OWNER): GraphModel {
  const byId = new Map(model.nodes.map((n) => [n.id, n]));
  const podsOf = new Map<string, string[]>();
  for (const e of model.edges) {
    if (e.kind !== 'owns' || byId.get(e.target)?.kind !== 'Pod') continue;
    const list = podsOf.get(e.source);
    if (list) list.push(e.target);
    else podsOf.set(e.source, [e.target]);
  }
  // Each grouped Pod, to the node that stands for it.
  const standIn = new Map<string, string>();
  const groups: GraphNode[] = [];
  for (const [ownerId, pods] of podsOf) {
    if (pods.length <= max) continue;
    const group = groupOf(byId.get(ownerId)!, pods.length);
    groups.push(group);
    for (const pod of pods) if (!standIn.has(pod)) standIn.set(pod, group.id);
  }
  if (groups.length === 0) return model;

  const nodes = [...model.nodes.filter((n) => !standIn.has(n.id)), ...groups];
  const edges: GraphEdge[] = [];
  const seen = new Set<string>();
  for (const e of model.edges) {
    const source = standIn.get(e.source) ?? e.source;
    const target = standIn.get(e.target) ?? e.target;
    const id = source === e.source && target === e.target ? e.id : edgeId(e.kind, source, target);
    if (seen.has(id)) continue;
    seen.add(id);
    edges.push(id === e.id ? e : { id, source, target, kind: e.kind });
  }
  return { nodes, edges };
}

/** `model` without the Nodes no edge reaches (no Pod of the graph runs there). */
export function withoutIdleNodes(model: GraphModel): GraphModel {
  const linked = new Set<string>();
  for (const e of model.edges) linked.add(e.source).add(e.target);
  const nodes = model.nodes.filter((n) => n.kind !== 'Node' || linked.has(n.id));
  return nodes.length === model.nodes.length ? model : { nodes, edges: model.edges };
}
