// Node rows as kubectl prints them: Status from Ready (+ SchedulingDisabled),
// Roles from labels, Version, and the wide address / OS columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node } from 'kubernetes-types/core/v1.js';
import { nodePrinter } from './nodes.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
const DAY = 86400;

function node(name: string, opts: { labels?: Record<string, string>; ready?: string; unschedulable?: boolean; info?: boolean } = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, creationTimestamp: ago(10 * DAY), labels: { 'kubernetes.io/hostname': name, ...opts.labels } },
    spec: opts.unschedulable ? { unschedulable: true } : {},
    status: {
      conditions:
        opts.ready === undefined
          ? []
          : [
              { type: 'MemoryPressure', status: 'False' },
              { type: 'Ready', status: opts.ready, reason: 'KubeletReady' },
            ],
      addresses: [
        { type: 'InternalIP', address: '172.18.0.2' },
        { type: 'Hostname', address: name },
      ],
      nodeInfo:
        opts.info === false
          ? undefined
          : {
              architecture: 'amd64',
              bootID: '',
              containerRuntimeVersion: 'containerd://2.1.1',
              kernelVersion: '6.8.0-57-generic',
              kubeProxyVersion: '',
              kubeletVersion: 'v1.35.0',
              machineID: '',
              operatingSystem: 'linux',
              osImage: 'Debian GNU/Linux 12 (bookworm)',
              systemUUID: '',
            },
    },
  };
}

const cases: { name: string; node: Node; cells: (string | number)[] }[] = [
  {
    name: 'ready control-plane node',
    node: node('kind-control-plane', { ready: 'True', labels: { 'node-role.kubernetes.io/control-plane': '' } }),
    cells: [
      'kind-control-plane',
      'Ready',
      'control-plane',
      '10d',
      'v1.35.0',
      '172.18.0.2',
      '<none>',
      'Debian GNU/Linux 12 (bookworm)',
      '6.8.0-57-generic',
      'containerd://2.1.1',
    ],
  },
  {
    name: 'cordoned worker without roles',
    node: node('kind-worker', { ready: 'True', unschedulable: true }),
    cells: [
      'kind-worker',
      'Ready,SchedulingDisabled',
      '<none>',
      '10d',
      'v1.35.0',
      '172.18.0.2',
      '<none>',
      'Debian GNU/Linux 12 (bookworm)',
      '6.8.0-57-generic',
      'containerd://2.1.1',
    ],
  },
  {
    name: 'kubelet stopped posting status',
    node: node('kind-worker2', { ready: 'Unknown' }),
    cells: [
      'kind-worker2',
      'NotReady',
      '<none>',
      '10d',
      'v1.35.0',
      '172.18.0.2',
      '<none>',
      'Debian GNU/Linux 12 (bookworm)',
      '6.8.0-57-generic',
      'containerd://2.1.1',
    ],
  },
  {
    name: 'new node without conditions or node info, cordoned',
    node: node('fresh', { unschedulable: true, info: false }),
    cells: ['fresh', 'Unknown,SchedulingDisabled', '<none>', '10d', '', '172.18.0.2', '<none>', '<unknown>', '<unknown>', '<unknown>'],
  },
  {
    name: 'several roles, sorted and de-duplicated, kubernetes.io/role included',
    node: node('multi', {
      ready: 'False',
      labels: {
        'node-role.kubernetes.io/master': '',
        'node-role.kubernetes.io/control-plane': '',
        'kubernetes.io/role': 'master',
        'node-role.kubernetes.io/': 'x',
      },
    }),
    cells: [
      'multi',
      'NotReady',
      'control-plane,master',
      '10d',
      'v1.35.0',
      '172.18.0.2',
      '<none>',
      'Debian GNU/Linux 12 (bookworm)',
      '6.8.0-57-generic',
      'containerd://2.1.1',
    ],
  },
];

for (const c of cases) {
  test(`node: ${c.name}`, () => {
    assert.deepEqual(nodePrinter.row(c.node, { now: NOW }).cells, c.cells);
  });
}

test('node external IP comes from the first ExternalIP address', () => {
  const n = node('cloud', { ready: 'True' });
  n.status!.addresses!.push({ type: 'ExternalIP', address: '203.0.113.7' }, { type: 'ExternalIP', address: '203.0.113.8' });
  assert.equal(nodePrinter.row(n, { now: NOW }).cells[6], '203.0.113.7');
});

test('node columns', () => {
  assert.deepEqual(
    nodePrinter.columns.map((c) => `${c.name}:${c.priority}`),
    [
      'Name:0',
      'Status:0',
      'Roles:0',
      'Age:0',
      'Version:0',
      'Internal-IP:1',
      'External-IP:1',
      'OS-Image:1',
      'Kernel-Version:1',
      'Container-Runtime:1',
    ],
  );
});
