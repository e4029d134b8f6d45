// Pod rows as kubectl shows them against a real cluster: Ready, the aggregate
// Status (init progress, back-offs, Completed / Error, Terminating,
// Unknown), Restarts with "(2m ago)", Age and the wide columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContainerStatus, Pod } from 'kubernetes-types/core/v1.js';
import { podPrinter } from './pods.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');

const running = (name: string, restartCount = 0, extra: Partial<ContainerStatus> = {}): ContainerStatus => ({
  name,
  image: `${name}:1`,
  imageID: '',
  ready: true,
  started: true,
  restartCount,
  state: { running: { startedAt: ago(300) } },
  ...extra,
});

function pod(overrides: { spec?: Partial<Pod['spec']>; status?: Pod['status']; metadata?: Pod['metadata'] }): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-0', namespace: 'default', creationTimestamp: ago(300), ...overrides.metadata },
    spec: { containers: [{ name: 'web', image: 'nginx:1.27' }], nodeName: 'node-1', ...overrides.spec },
    status: overrides.status,
  };
}

const readyConditions = [
  { type: 'Initialized', status: 'True' },
  { type: 'Ready', status: 'True' },
  { type: 'ContainersReady', status: 'True' },
  { type: 'PodScheduled', status: 'True' },
];

interface Case {
  name: string;
  pod: Pod;
  /** Name, Ready, Status, Restarts, Age */
  cells: (string | number)[];
  wide?: (string | number)[];
}

const cases: Case[] = [
  {
    name: 'running and ready',
    pod: pod({
      status: {
        phase: 'Running',
        conditions: readyConditions,
        podIP: '10.244.1.5',
        podIPs: [{ ip: '10.244.1.5' }],
        containerStatuses: [running('web')],
      },
    }),
    cells: ['web-0', '1/1', 'Running', '0', '5m'],
    wide: ['10.244.1.5', 'node-1', '<none>', '<none>'],
  },
  {
    name: 'crash looping, restarted 4 times, last exit 2m ago',
    pod: pod({
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [
          {
            name: 'web',
            image: 'nginx:1.27',
            imageID: '',
            ready: false,
            started: false,
            restartCount: 4,
            state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 1m20s restarting failed container' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: ago(125), finishedAt: ago(120) } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'CrashLoopBackOff', '4 (2m ago)', '5m'],
  },
  {
    name: 'pending, not scheduled yet',
    pod: pod({
      spec: { nodeName: undefined },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] },
    }),
    cells: ['web-0', '0/1', 'Pending', '0', '5m'],
    wide: ['<none>', '<none>', '<none>', '<none>'],
  },
  {
    name: 'container being created',
    pod: pod({
      status: {
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'web',
            image: 'nginx:1.27',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ContainerCreating' } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'ContainerCreating', '0', '5m'],
  },
  {
    name: 'image pull back-off',
    pod: pod({
      status: {
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'web',
            image: 'nginx:nope',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ImagePullBackOff' } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'ImagePullBackOff', '0', '5m'],
  },
  {
    name: 'first of two init containers running',
    pod: pod({
      spec: { initContainers: [{ name: 'init-a' }, { name: 'init-b' }] },
      status: {
        phase: 'Pending',
        conditions: [{ type: 'Initialized', status: 'False' }],
        initContainerStatuses: [
          { ...running('init-a'), ready: false },
          { name: 'init-b', image: 'b', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } },
        ],
        containerStatuses: [
          {
            name: 'web',
            image: 'nginx:1.27',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'PodInitializing' } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'Init:0/2', '0', '5m'],
  },
  {
    name: 'second init container running',
    pod: pod({
      spec: { initContainers: [{ name: 'init-a' }, { name: 'init-b' }] },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          {
            name: 'init-a',
            image: 'a',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed' } },
          },
          { ...running('init-b'), ready: false },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'Init:1/2', '0', '5m'],
  },
  {
    name: 'init container crash looping',
    pod: pod({
      spec: { initContainers: [{ name: 'init-a' }] },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          {
            name: 'init-a',
            image: 'a',
            imageID: '',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(40) } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'Init:CrashLoopBackOff', '3 (40s ago)', '5m'],
  },
  {
    name: 'init container failed',
    pod: pod({
      spec: { initContainers: [{ name: 'init-a' }] },
      status: {
        phase: 'Failed',
        initContainerStatuses: [
          {
            name: 'init-a',
            image: 'a',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 1, reason: 'Error' } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'Init:Error', '0', '5m'],
  },
  {
    name: 'init container exited without a reason',
    pod: pod({
      spec: { initContainers: [{ name: 'init-a' }] },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'init-a', image: 'a', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 2 } } },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'Init:ExitCode:2', '0', '5m'],
  },
  {
    name: 'job pod completed',
    pod: pod({
      status: {
        phase: 'Succeeded',
        containerStatuses: [
          {
            name: 'web',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed' } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'Completed', '0', '5m'],
  },
  {
    name: 'job pod failed',
    pod: pod({
      status: {
        phase: 'Failed',
        containerStatuses: [
          {
            name: 'web',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 1, reason: 'Error' } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'Error', '0', '5m'],
  },
  {
    name: 'one container Completed, the last one Error (kube 1.35 shows Error whatever the order)',
    pod: pod({
      spec: { containers: [{ name: 'a' }, { name: 'z' }] },
      status: {
        phase: 'Failed',
        containerStatuses: [
          {
            name: 'a',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed' } },
          },
          {
            name: 'z',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 1, reason: 'Error' } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/2', 'Error', '0', '5m'],
  },
  {
    name: 'killed by a signal without a reason',
    pod: pod({
      status: {
        phase: 'Failed',
        containerStatuses: [
          {
            name: 'web',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 137, signal: 9 } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'Signal:9', '0', '5m'],
  },
  {
    name: 'one container completed, the other still running and ready',
    pod: pod({
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        conditions: readyConditions,
        containerStatuses: [
          {
            name: 'a',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed' } },
          },
          running('b'),
        ],
      },
    }),
    cells: ['web-0', '1/2', 'Running', '0', '5m'],
  },
  {
    name: 'one container completed, the other running but the pod not Ready',
    pod: pod({
      spec: { containers: [{ name: 'a' }, { name: 'b' }] },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [
          {
            name: 'a',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed' } },
          },
          running('b'),
        ],
      },
    }),
    cells: ['web-0', '1/2', 'NotReady', '0', '5m'],
  },
  {
    name: 'being deleted',
    pod: pod({
      metadata: { name: 'web-0', creationTimestamp: ago(300), deletionTimestamp: ago(10), deletionGracePeriodSeconds: 30 },
      status: { phase: 'Running', conditions: readyConditions, containerStatuses: [running('web')] },
    }),
    cells: ['web-0', '1/1', 'Terminating', '0', '5m'],
  },
  {
    name: 'deleted pod that already succeeded keeps Completed',
    pod: pod({
      metadata: { name: 'web-0', creationTimestamp: ago(300), deletionTimestamp: ago(10) },
      status: {
        phase: 'Succeeded',
        containerStatuses: [
          {
            name: 'web',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 0, reason: 'Completed' } },
          },
        ],
      },
    }),
    cells: ['web-0', '0/1', 'Completed', '0', '5m'],
  },
  {
    name: 'node lost while being deleted',
    pod: pod({
      metadata: { name: 'web-0', creationTimestamp: ago(300), deletionTimestamp: ago(10) },
      status: { phase: 'Running', reason: 'NodeLost', containerStatuses: [running('web')] },
    }),
    cells: ['web-0', '1/1', 'Unknown', '0', '5m'],
  },
  {
    name: 'evicted',
    pod: pod({ status: { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' } }),
    cells: ['web-0', '0/1', 'Evicted', '0', '5m'],
  },
  {
    name: 'scheduling gated',
    pod: pod({
      spec: { nodeName: undefined, schedulingGates: [{ name: 'example.com/gate' }] },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
    }),
    cells: ['web-0', '0/1', 'SchedulingGated', '0', '5m'],
  },
  {
    name: 'native sidecar counted in Ready and Restarts',
    pod: pod({
      spec: { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] },
      status: {
        phase: 'Running',
        conditions: readyConditions,
        initContainerStatuses: [running('proxy', 1, { lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(600) } } })],
        containerStatuses: [running('web', 2, { lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: ago(90) } } })],
      },
    }),
    cells: ['web-0', '2/2', 'Running', '3 (90s ago)', '5m'],
  },
  {
    name: 'restarts without a recorded finish time have no "ago"',
    pod: pod({ status: { phase: 'Running', conditions: readyConditions, containerStatuses: [running('web', 2)] } }),
    cells: ['web-0', '1/1', 'Running', '2', '5m'],
  },
  {
    name: 'readiness gates and nominated node in the wide columns',
    pod: pod({
      spec: { readinessGates: [{ conditionType: 'example.com/feature-1' }, { conditionType: 'example.com/feature-2' }] },
      status: {
        phase: 'Running',
        nominatedNodeName: 'node-2',
        podIP: '10.244.2.9',
        conditions: [
          ...readyConditions,
          { type: 'example.com/feature-1', status: 'True' },
          { type: 'example.com/feature-2', status: 'False' },
        ],
        containerStatuses: [running('web')],
      },
    }),
    cells: ['web-0', '1/1', 'Running', '0', '5m'],
    wide: ['10.244.2.9', 'node-1', 'node-2', '1/2'],
  },
];

for (const c of cases) {
  test(`pod: ${c.name}`, () => {
    const row = podPrinter.row(c.pod, { now: NOW });
    assert.equal(row.cells.length, podPrinter.columns.length);
    assert.deepEqual(row.cells.slice(0, 5), c.cells);
    if (c.wide) assert.deepEqual(row.cells.slice(5), c.wide);
  });
}

test('pod columns: names, types and wide priorities as kube declares them', () => {
  assert.deepEqual(
    podPrinter.columns.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Status', 'string', '', 0],
      ['Restarts', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['IP', 'string', '', 1],
      ['Node', 'string', '', 1],
      ['Nominated Node', 'string', '', 1],
      ['Readiness Gates', 'string', '', 1],
    ],
  );
});

test('finished pods carry the Completed row condition', () => {
  const succeeded = podPrinter.row(pod({ status: { phase: 'Succeeded' } }), { now: NOW });
  assert.deepEqual(succeeded.conditions, [
    { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
  ]);
  const failed = podPrinter.row(pod({ status: { phase: 'Failed' } }), { now: NOW });
  assert.deepEqual(failed.conditions, [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]);
  assert.equal(podPrinter.row(pod({ status: { phase: 'Running' } }), { now: NOW }).conditions, undefined);
});
