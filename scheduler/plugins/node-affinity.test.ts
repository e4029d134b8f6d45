// NodeAffinity and NodeName and NodeUnschedulable: nodeSelector, required
// terms (OR of ANDs, Gt/Lt, matchFields), preferred weights, cordon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from '../testing/harness.ts';
import type { NodeSelectorTerm } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod, type PodOptions } from '../testing/fixtures.ts';

const nodes = () => [
  makeNode('ssd-1', { labels: { disk: 'ssd', cores: '8' } }),
  makeNode('hdd-1', { labels: { disk: 'hdd', cores: '2' } }),
  makeNode('bare'),
];
const req = (...terms: NodeSelectorTerm[]) => ({
  nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
});

const cases: { name: string; pod: PodOptions; want: string[] }[] = [
  { name: 'nodeSelector', pod: { nodeSelector: { disk: 'ssd' } }, want: ['ssd-1'] },
  {
    name: 'In',
    pod: { affinity: req({ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd', 'hdd'] }] }) },
    want: ['hdd-1', 'ssd-1'],
  },
  {
    name: 'NotIn matches missing label',
    pod: { affinity: req({ matchExpressions: [{ key: 'disk', operator: 'NotIn', values: ['ssd'] }] }) },
    want: ['bare', 'hdd-1'],
  },
  { name: 'DoesNotExist', pod: { affinity: req({ matchExpressions: [{ key: 'disk', operator: 'DoesNotExist' }] }) }, want: ['bare'] },
  { name: 'Gt', pod: { affinity: req({ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['4'] }] }) }, want: ['ssd-1'] },
  {
    name: 'terms are ORed',
    pod: {
      affinity: req(
        { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] },
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['bare'] }] },
      ),
    },
    want: ['bare', 'ssd-1'],
  },
  { name: 'empty term matches nothing', pod: { affinity: req({}) }, want: [] },
];

for (const c of cases) {
  test(`NodeAffinity filter: ${c.name}`, () => {
    const h = harness({ nodes: nodes(), plugins: [['NodeAffinity', 2]] });
    const r = h.schedule(makePod('p', c.pod));
    const feasible = nodes()
      .map((n) => n.metadata.name)
      .filter((n) => !r.result.diagnosis.nodeToStatus.has(n));
    assert.deepEqual(feasible.sort(), c.want);
    if (!c.want.length) assert.equal(r.message, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.");
  });
}

test('NodeAffinity score follows preferred weights', () => {
  const h = harness({ nodes: nodes(), plugins: [['NodeAffinity', 2]] });
  const pref = {
    nodeAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 80, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } },
        { weight: 20, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } },
      ],
    },
  };
  assert.deepEqual(h.scores(makePod('p', { affinity: pref })), { 'ssd-1': 200, 'hdd-1': 40, bare: 0 });
});

test('NodeName and NodeUnschedulable', () => {
  const h = harness({
    nodes: [makeNode('a', { unschedulable: true }), makeNode('b')],
    plugins: [
      ['NodeUnschedulable', 0],
      ['NodeName', 0],
    ],
  });
  assert.equal(h.schedule(makePod('p')).node, 'b');
  assert.equal(
    h.schedule(makePod('p', { nodeName: 'a' })).message,
    "0/2 nodes are available: 1 node(s) didn't match the requested node name, 1 node(s) were unschedulable.",
  );
  const tolerant = makePod('t', {
    tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }],
    nodeName: 'a',
  });
  assert.equal(h.schedule(tolerant).node, 'a');
});
