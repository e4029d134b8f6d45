// The control-plane node's pure parts: its identity, --static-pods, the
// mirror Pods kubeadm's manifests give, and the probe state machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container } from 'kubernetes-types/core/v1.js';
import { controlPlaneIdentity, parseComponentEndpoints } from './control-plane.ts';
import { containerSnapshot, observeProbe, startedContainer, type ContainerTrack, type ProbeKind } from './container-track.ts';
import { mirrorPod, mirrorUpToDate } from './manifests.ts';
import { markPatch } from './mark-control-plane.ts';
import { buildNode, DEFAULT_PROFILE } from '../node/node-object.ts';

const ENDPOINTS =
  'kube-scheduler=http://127.0.0.1:40002,kube-apiserver=https://127.0.0.1:6443,kube-controller-manager=http://127.0.0.1:40001';
const node = { name: 'control-plane', uid: 'u-1', hostIP: '172.18.0.5' };

test('the control-plane Node registers with the NoSchedule taint; kubeadm then labels it with its role', () => {
  const id = controlPlaneIdentity('control-plane', 3);
  const n = buildNode(
    id,
    { ...DEFAULT_PROFILE, taints: [{ key: 'a', value: 'b', effect: 'NoExecute' }] },
    { host: '127.0.0.1', port: 1 },
    0,
  );
  assert.equal(n.metadata?.labels?.['node-role.kubernetes.io/control-plane'], undefined);
  assert.equal(n.metadata?.labels?.['kubernetes.io/hostname'], 'control-plane');
  assert.deepEqual(n.spec?.taints, [
    { key: 'a', value: 'b', effect: 'NoExecute' },
    { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
  ]);
  assert.equal(n.status?.addresses?.[0].address, '172.18.0.5');
  assert.deepEqual(markPatch(n), {
    metadata: { labels: { 'node-role.kubernetes.io/control-plane': '', 'node.kubernetes.io/exclude-from-external-load-balancers': '' } },
  });
  const labelled = { ...n, metadata: { ...n.metadata, labels: { ...n.metadata?.labels, ...markPatch(n)!.metadata!.labels } } };
  assert.equal(markPatch(labelled), undefined);
  // A taint someone removed comes back with the others kept.
  assert.deepEqual(markPatch({ ...labelled, spec: { taints: [{ key: 'a', value: 'b', effect: 'NoExecute' }] } }), {
    spec: {
      taints: [
        { key: 'a', value: 'b', effect: 'NoExecute' },
        { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' },
      ],
    },
  });
});

test('--static-pods: kubeadm order, one per component, bad input refused', () => {
  assert.deepEqual(
    parseComponentEndpoints(ENDPOINTS).map((e) => `${e.component} ${e.scheme} ${e.host}:${e.port}`),
    ['kube-apiserver HTTPS 127.0.0.1:6443', 'kube-controller-manager HTTP 127.0.0.1:40001', 'kube-scheduler HTTP 127.0.0.1:40002'],
  );
  assert.deepEqual(parseComponentEndpoints(''), []);
  assert.throws(() => parseComponentEndpoints('etcd=http://127.0.0.1:2379'), /COMPONENT=URL with COMPONENT one of kube-apiserver/);
  assert.throws(() => parseComponentEndpoints('kube-scheduler=nope'), /"nope" is not a URL/);
});

test('mirror Pods as kubelet makes them from kubeadm manifests', () => {
  const [api, cm, sched] = parseComponentEndpoints(ENDPOINTS).map((e) => mirrorPod(e, node, 'v1.35.0', 0));
  assert.equal(sched.metadata?.name, 'kube-scheduler-control-plane');
  assert.equal(sched.metadata?.namespace, 'kube-system');
  assert.deepEqual(sched.metadata?.labels, { component: 'kube-scheduler', tier: 'control-plane' });
  const a = sched.metadata.annotations!;
  assert.equal(a['kubernetes.io/config.source'], 'file');
  assert.equal(a['kubernetes.io/config.mirror'], a['kubernetes.io/config.hash']);
  assert.match(a['kubernetes.io/config.mirror'], /^[0-9a-f]{32}$/);
  assert.deepEqual(sched.metadata?.ownerReferences, [
    { apiVersion: 'v1', kind: 'Node', name: 'control-plane', uid: 'u-1', controller: true },
  ]);
  assert.equal(sched.spec?.nodeName, 'control-plane');
  assert.equal(sched.spec?.priorityClassName, 'system-node-critical');
  assert.equal(sched.spec?.hostNetwork, true);
  const c = sched.spec.containers[0];
  assert.equal(c.image, 'registry.k8s.io/kube-scheduler:v1.35.0');
  assert.deepEqual(c.livenessProbe?.httpGet, { host: '127.0.0.1', path: '/livez', port: 40002, scheme: 'HTTP' });
  assert.deepEqual(c.readinessProbe?.httpGet?.path, '/readyz');
  assert.equal(c.startupProbe?.failureThreshold, 24);
  // kube-controller-manager has no readiness probe in kubeadm's manifest.
  assert.equal(cm.spec!.containers[0].readinessProbe, undefined);
  assert.equal(cm.spec!.containers[0].livenessProbe?.httpGet?.path, '/healthz');
  assert.equal(api.metadata?.annotations?.['kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint'], '172.18.0.5:6443');
  // Another port is another manifest: the old mirror Pod is stale; the time it was seen is not part of it.
  const moved = mirrorPod(parseComponentEndpoints('kube-scheduler=http://127.0.0.1:40003')[0], node, 'v1.35.0', 0);
  assert.equal(mirrorUpToDate(sched, moved), false);
  assert.equal(mirrorUpToDate(sched, mirrorPod(parseComponentEndpoints(ENDPOINTS)[2], node, 'v1.35.0', 5000)), true);
});

const scheduler = mirrorPod(parseComponentEndpoints(ENDPOINTS)[2], node, 'v1.35.0', 0).spec!.containers[0];
const controllerManager = mirrorPod(parseComponentEndpoints(ENDPOINTS)[1], node, 'v1.35.0', 0).spec!.containers[0];
const refused = { ok: false, message: 'Get "http://127.0.0.1:40002/readyz": dial tcp 127.0.0.1:40002: connect: connection refused' };

/** Feeds results in order; returns the last track and every event reason. */
function run(c: Container, steps: [ProbeKind, boolean][]): { t: ContainerTrack; reasons: string[]; messages: string[] } {
  let t = startedContainer(c, 'containerd://a', 0);
  const reasons: string[] = [];
  const messages: string[] = [];
  let n = 0;
  for (const [kind, ok] of steps) {
    const r = observeProbe(t, c, kind, ok ? { ok: true, message: '' } : refused, ++n * 1000, () => `containerd://${n}`);
    t = r.track;
    for (const e of r.events) {
      reasons.push(e.reason);
      messages.push(e.message);
    }
  }
  return { t, reasons, messages };
}

test('probe results: startup gates, readiness after 3 failures, liveness kills after 8', () => {
  const cases: {
    name: string;
    c: Container;
    steps: [ProbeKind, boolean][];
    ready: boolean;
    started: boolean;
    restarts: number;
    reasons: string[];
  }[] = [
    { name: 'not started yet', c: scheduler, steps: [['Readiness', true]], ready: false, started: false, restarts: 0, reasons: [] },
    { name: 'started, not ready', c: scheduler, steps: [['Startup', true]], ready: false, started: true, restarts: 0, reasons: [] },
    {
      name: 'ready',
      c: scheduler,
      steps: [
        ['Startup', true],
        ['Readiness', true],
      ],
      ready: true,
      started: true,
      restarts: 0,
      reasons: [],
    },
    {
      name: 'two readiness failures keep it ready',
      c: scheduler,
      steps: [
        ['Startup', true],
        ['Readiness', true],
        ['Readiness', false],
        ['Readiness', false],
      ],
      ready: true,
      started: true,
      restarts: 0,
      reasons: ['Unhealthy', 'Unhealthy'],
    },
    {
      name: 'the third makes it not ready',
      c: scheduler,
      steps: [
        ['Startup', true],
        ['Readiness', true],
        ['Readiness', false],
        ['Readiness', false],
        ['Readiness', false],
      ],
      ready: false,
      started: true,
      restarts: 0,
      reasons: ['Unhealthy', 'Unhealthy', 'Unhealthy'],
    },
    {
      name: 'no readiness probe: ready once started (controller-manager)',
      c: controllerManager,
      steps: [['Startup', true]],
      ready: true,
      started: true,
      restarts: 0,
      reasons: [],
    },
    {
      name: 'eight liveness failures restart the container, which must start again',
      c: controllerManager,
      steps: [['Startup', true], ...Array.from({ length: 8 }, (): [ProbeKind, boolean] => ['Liveness', false])],
      ready: false,
      started: false,
      restarts: 1,
      reasons: [...Array(8).fill('Unhealthy'), 'Killing', 'Pulled', 'Created', 'Started'],
    },
  ];
  for (const tc of cases) {
    const { t, reasons } = run(tc.c, tc.steps);
    assert.equal(t.ready, tc.ready, `${tc.name}: ready`);
    assert.equal(t.started, tc.started, `${tc.name}: started`);
    assert.equal(t.restartCount, tc.restarts, `${tc.name}: restarts`);
    assert.deepEqual(reasons, tc.reasons, tc.name);
  }
});

test('a restart keeps the old container in lastState, with kubelet texts', () => {
  const { t, messages } = run(controllerManager, [
    ['Startup', true],
    ...Array.from({ length: 8 }, (): [ProbeKind, boolean] => ['Liveness', false]),
  ]);
  assert.equal(messages[0], `Liveness probe failed: ${refused.message}`);
  assert.equal(messages[8], 'Container kube-controller-manager failed liveness probe, will be restarted');
  assert.equal(messages[9], 'Container image "registry.k8s.io/kube-controller-manager:v1.35.0" already present on machine');
  const s = containerSnapshot(t, controllerManager, 'img@sha256:x');
  assert.equal(s.lastState.terminated?.containerID, 'containerd://a');
  assert.equal(s.lastState.terminated?.reason, 'Error');
  assert.notEqual(s.containerID, 'containerd://a');
  assert.ok(s.state.running?.startedAt);
});
