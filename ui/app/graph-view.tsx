/** @jsxImportSource preact */
// The ownership and selection graph of one namespace, drawn by cytoscape from
// buildGraph's nodes and edges, an owner's many Pods drawn as one node
// (groupPods) and only the Nodes its Pods run on (withoutIdleNodes). It
// reads the objects again (debounced) when changes arrive, and lays the
// graph out again only when its objects changed: new or gone edges alone (a
// group's Pods reaching another Node) are added or removed where the nodes
// stand, and a group's count changes only its label. The same edges are
// listed as text below it, for reading and for tests.
import cytoscape from 'cytoscape';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ObjectRef } from '../../shared/api/history-types.ts';
import { groupPods, withoutIdleNodes } from '../graph/graph-group.ts';
import { buildGraph, type GraphModel } from '../graph/graph-model.ts';
import { fetchObjects } from './api.ts';

const RESOURCES = {
  deployments: 'deployments.apps',
  replicasets: 'replicasets.apps',
  pods: 'pods',
  nodes: 'nodes',
  services: 'services',
  endpointslices: 'endpointslices.discovery.k8s.io',
  persistentvolumeclaims: 'persistentvolumeclaims',
  configmaps: 'configmaps',
} as const;
// A read of the namespace's objects and, when its shape changed, a new layout: costly with a
// thousand Pods, so at most one every DEBOUNCE_MS, and never two at once.
const DEBOUNCE_MS = 2000;
// cytoscape's breadthfirst layout of a thousand nodes holds the page for seconds (and with it the
// timeline and the live feed): a larger graph is laid out as a grid, and read again less often.
const TREE_LAYOUT_MAX = 300;
const LARGE_DEBOUNCE_MS = 6000;

const COLORS: Record<string, string> = {
  Deployment: '#2563eb',
  ReplicaSet: '#0891b2',
  Pod: '#059669',
  Pods: '#059669',
  Node: '#6b7280',
  Service: '#7c3aed',
  EndpointSlice: '#a855f7',
  PersistentVolumeClaim: '#d97706',
  ConfigMap: '#ca8a04',
};

async function loadGraph(namespace: string): Promise<GraphModel> {
  const entries = await Promise.all(
    Object.entries(RESOURCES).map(async ([key, resource]) => [key, await fetchObjects(resource, namespace).catch(() => [])] as const),
  );
  return withoutIdleNodes(groupPods(buildGraph(Object.fromEntries(entries))));
}

const labelOf = (n: GraphModel['nodes'][number]) => (n.kind === 'Pods' ? n.name : `${n.kind}\n${n.name}`);

function elements(g: GraphModel): cytoscape.ElementDefinition[] {
  return [
    ...g.nodes.map((n) => ({ group: 'nodes' as const, data: { id: n.id, label: labelOf(n), kind: n.kind, ref: n.ref } })),
    ...g.edges.map((e) => ({ group: 'edges' as const, data: { id: e.id, source: e.source, target: e.target, kind: e.kind } })),
  ];
}

/** Brings `c`'s edges to `g`'s without moving a node. */
function updateEdges(c: cytoscape.Core, g: GraphModel): void {
  const wanted = new Set(g.edges.map((e) => e.id));
  c.edges()
    .filter((e) => !wanted.has(e.id()))
    .remove();
  const fresh = elements({ nodes: [], edges: g.edges.filter((e) => c.getElementById(e.id).empty()) });
  if (fresh.length) c.add(fresh);
}

/**
 * Brings `c` from drawing `prev` to drawing `g`, and says whether `g` is a
 * large graph. A new layout only when objects other than Nodes came or went:
 * Nodes that a Pod now runs on are set in a row below the drawing, and
 * edges and a group's count change where the nodes stand.
 */
function redraw(c: cytoscape.Core, prev: GraphModel, g: GraphModel): boolean {
  const large = g.nodes.length > TREE_LAYOUT_MAX;
  const before = new Set(prev.nodes.map((n) => n.id));
  const now = new Set(g.nodes.map((n) => n.id));
  const added = g.nodes.filter((n) => !before.has(n.id));
  if (prev.nodes.length === 0 || prev.nodes.some((n) => !now.has(n.id)) || added.some((n) => n.kind !== 'Node')) {
    c.elements().remove();
    c.add(elements(g));
    c.layout(
      large
        ? { name: 'grid', padding: 10, avoidOverlap: false }
        : { name: 'breadthfirst', directed: true, spacingFactor: 1.1, padding: 10 },
    ).run();
    return large;
  }
  if (added.length) {
    const box = c.elements().boundingBox();
    const rows = Math.ceil(added.length / 20);
    c.add(elements({ nodes: added, edges: [] }))
      .layout({ name: 'grid', rows, boundingBox: { x1: box.x1, y1: box.y2 + 30, w: Math.max(box.w, 300), h: 40 * rows } })
      .run();
  }
  c.batch(() => {
    updateEdges(c, g);
    for (const n of g.nodes) if (n.kind === 'Pods') c.getElementById(n.id).data('label', labelOf(n));
  });
  return large;
}

/** See the file comment. `tick` changes whenever changes arrived. */
export function GraphView(props: { namespace: string; tick: number; onSelect: (ref: ObjectRef) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<cytoscape.Core | undefined>(undefined);
  const onSelect = useRef(props.onSelect);
  onSelect.current = props.onSelect;
  const [graph, setGraph] = useState<GraphModel>({ nodes: [], edges: [] });
  const [error, setError] = useState('');
  const [retick, setRetick] = useState(0);

  useEffect(() => {
    const c = cytoscape({
      container: box.current,
      wheelSensitivity: 0.3,
      style: [
        {
          selector: 'node',
          style: {
            label: 'data(label)',
            'text-wrap': 'wrap',
            'font-size': 9,
            'text-valign': 'bottom',
            'text-margin-y': 3,
            width: 16,
            height: 16,
            'background-color': (n: cytoscape.NodeSingular) => COLORS[n.data('kind') as string] ?? '#6b7280',
          },
        },
        {
          selector: 'edge',
          style: {
            width: 1.5,
            'curve-style': 'bezier',
            'target-arrow-shape': 'triangle',
            'line-color': '#9ca3af',
            'target-arrow-color': '#9ca3af',
          },
        },
        { selector: 'edge[kind = "mounts"], edge[kind = "runs-on"]', style: { 'line-style': 'dashed' } },
        // A group of Pods (groupPods) stands out from a single one.
        { selector: 'node[kind = "Pods"]', style: { shape: 'round-rectangle', width: 28, height: 20 } },
      ],
    });
    c.on('tap', 'node', (ev) => onSelect.current(ev.target.data('ref') as ObjectRef));
    cy.current = c;
    return () => c.destroy();
  }, []);

  // At most one read every DEBOUNCE_MS however fast changes come; a newer read's answer wins.
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const seq = useRef(0);
  const namespace = useRef(props.namespace);
  namespace.current = props.namespace;
  const loading = useRef(false);
  const largeGraph = useRef(false);
  const again = useRef(false);
  useEffect(() => {
    if (pending.current) return;
    if (loading.current) {
      again.current = true;
      return;
    }
    pending.current = setTimeout(
      () => {
        pending.current = undefined;
        const mine = ++seq.current;
        loading.current = true;
        const done = () => {
          loading.current = false;
          if (again.current) {
            again.current = false;
            setRetick((n) => n + 1);
          }
        };
        loadGraph(namespace.current)
          .finally(done)
          .then(
            (g) => {
              if (mine !== seq.current) return;
              setError('');
              setGraph((prev) => {
                const c = cy.current;
                if (c) largeGraph.current = redraw(c, prev, g);
                return g;
              });
            },
            (err: Error) => mine === seq.current && setError(err.message),
          );
      },
      props.tick === 0 ? 0 : largeGraph.current ? LARGE_DEBOUNCE_MS : DEBOUNCE_MS,
    );
  }, [props.namespace, props.tick, retick]);
  useEffect(() => () => clearTimeout(pending.current), []);

  return (
    <div class="graph">
      <div class="toolbar">
        <strong>Objects in {props.namespace}</strong>
        <span>
          {graph.nodes.length} objects, {graph.edges.length} edges
        </span>
        {error && <span class="error">{error}</span>}
      </div>
      <div class="cy" ref={box} />
      <details class="edges">
        <summary>Edges as text</summary>
        <ul>
          {graph.edges.map((e) => (
            <li key={e.id} data-kind={e.kind} data-source={e.source} data-target={e.target}>
              {e.source} {e.kind} {e.target}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
