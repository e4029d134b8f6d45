// Deployment, ReplicaSet, DaemonSet, StatefulSet and ReplicationController rows as kubectl prints them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { ReplicationController } from 'kubernetes-types/core/v1.js';
import { daemonSetPrinter, deploymentPrinter, replicaSetPrinter, replicationControllerPrinter, statefulSetPrinter } from './workloads.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
const ctx = { now: NOW };
const template = (labels: Record<string, string>, containers = [{ name: 'nginx', image: 'nginx:1.27' }]) => ({
  metadata: { labels },
  spec: { containers },
});

test('deployment: Ready "2/3" while rolling out, wide columns', () => {
  const d: Deployment = {
    metadata: { name: 'nginx', namespace: 'default', creationTimestamp: ago(200) },
    spec: { replicas: 3, selector: { matchLabels: { app: 'nginx' } }, template: template({ app: 'nginx' }) },
    status: { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 },
  };
  assert.deepEqual(deploymentPrinter.row(d, ctx).cells, ['nginx', '2/3', 3, 2, '3m20s', 'nginx', 'nginx:1.27', 'app=nginx']);
});

test('deployment: fresh, no status yet; several containers; expression selector', () => {
  const d: Deployment = {
    metadata: { name: 'api', creationTimestamp: ago(3) },
    spec: {
      selector: {
        matchLabels: { app: 'api' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['web', 'backend'] },
          { key: 'canary', operator: 'DoesNotExist' },
        ],
      },
      template: template({ app: 'api', tier: 'web' }, [
        { name: 'api', image: 'example/api:2' },
        { name: 'proxy', image: 'envoyproxy/envoy:v1.30' },
      ]),
    },
  };
  assert.deepEqual(deploymentPrinter.row(d, ctx).cells, [
    'api',
    '0/1',
    0,
    0,
    '3s',
    'api,proxy',
    'example/api:2,envoyproxy/envoy:v1.30',
    'app=api,!canary,tier in (backend,web)',
  ]);
});

test('deployment: scaled to zero, empty and invalid selectors', () => {
  const base = {
    metadata: { name: 'z', creationTimestamp: ago(86400 * 400) },
    spec: { replicas: 0, selector: {}, template: template({}) },
  } as Deployment;
  assert.deepEqual(deploymentPrinter.row(base, ctx).cells, ['z', '0/0', 0, 0, '400d', 'nginx', 'nginx:1.27', '']);
  const bad = { ...base, spec: { ...base.spec!, selector: { matchExpressions: [{ key: 'a', operator: 'Sometimes' }] } } } as Deployment;
  assert.equal(deploymentPrinter.row(bad, ctx).cells[7], '<invalid>');
});

test('deployment columns', () => {
  assert.deepEqual(
    deploymentPrinter.columns.map((c) => `${c.name}:${c.type}:${c.priority}`),
    [
      'Name:string:0',
      'Ready:string:0',
      'Up-to-date:string:0',
      'Available:string:0',
      'Age:string:0',
      'Containers:string:1',
      'Images:string:1',
      'Selector:string:1',
    ],
  );
});

test('replicaset: Desired, Current, Ready', () => {
  const rs: ReplicaSet = {
    metadata: { name: 'nginx-7c5ddbdf54', creationTimestamp: ago(200) },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'nginx', 'pod-template-hash': '7c5ddbdf54' } },
      template: template({ app: 'nginx' }),
    },
    status: { replicas: 3, readyReplicas: 2, availableReplicas: 2 },
  };
  assert.deepEqual(replicaSetPrinter.row(rs, ctx).cells, [
    'nginx-7c5ddbdf54',
    3,
    3,
    2,
    '3m20s',
    'nginx',
    'nginx:1.27',
    'app=nginx,pod-template-hash=7c5ddbdf54',
  ]);
  const old: ReplicaSet = {
    metadata: { name: 'nginx-old', creationTimestamp: ago(7200) },
    spec: { replicas: 0, selector: {} },
    status: { replicas: 0 },
  };
  assert.deepEqual(replicaSetPrinter.row(old, ctx).cells, ['nginx-old', 0, 0, 0, '120m', '', '', '<none>']);
  assert.deepEqual(
    replicaSetPrinter.columns.map((c) => `${c.name}:${c.type}:${c.priority}`),
    [
      'Name:string:0',
      'Desired:integer:0',
      'Current:integer:0',
      'Ready:integer:0',
      'Age:string:0',
      'Containers:string:1',
      'Images:string:1',
      'Selector:string:1',
    ],
  );
});

test('daemonset: counts, node selector and selector', () => {
  const ds: DaemonSet = {
    metadata: { name: 'kube-proxy', namespace: 'kube-system', creationTimestamp: ago(10 * 86400) },
    spec: {
      selector: { matchLabels: { 'k8s-app': 'kube-proxy' } },
      template: {
        metadata: { labels: { 'k8s-app': 'kube-proxy' } },
        spec: {
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          containers: [{ name: 'kube-proxy', image: 'registry.k8s.io/kube-proxy:v1.35.0' }],
        },
      },
    },
    status: {
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 2,
      updatedNumberScheduled: 3,
      numberAvailable: 2,
      numberMisscheduled: 0,
    },
  };
  assert.deepEqual(daemonSetPrinter.row(ds, ctx).cells, [
    'kube-proxy',
    3,
    3,
    2,
    3,
    2,
    'kubernetes.io/os=linux',
    '10d',
    'kube-proxy',
    'registry.k8s.io/kube-proxy:v1.35.0',
    'k8s-app=kube-proxy',
  ]);
  assert.deepEqual(
    daemonSetPrinter.columns.map((c) => `${c.name}:${c.priority}`),
    [
      'Name:0',
      'Desired:0',
      'Current:0',
      'Ready:0',
      'Up-to-date:0',
      'Available:0',
      'Node Selector:0',
      'Age:0',
      'Containers:1',
      'Images:1',
      'Selector:1',
    ],
  );
  const bare: DaemonSet = {
    metadata: { name: 'new', creationTimestamp: ago(1) },
    spec: { selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }) },
  };
  assert.deepEqual(daemonSetPrinter.row(bare, ctx).cells.slice(0, 8), ['new', 0, 0, 0, 0, 0, '<none>', '1s']);
});

test('statefulset: Ready "1/3" and wide containers (no selector column)', () => {
  const ss: StatefulSet = {
    metadata: { name: 'web', creationTimestamp: ago(600) },
    spec: { replicas: 3, serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) },
    status: { replicas: 2, readyReplicas: 1, availableReplicas: 1 },
  };
  assert.deepEqual(statefulSetPrinter.row(ss, ctx).cells, ['web', '1/3', '10m', 'nginx', 'nginx:1.27']);
  assert.deepEqual(
    statefulSetPrinter.columns.map((c) => `${c.name}:${c.priority}`),
    ['Name:0', 'Ready:0', 'Age:0', 'Containers:1', 'Images:1'],
  );
});

test('replication controller: Desired, Current, Ready, Age; wide Containers, Images, its map Selector', () => {
  const rc: ReplicationController = {
    metadata: { name: 'web', creationTimestamp: ago(90) },
    spec: { replicas: 3, selector: { tier: 'fe', app: 'web' }, template: template({ app: 'web', tier: 'fe' }) },
    status: { replicas: 2, readyReplicas: 1 },
  };
  assert.deepEqual(replicationControllerPrinter.row(rc, ctx).cells, ['web', 3, 2, 1, '90s', 'nginx', 'nginx:1.27', 'app=web,tier=fe']);
  assert.deepEqual(replicationControllerPrinter.row({ metadata: { name: 'bare', creationTimestamp: ago(5) } }, ctx).cells, [
    'bare',
    1,
    0,
    0,
    '5s',
    '',
    '',
    '<none>',
  ]);
  assert.deepEqual(
    replicationControllerPrinter.columns.map((c) => `${c.name}:${c.priority ?? 0}`),
    ['Name:0', 'Desired:0', 'Current:0', 'Ready:0', 'Age:0', 'Containers:1', 'Images:1', 'Selector:1'],
  );
});
