// InterPodAffinity: required affinity (incl. the first Pod of a group),
// anti-affinity both ways, namespaces, and preferred-term scores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from '../testing/harness.ts';
import type { Pod, PodAffinityTerm } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod } from '../testing/fixtures.ts';

const zoneNodes = () => [
  makeNode('a1', { labels: { 'topology.kubernetes.io/zone': 'a' } }),
  makeNode('a2', { labels: { 'topology.kubernetes.io/zone': 'a' } }),
  makeNode('b1', { labels: { 'topology.kubernetes.io/zone': 'b' } }),
];
const term = (app: string, key = 'kubernetes.io/hostname', extra: Partial<PodAffinityTerm> = {}): PodAffinityTerm => ({
  labelSelector: { matchLabels: { app } },
  topologyKey: key,
  ...extra,
});
const affinity = (t: PodAffinityTerm) => ({ podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [t] } });
const anti = (t: PodAffinityTerm) => ({ podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [t] } });
const feasible = (h: ReturnType<typeof harness>, pod: Pod) => {
  const r = h.schedule(pod).result;
  return ['a1', 'a2', 'b1'].filter((n) => !r.diagnosis.nodeToStatus.has(n));
};

const cases: { name: string; existing: Pod[]; pod: Pod; want: string[]; msg?: string }[] = [
  {
    name: 'affinity to a zone',
    existing: [makePod('db', { labels: { app: 'db' }, nodeName: 'b1' })],
    pod: makePod('web', { affinity: affinity(term('db', 'topology.kubernetes.io/zone')) }),
    want: ['b1'],
  },
  {
    name: 'affinity with no match anywhere',
    existing: [],
    pod: makePod('web', { affinity: affinity(term('db')) }),
    want: [],
    msg: "0/3 nodes are available: 3 node(s) didn't match pod affinity rules.",
  },
  {
    name: 'first pod of a self-selecting group goes anywhere',
    existing: [],
    pod: makePod('web', { labels: { app: 'web' }, affinity: affinity(term('web')) }),
    want: ['a1', 'a2', 'b1'],
  },
  {
    name: 'anti-affinity by hostname',
    existing: [makePod('w0', { labels: { app: 'web' }, nodeName: 'a1' })],
    pod: makePod('w1', { labels: { app: 'web' }, affinity: anti(term('web')) }),
    want: ['a2', 'b1'],
  },
  {
    name: 'anti-affinity by zone',
    existing: [makePod('w0', { labels: { app: 'web' }, nodeName: 'a1' })],
    pod: makePod('w1', { affinity: anti(term('web', 'topology.kubernetes.io/zone')) }),
    want: ['b1'],
    msg: undefined,
  },
  {
    name: 'existing pod anti-affinity keeps others out',
    existing: [makePod('lonely', { affinity: anti(term('web')), nodeName: 'a2' })],
    pod: makePod('w', { labels: { app: 'web' } }),
    want: ['a1', 'b1'],
  },
  {
    name: 'other namespaces do not count',
    existing: [makePod('w0', { namespace: 'other', labels: { app: 'web' }, nodeName: 'a1' })],
    pod: makePod('w1', { affinity: anti(term('web')) }),
    want: ['a1', 'a2', 'b1'],
  },
  {
    name: 'namespaceSelector {} counts every namespace',
    existing: [makePod('w0', { namespace: 'other', labels: { app: 'web' }, nodeName: 'a1' })],
    pod: makePod('w1', { affinity: anti(term('web', 'kubernetes.io/hostname', { namespaceSelector: {} })) }),
    want: ['a2', 'b1'],
  },
];

for (const c of cases) {
  test(`InterPodAffinity filter: ${c.name}`, () => {
    const h = harness({ nodes: zoneNodes(), pods: c.existing, plugins: [['InterPodAffinity', 2]] });
    assert.deepEqual(feasible(h, c.pod), c.want);
    if (c.msg) assert.equal(h.schedule(c.pod).message, c.msg);
  });
}

test('InterPodAffinity messages for anti-affinity both ways', () => {
  const h = harness({
    nodes: [makeNode('n1')],
    pods: [makePod('w0', { labels: { app: 'web' }, affinity: anti(term('web')), nodeName: 'n1' })],
    plugins: [['InterPodAffinity', 2]],
  });
  assert.equal(
    h.schedule(makePod('w1', { labels: { app: 'web' }, affinity: anti(term('web')) })).message,
    "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.",
  );
  assert.equal(
    h.schedule(makePod('w2', { labels: { app: 'web' } })).message,
    "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules.",
  );
});

test('InterPodAffinity preferred terms score topology domains', () => {
  const h = harness({
    nodes: zoneNodes(),
    pods: [makePod('cache', { labels: { app: 'cache' }, nodeName: 'a1' })],
    plugins: [['InterPodAffinity', 2]],
  });
  const pref = {
    podAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: term('cache', 'topology.kubernetes.io/zone') }],
    },
  };
  assert.deepEqual(h.scores(makePod('web', { affinity: pref })), { a1: 200, a2: 200, b1: 0 });
});
