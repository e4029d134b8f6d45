// needsReconcile as a table: what another writer may change without kubelet
// writing again (conditions it does not own, a condition's
// lastTransitionTime, nominatedNodeName, the order of container statuses,
// null against absent) and what makes it write its own status again (a
// kubelet condition's status, reason or message, a container status).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import { needsReconcile } from './status-reconcile.ts';

const cond = (type: string, status: string, extra: Partial<PodCondition> = {}): PodCondition => ({
  type,
  status,
  lastProbeTime: null as unknown as string,
  lastTransitionTime: '2026-01-01T00:00:05Z',
  ...extra,
});

/** What kubelet wrote: a running, ready Pod with two containers. */
const sent: PodStatus = {
  phase: 'Running',
  conditions: [
    cond('PodReadyToStartContainers', 'True'),
    cond('Initialized', 'True'),
    cond('Ready', 'True'),
    cond('ContainersReady', 'True'),
    cond('PodScheduled', 'True'),
  ],
  hostIP: '172.18.0.2',
  podIP: '10.244.0.5',
  containerStatuses: [
    {
      name: 'a',
      image: 'nginx',
      imageID: 'docker.io/library/nginx@sha256:1',
      containerID: 'containerd://1',
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: '2026-01-01T00:00:04Z' } },
      lastState: {},
    },
    {
      name: 'b',
      image: 'busybox',
      imageID: 'docker.io/library/busybox@sha256:2',
      containerID: 'containerd://2',
      ready: true,
      started: true,
      restartCount: 1,
      state: { running: { startedAt: '2026-01-01T00:00:09Z' } },
      lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: '2026-01-01T00:00:04Z', finishedAt: '2026-01-01T00:00:08Z' } },
    },
  ],
};

/** `sent` as another writer left it. */
function changed(fn: (s: PodStatus) => void): PodStatus {
  const s = structuredClone(sent);
  fn(s);
  return s;
}
const setCond = (s: PodStatus, type: string, c: Partial<PodCondition>) =>
  (s.conditions = s.conditions!.map((x) => (x.type === type ? { ...x, ...c } : x)));

const cases: { name: string; api: PodStatus | undefined; want: boolean }[] = [
  { name: 'the same status', api: structuredClone(sent), want: false },
  {
    name: 'Ready=False by the node lifecycle controller (MarkPodsNotReady)',
    api: changed((s) => setCond(s, 'Ready', { status: 'False', lastTransitionTime: '2026-01-01T00:01:00Z' })),
    want: true,
  },
  { name: 'ContainersReady=False', api: changed((s) => setCond(s, 'ContainersReady', { status: 'False' })), want: true },
  { name: 'Initialized with another reason', api: changed((s) => setCond(s, 'Initialized', { reason: 'Other' })), want: true },
  { name: 'Ready with another message', api: changed((s) => setCond(s, 'Ready', { message: 'hello' })), want: true },
  {
    name: 'PodReadyToStartContainers gone',
    api: changed((s) => (s.conditions = s.conditions!.filter((c) => c.type !== 'PodReadyToStartContainers'))),
    want: true,
  },
  {
    name: 'only a lastTransitionTime changed',
    api: changed((s) => setCond(s, 'Ready', { lastTransitionTime: '2026-01-01T00:09:00Z' })),
    want: false,
  },
  {
    name: 'PodScheduled changed (the scheduler owns it)',
    api: changed((s) => setCond(s, 'PodScheduled', { status: 'False' })),
    want: false,
  },
  {
    name: 'a DisruptionTarget condition added by the controller-manager',
    api: changed((s) => s.conditions!.push(cond('DisruptionTarget', 'True', { reason: 'DeletionByTaintManager' }))),
    want: false,
  },
  { name: 'a readiness gate condition', api: changed((s) => s.conditions!.push(cond('example.com/gate', 'False'))), want: false },
  { name: 'nominatedNodeName set by the scheduler', api: changed((s) => (s.nominatedNodeName = 'node-1')), want: false },
  { name: 'container statuses in another order', api: changed((s) => s.containerStatuses!.reverse()), want: false },
  {
    name: 'null and empty members dropped on the way through the apiserver',
    api: changed((s) => {
      delete (s.containerStatuses![0] as { lastState?: unknown }).lastState;
      s.conditions!.forEach((c) => delete c.lastProbeTime);
    }),
    want: false,
  },
  { name: 'a container not ready', api: changed((s) => (s.containerStatuses![1].ready = false)), want: true },
  { name: 'a restart count', api: changed((s) => (s.containerStatuses![1].restartCount = 0)), want: true },
  {
    name: 'a container state',
    api: changed((s) => (s.containerStatuses![0].state = { waiting: { reason: 'ContainerCreating' } })),
    want: true,
  },
  { name: 'a container status missing', api: changed((s) => s.containerStatuses!.pop()), want: true },
  {
    name: 'init container statuses the kubelet did not write',
    api: changed((s) => (s.initContainerStatuses = [{ ...structuredClone(sent.containerStatuses![0]), name: 'init' }])),
    want: true,
  },
  { name: 'no status in the apiserver at all', api: undefined, want: true },
];

for (const c of cases) {
  test(`needsReconcile: ${c.name} -> ${c.want}`, () => {
    assert.equal(needsReconcile(c.api, sent), c.want);
  });
}

test('needsReconcile: nothing written yet -> false', () => {
  assert.equal(needsReconcile(structuredClone(sent), undefined), false);
});
