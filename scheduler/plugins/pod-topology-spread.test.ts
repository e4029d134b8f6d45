// PodTopologySpread: maxSkew over zones and hostnames, the missing-label
// message, minDomains, and the system default constraints' scores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from '../testing/harness.ts';
import type { Pod, TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod } from '../testing/fixtures.ts';

const Z = 'topology.kubernetes.io/zone';
const nodes = () => [
  makeNode('a1', { labels: { [Z]: 'a' } }),
  makeNode('a2', { labels: { [Z]: 'a' } }),
  makeNode('b1', { labels: { [Z]: 'b' } }),
  makeNode('nolabel'),
];
const spread = (key: string, maxSkew = 1, extra: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint[] => [
  { maxSkew, topologyKey: key, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } }, ...extra },
];
const web = (name: string, node?: string, tsc?: TopologySpreadConstraint[]) =>
  makePod(name, { labels: { app: 'web' }, nodeName: node, topologySpreadConstraints: tsc });

const cases: { name: string; existing: Pod[]; tsc: TopologySpreadConstraint[]; want: string[] }[] = [
  { name: 'zone skew 1: the emptier zone only', existing: [web('w0', 'a1')], tsc: spread(Z), want: ['b1'] },
  { name: 'zone skew 2 allows either', existing: [web('w0', 'a1')], tsc: spread(Z, 2), want: ['a1', 'a2', 'b1'] },
  { name: 'hostname skew 1', existing: [web('w0', 'a1'), web('w1', 'a2')], tsc: spread('kubernetes.io/hostname'), want: ['b1', 'nolabel'] },
  {
    name: 'minDomains above the domain count treats the minimum as 0',
    existing: [web('w0', 'b1')],
    tsc: spread(Z, 1, { minDomains: 3 }),
    want: ['a1', 'a2'],
  },
];

for (const c of cases) {
  test(`PodTopologySpread filter: ${c.name}`, () => {
    const h = harness({ nodes: nodes(), pods: c.existing, plugins: [['PodTopologySpread', 2]] });
    const r = h.schedule(web('new', undefined, c.tsc)).result;
    assert.deepEqual(
      ['a1', 'a2', 'b1', 'nolabel'].filter((n) => !r.diagnosis.nodeToStatus.has(n)),
      c.want,
    );
  });
}

test('PodTopologySpread messages', () => {
  const h = harness({ nodes: nodes(), pods: [web('w0', 'a1')], plugins: [['PodTopologySpread', 2]] });
  const r = h.schedule(web('new', undefined, spread(Z)));
  assert.equal(
    r.result.diagnosis.nodeToStatus.get('nolabel')!.reasons[0],
    "node(s) didn't match pod topology spread constraints (missing required label)",
  );
  assert.equal(r.result.diagnosis.nodeToStatus.get('a1')!.reasons[0], "node(s) didn't match pod topology spread constraints");
});

test('PodTopologySpread default constraints spread Pods of a Service by hostname', () => {
  const h = harness({
    nodes: [makeNode('n1'), makeNode('n2')],
    pods: [web('w0', 'n1'), web('w1', 'n1')],
    services: [{ app: 'web' }],
    plugins: [['PodTopologySpread', 2]],
  });
  const s = h.scores(web('new'));
  assert.ok(s.n2 > s.n1, JSON.stringify(s));
  // Without a Service (no default selector) there is nothing to spread.
  const bare = harness({ nodes: [makeNode('n1'), makeNode('n2')], pods: [web('w0', 'n1')], plugins: [['PodTopologySpread', 2]] });
  assert.equal(bare.schedule(web('new')).result.state.skipScore.has('PodTopologySpread'), true);
});
