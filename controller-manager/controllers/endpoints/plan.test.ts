import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import { computeSubsets, MAX_CAPACITY, planEndpoints, repackSubsets } from './plan.ts';

const svc = (spec: Record<string, unknown> = {}, labels?: Record<string, string>): Service => ({
  metadata: { name: 'web', namespace: 'default', uid: 'svc-uid', labels, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: {
    selector: { app: 'web' },
    clusterIP: '10.96.0.10',
    ipFamilies: ['IPv4'],
    ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }],
    ...spec,
  },
});

interface PodOpts {
  ip?: string;
  ready?: boolean;
  node?: string;
  ports?: { name: string; containerPort: number }[];
  terminating?: boolean;
  phase?: string;
  rv?: string;
}
const pod = (name: string, o: PodOpts = {}): Pod => ({
  metadata: {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    labels: { app: 'web' },
    resourceVersion: o.rv ?? '1',
    ...(o.terminating ? { deletionTimestamp: '2026-01-01T00:10:00Z' } : {}),
  },
  spec: { nodeName: o.node ?? 'node-1', containers: [{ name: 'c', ports: (o.ports ?? []).map((p) => ({ ...p, protocol: 'TCP' })) }] },
  status: {
    phase: o.phase ?? 'Running',
    ...(o.ip === '' ? {} : { podIP: o.ip ?? '10.244.0.5', podIPs: [{ ip: o.ip ?? '10.244.0.5' }] }),
    conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: '2026-01-01T00:05:00Z' }],
  },
});
const addr = (name: string, ip: string, node = 'node-1') => ({
  ip,
  nodeName: node,
  targetRef: { kind: 'Pod', namespace: 'default', name, uid: `uid-${name}` },
});
const http = (port: number) => ({ name: 'http', port, protocol: 'TCP' });

test('subsets: ready, not-ready and excluded Pods, ports resolved per Pod', () => {
  const named = svc({ ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'web' }] });
  const cases: [string, Service, Pod[], unknown][] = [
    [
      'ready Pods in addresses, sorted by IP (as strings, as kube sorts)',
      svc(),
      [pod('b', { ip: '10.244.0.5' }), pod('a', { ip: '10.244.0.10' })],
      [{ addresses: [addr('a', '10.244.0.10'), addr('b', '10.244.0.5')], ports: [http(8080)] }],
    ],
    [
      'a not-ready Pod goes to notReadyAddresses',
      svc(),
      [pod('a', { ip: '10.244.0.5' }), pod('b', { ip: '10.244.0.6', ready: false })],
      [{ addresses: [addr('a', '10.244.0.5')], notReadyAddresses: [addr('b', '10.244.0.6')], ports: [http(8080)] }],
    ],
    [
      'publishNotReadyAddresses lists not-ready and terminating Pods as ready',
      svc({ publishNotReadyAddresses: true }),
      [pod('a', { ready: false, ip: '10.244.0.5' }), pod('b', { terminating: true, ip: '10.244.0.6' })],
      [{ addresses: [addr('a', '10.244.0.5'), addr('b', '10.244.0.6')], ports: [http(8080)] }],
    ],
    [
      'terminating, finished and IP-less Pods are left out',
      svc(),
      [pod('t', { terminating: true }), pod('s', { phase: 'Succeeded' }), pod('f', { phase: 'Failed' }), pod('n', { ip: '' })],
      [],
    ],
    ['no Pods: no subsets', svc(), [], []],
    [
      'targetPort defaults to the service port',
      svc({ ports: [{ port: 80, protocol: 'TCP' }] }),
      [pod('a')],
      [{ addresses: [addr('a', '10.244.0.5')], ports: [{ port: 80, protocol: 'TCP' }] }],
    ],
    [
      'a named targetPort resolves per Pod: different numbers, different subsets; a Pod without it is skipped',
      named,
      [
        pod('a', { ip: '10.244.0.5', ports: [{ name: 'web', containerPort: 8080 }] }),
        pod('b', { ip: '10.244.0.6', ports: [{ name: 'web', containerPort: 9090 }] }),
        pod('c', { ip: '10.244.0.7', ports: [{ name: 'web', containerPort: 8080 }] }),
        pod('d', { ip: '10.244.0.8' }),
      ],
      [
        { addresses: [addr('a', '10.244.0.5'), addr('c', '10.244.0.7')], ports: [http(8080)] },
        { addresses: [addr('b', '10.244.0.6')], ports: [http(9090)] },
      ],
    ],
    [
      'several service ports share one subset',
      svc({
        ports: [
          { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 },
          { name: 'metrics', port: 9100, protocol: 'TCP', targetPort: 9100 },
        ],
      }),
      [pod('a')],
      [{ addresses: [addr('a', '10.244.0.5')], ports: [http(8080), { name: 'metrics', port: 9100, protocol: 'TCP' }] }],
    ],
    [
      'a headless Service without ports lists bare addresses',
      svc({ clusterIP: 'None', ports: [] }),
      [pod('a')],
      [{ addresses: [addr('a', '10.244.0.5')] }],
    ],
    ['a Service with a cluster IP and no ports gets nothing', svc({ ports: [] }), [pod('a')], []],
    [
      "an IPv6 Service takes the Pod's IPv6 address",
      svc({ ipFamilies: ['IPv6'] }),
      [{ ...pod('a'), status: { ...pod('a').status, podIPs: [{ ip: '10.244.0.5' }, { ip: 'fd00::5' }] } }],
      [{ addresses: [addr('a', 'fd00::5')], ports: [http(8080)] }],
    ],
  ];
  for (const [why, s, pods, want] of cases) assert.deepEqual(computeSubsets(s, pods), want, why);
});

test('subsets do not depend on the order of the Pods', () => {
  const s = svc({ ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'web' }] });
  const pods = Array.from({ length: 12 }, (_, i) =>
    pod(`p${i}`, { ip: `10.244.${i % 3}.${i}`, ready: i % 4 !== 0, ports: [{ name: 'web', containerPort: 8000 + (i % 2) }] }),
  );
  const want = computeSubsets(s, pods);
  for (let n = 0; n < 5; n++) {
    const shuffled = [...pods].sort(() => Math.random() - 0.5);
    assert.deepEqual(computeSubsets(s, shuffled), want);
  }
});

test('repack: an address not ready on a port is not ready on it; equal address sets share a subset', () => {
  const a = addr('a', '10.0.0.1');
  const b = addr('b', '10.0.0.2');
  const got = repackSubsets([
    { addresses: [a], ports: [http(80)] },
    { notReadyAddresses: [a], ports: [http(80)] },
    { addresses: [b], ports: [{ name: 'x', port: 1, protocol: 'UDP' }] },
    { addresses: [b], ports: [{ name: 'y', port: 2, protocol: 'TCP' }] },
  ]);
  assert.deepEqual(got, [
    {
      addresses: [b],
      ports: [
        { name: 'x', port: 1, protocol: 'UDP' },
        { name: 'y', port: 2, protocol: 'TCP' },
      ],
    },
    { notReadyAddresses: [a], ports: [http(80)] },
  ]);
});

test('planEndpoints: create, leave alone, update; labels and annotations as kube sets them', () => {
  const s = svc({}, { team: 'blue' });
  const first = planEndpoints(s, [pod('a')], undefined, Date.parse('2026-01-01T00:05:00Z'));
  assert.equal(first.action, 'create');
  const ep = (first as { endpoints: Endpoints }).endpoints;
  assert.deepEqual(ep.metadata, {
    name: 'web',
    namespace: 'default',
    labels: { team: 'blue', 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' },
    annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2026-01-01T00:05:00Z' },
  });
  assert.equal(ep.kind, 'Endpoints');
  assert.deepEqual(ep.subsets, [{ addresses: [addr('a', '10.244.0.5')], ports: [http(8080)] }]);

  const stored: Endpoints = { ...ep, metadata: { ...ep.metadata, resourceVersion: '7', uid: 'ep-uid' } };
  // The same Pods (a newer Pod resourceVersion in the stored targetRef does not count) and no trigger: nothing to write.
  const withRv = structuredClone(stored);
  withRv.subsets![0].addresses![0].targetRef!.resourceVersion = '3';
  assert.deepEqual(planEndpoints(s, [pod('a', { rv: '9' })], withRv), { action: 'none' });

  const notReady = planEndpoints(s, [pod('a', { ready: false })], stored);
  assert.equal(notReady.action, 'update');
  const upd = (notReady as { endpoints: Endpoints }).endpoints;
  assert.equal(upd.metadata?.resourceVersion, '7');
  assert.deepEqual(upd.subsets, [{ notReadyAddresses: [addr('a', '10.244.0.5')], ports: [http(8080)] }]);
  assert.equal(upd.metadata?.annotations, undefined, 'no trigger time: the annotation goes');

  const relabelled = planEndpoints(svc({}, { team: 'red' }), [pod('a')], stored);
  assert.equal(relabelled.action, 'update');
  assert.equal((relabelled as { endpoints: Endpoints }).endpoints.metadata?.labels?.team, 'red');
});

test('planEndpoints: a selector matching nothing gives an Endpoints with no subsets; headless Services get the headless label', () => {
  const empty = planEndpoints(svc({ clusterIP: 'None' }), [], undefined);
  assert.equal(empty.action, 'create');
  const ep = (empty as { endpoints: Endpoints }).endpoints;
  assert.equal(ep.subsets, undefined);
  assert.deepEqual(ep.metadata?.labels, {
    'endpoints.kubernetes.io/managed-by': 'endpoint-controller',
    'service.kubernetes.io/headless': '',
  });
  assert.deepEqual(planEndpoints(svc({ clusterIP: 'None' }), [], { ...ep, subsets: [] }), { action: 'none' });
});

test('planEndpoints: more than 1000 addresses are truncated and annotated', () => {
  const pods = Array.from({ length: MAX_CAPACITY + 5 }, (_, i) =>
    pod(`p${i}`, { ip: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, ready: i >= 10 }),
  );
  const plan = planEndpoints(svc(), pods, undefined) as { endpoints: Endpoints };
  const count = plan.endpoints.subsets!.reduce((n, ss) => n + (ss.addresses?.length ?? 0) + (ss.notReadyAddresses?.length ?? 0), 0);
  assert.equal(count, MAX_CAPACITY);
  assert.equal(
    plan.endpoints.subsets!.reduce((n, ss) => n + (ss.addresses?.length ?? 0), 0),
    MAX_CAPACITY - 5,
    'ready addresses are kept first',
  );
  assert.equal(plan.endpoints.metadata?.annotations?.['endpoints.kubernetes.io/over-capacity'], 'truncated');
  const stored = { ...plan.endpoints, metadata: { ...plan.endpoints.metadata, resourceVersion: '2' } };
  assert.deepEqual(planEndpoints(svc(), pods, stored), { action: 'none' }, 'a truncated Endpoints is not rewritten on every sync');
});
