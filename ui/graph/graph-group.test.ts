// groupPods: an owner's Pods past the limit become one node with each of
// their edges once; owners under the limit, and their Pods, are left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildGraph } from './graph-model.ts';
import { groupPods, withoutIdleNodes } from './graph-group.ts';

const meta = (name: string, extra: Record<string, unknown> = {}) => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...extra },
});
const owned = (owner: string) => ({ ownerReferences: [{ kind: 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true }] });
const pod = (name: string, owner: string, node: string) => ({
  ...meta(name, owned(owner)),
  spec: { nodeName: node, volumes: [{ name: 'cfg', configMap: { name: 'settings' } }] },
});

const model = buildGraph({
  replicasets: [meta('big'), meta('small')],
  pods: [...Array.from({ length: 5 }, (_, i) => pod(`big-${i}`, 'big', `node-${i % 2}`)), pod('small-0', 'small', 'node-0')],
  nodes: [{ metadata: { name: 'node-0' } }, { metadata: { name: 'node-1' } }],
  configmaps: [meta('settings')],
  endpointslices: [
    {
      ...meta('svc-x'),
      endpoints: [0, 1, 2].map((i) => ({ targetRef: { kind: 'Pod', name: `big-${i}`, namespace: 'default' } })),
    },
  ],
});

test("an owner's Pods past the limit are one node; each edge of theirs is drawn once", () => {
  const g = groupPods(model, 3);
  const group = g.nodes.find((n) => n.kind === 'Pods')!;
  assert.deepEqual(group, {
    id: 'Pods/default/ReplicaSet/big',
    kind: 'Pods',
    namespace: 'default',
    name: '5 Pods of big',
    ref: model.nodes.find((n) => n.id === 'ReplicaSet/default/big')!.ref,
  });
  assert.ok(!g.nodes.some((n) => n.name.startsWith('big-')), 'the grouped Pods are not drawn');
  assert.ok(
    g.nodes.some((n) => n.id === 'Pod/default/small-0'),
    'an owner under the limit keeps its Pods',
  );
  const edges = g.edges.filter((e) => e.source === group.id || e.target === group.id).map((e) => e.id);
  assert.deepEqual(edges.sort(), [
    'endpoint:EndpointSlice/default/svc-x->Pods/default/ReplicaSet/big',
    'mounts:Pods/default/ReplicaSet/big->ConfigMap/default/settings',
    'owns:ReplicaSet/default/big->Pods/default/ReplicaSet/big',
    'runs-on:Pods/default/ReplicaSet/big->Node//node-0',
    'runs-on:Pods/default/ReplicaSet/big->Node//node-1',
  ]);
  assert.equal(new Set(g.edges.map((e) => e.id)).size, g.edges.length, 'no edge twice');
  assert.ok(g.edges.every((e) => g.nodes.some((n) => n.id === e.source) && g.nodes.some((n) => n.id === e.target)));
});

test('a graph with no owner past the limit is returned as it is', () => {
  assert.equal(groupPods(model, 5), model);
});

test('Nodes no Pod of the graph runs on are left out', () => {
  const g = buildGraph({
    pods: [pod('small-0', 'small', 'node-0')],
    nodes: [{ metadata: { name: 'node-0' } }, { metadata: { name: 'idle' } }],
  });
  assert.deepEqual(
    withoutIdleNodes(g).nodes.map((n) => n.id),
    ['Pod/default/small-0', 'Node//node-0'],
  );
  const busy = withoutIdleNodes(g);
  assert.equal(withoutIdleNodes(busy), busy, 'nothing to leave out: the same graph');
});
