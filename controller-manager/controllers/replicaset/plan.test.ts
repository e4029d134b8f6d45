import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { computeStatus, planReplicas, podsToDelete, slowStartBatches } from './plan.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
const pod = (
  name: string,
  o: { node?: string; phase?: string; ready?: number; restarts?: number; created?: number; cost?: number } = {},
): Pod => ({
  metadata: {
    name,
    creationTimestamp: ago(o.created ?? 600),
    annotations: o.cost !== undefined ? { 'controller.kubernetes.io/pod-deletion-cost': String(o.cost) } : undefined,
    labels: { app: 'a' },
  },
  spec: { nodeName: o.node, containers: [] },
  status: {
    phase: o.phase ?? 'Running',
    conditions:
      o.ready !== undefined ? [{ type: 'Ready', status: 'True', lastTransitionTime: ago(o.ready) }] : [{ type: 'Ready', status: 'False' }],
    containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: o.ready !== undefined, restartCount: o.restarts ?? 0 }],
  },
});

test('slow start: batches of 1, 2, 4, ... up to the count', () => {
  assert.deepEqual(slowStartBatches(1), [1]);
  assert.deepEqual(slowStartBatches(10), [1, 2, 4, 3]);
  assert.deepEqual(slowStartBatches(0), []);
  assert.deepEqual(slowStartBatches(16), [1, 2, 4, 8, 1]);
});

test('planReplicas: create the shortfall, delete the excess, at most 500 per sync', () => {
  const rs = (n: number) => ({ spec: { replicas: n } });
  const pods = Array.from({ length: 3 }, (_, i) => pod(`p${i}`, { node: 'n', ready: 100 }));
  assert.deepEqual(planReplicas(rs(5), pods, NOW), { create: 2, delete: [] });
  assert.equal(planReplicas(rs(1), pods, NOW).delete.length, 2);
  assert.deepEqual(planReplicas(rs(3), pods, NOW), { create: 0, delete: [] });
  assert.equal(planReplicas(rs(2000), [], NOW).create, 500);
});

test('pods to delete first, in kube order', () => {
  const cases: [string, Pod[], string][] = [
    ['unscheduled before scheduled', [pod('sched', { node: 'n1', ready: 100 }), pod('unsched', { phase: 'Pending' })], 'unsched'],
    ['pending before running', [pod('run', { node: 'n1', ready: 100 }), pod('pend', { node: 'n1', phase: 'Pending' })], 'pend'],
    ['not ready before ready', [pod('ready', { node: 'n1', ready: 100 }), pod('notready', { node: 'n2' })], 'notready'],
    [
      'lower deletion cost first',
      [pod('costly', { node: 'n1', ready: 100, cost: 10 }), pod('cheap', { node: 'n2', ready: 100, cost: -5 })],
      'cheap',
    ],
    [
      'doubled-up node first',
      [pod('alone', { node: 'n1', ready: 100 }), pod('pair1', { node: 'n2', ready: 100 }), pod('pair2', { node: 'n2', ready: 100 })],
      'pair1',
    ],
    ['ready for less time first', [pod('old', { node: 'n1', ready: 5000 }), pod('fresh', { node: 'n2', ready: 10 })], 'fresh'],
    [
      'more restarts first',
      [pod('calm', { node: 'n1', ready: 100, restarts: 0 }), pod('flaky', { node: 'n2', ready: 100, restarts: 7 })],
      'flaky',
    ],
    [
      'newer first',
      [pod('older', { node: 'n1', ready: 100, created: 100000 }), pod('newer', { node: 'n2', ready: 100, created: 60 })],
      'newer',
    ],
  ];
  for (const [why, pods, first] of cases) assert.equal(podsToDelete(pods, 1, NOW)[0].metadata!.name, first, why);
});

test('status counts ready and available Pods, with minReadySeconds', () => {
  const rs = { metadata: { generation: 3 }, spec: { replicas: 3, minReadySeconds: 30, template: { metadata: { labels: { app: 'a' } } } } };
  const pods = [pod('a', { node: 'n', ready: 100 }), pod('b', { node: 'n', ready: 10 }), pod('c', { node: 'n' })];
  const { status, requeueAfterMs } = computeStatus(rs, pods, NOW);
  assert.deepEqual(status, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 2, availableReplicas: 1, observedGeneration: 3 });
  assert.equal(requeueAfterMs, 21_000);
  const failed = computeStatus(rs, [], NOW, 'pods "x" is forbidden');
  assert.equal(failed.status.conditions![0].type, 'ReplicaFailure');
  assert.equal(failed.status.conditions![0].reason, 'FailedCreate');
});
