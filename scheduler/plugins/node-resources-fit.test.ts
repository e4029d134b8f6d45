// NodeResourcesFit: requests against allocatable minus requested, kube's
// reasons ("Insufficient cpu", "Too many pods"), and LeastAllocated scores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from '../testing/harness.ts';
import { makeNode, makePod, type NodeOptions, type PodOptions } from '../testing/fixtures.ts';

interface Case {
  name: string;
  node: NodeOptions;
  pods: PodOptions[];
  /** `extra`: extended resources the Pod's container requests. */
  pod: PodOptions & { extra?: Record<string, string> };
  want?: string;
  msg?: string;
}

const cases: Case[] = [
  { name: 'fits', node: { cpu: '2' }, pods: [{ cpu: '1' }], pod: { cpu: '1' }, want: 'n1' },
  {
    name: 'cpu exhausted',
    node: { cpu: '2' },
    pods: [{ cpu: '1500m' }],
    pod: { cpu: '1' },
    msg: '0/1 nodes are available: 1 Insufficient cpu.',
  },
  {
    name: 'memory and cpu',
    node: { cpu: '1', memory: '1Gi' },
    pods: [],
    pod: { cpu: '2', memory: '2Gi' },
    msg: '0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.',
  },
  { name: 'too many pods', node: { pods: '1' }, pods: [{}], pod: {}, msg: '0/1 nodes are available: 1 Too many pods.' },
  {
    name: 'extended resource missing',
    node: {},
    pods: [],
    pod: { extra: { 'example.com/gpu': '1' } },
    msg: '0/1 nodes are available: 1 Insufficient example.com/gpu.',
  },
  {
    name: 'extended resource present',
    node: { extra: { 'example.com/gpu': '2' } },
    pods: [],
    pod: { extra: { 'example.com/gpu': '1' } },
    want: 'n1',
  },
];

for (const c of cases) {
  test(`NodeResourcesFit filter: ${c.name}`, () => {
    const h = harness({
      nodes: [makeNode('n1', c.node)],
      pods: c.pods.map((p, i) => makePod(`old-${i}`, { ...p, nodeName: 'n1' })),
      plugins: [['NodeResourcesFit', 1]],
    });
    const pod = makePod('new', c.pod);
    if (c.pod.extra) pod.spec.containers[0].resources!.requests = c.pod.extra;
    const r = h.schedule(pod);
    assert.equal(r.node, c.want);
    if (c.msg) assert.equal(r.message, c.msg);
  });
}

test('NodeResourcesFit marks a request above allocatable unresolvable (preemption cannot help)', () => {
  const h = harness({ nodes: [makeNode('n1', { cpu: '1' })], plugins: [['NodeResourcesFit', 1]] });
  assert.equal(h.schedule(makePod('p', { cpu: '2' })).result.diagnosis.nodeToStatus.get('n1')!.code, 'UnschedulableAndUnresolvable');
  const h2 = harness({
    nodes: [makeNode('n1', { cpu: '1' })],
    pods: [makePod('o', { cpu: '1', nodeName: 'n1' })],
    plugins: [['NodeResourcesFit', 1]],
  });
  assert.equal(h2.schedule(makePod('p', { cpu: '500m' })).result.diagnosis.nodeToStatus.get('n1')!.code, 'Unschedulable');
});

test('NodeResourcesFit LeastAllocated prefers the emptier node; MostAllocated the fuller one', () => {
  const setup = (type?: string) =>
    harness({
      nodes: [makeNode('busy', { cpu: '4', memory: '4Gi' }), makeNode('idle', { cpu: '4', memory: '4Gi' })],
      pods: [makePod('o', { cpu: '2', memory: '2Gi', nodeName: 'busy' })],
      plugins: [['NodeResourcesFit', 1, type ? { scoringStrategy: { type } } : {}]],
    });
  const pod = makePod('p', { cpu: '1', memory: '1Gi' });
  // (4-1)/4*100 = 75 on idle; (4-3)/4*100 = 25 on busy.
  assert.deepEqual(setup().scores(pod), { idle: 75, busy: 25 });
  assert.equal(setup('MostAllocated').schedule(pod).node, 'busy');
});
