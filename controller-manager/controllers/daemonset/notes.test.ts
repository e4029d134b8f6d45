// The step-through notes of a DaemonSet sync: nodes that should run a daemon Pod vs have one, with reasons.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { nodesNotes, planNotes } from './notes.ts';

const ds: DaemonSet = {
  metadata: { name: 'agent', namespace: 'default', uid: 'ds-uid' },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    template: {
      metadata: { labels: { app: 'agent' } },
      spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'c', image: 'busybox' }] },
    },
  },
};

const node = (name: string, labels: Record<string, string>, taints?: Node['spec']): Node => ({
  metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
  spec: taints ?? {},
});

test('nodes notes give want vs have and why each other node is skipped', () => {
  const nodes = [
    node('n1', { disk: 'ssd' }),
    node('n2', { disk: 'hdd' }),
    node('n3', { disk: 'ssd' }, { taints: [{ key: 'gpu', value: 'yes', effect: 'NoSchedule' }] }),
  ];
  const pod: Pod = { metadata: { name: 'agent-a' } };
  assert.deepEqual(nodesNotes(ds, nodes, new Map([['n3', [pod]]])), {
    want: '1 of 3 node(s) should run a daemon Pod: n1',
    have: '1 node(s) have one: n3',
    skipped: {
      n2: "the node does not match the template's nodeSelector or node affinity",
      n3: 'taint gpu=yes:NoSchedule not tolerated: no new Pod, a running one may stay',
    },
  });
  assert.deepEqual(planNotes('manage', { createOn: ['n1'], delete: [], events: [] }), {
    step: 'manage',
    decision: 'create a Pod on n1',
  });
});
