import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { planSlices, type SliceInput, type SlicePlan } from './plan.ts';

const svc = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Service => ({
  metadata: { name: 'web', namespace: 'default', uid: 'svc-uid', ...meta },
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
}
const pod = (name: string, o: PodOpts = {}): Pod => ({
  metadata: {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    labels: { app: 'web' },
    ...(o.terminating ? { deletionTimestamp: '2026-01-01T00:10:00Z' } : {}),
  },
  spec: { nodeName: o.node ?? 'node-1', containers: [{ name: 'c', ports: (o.ports ?? []).map((p) => ({ ...p, protocol: 'TCP' })) }] },
  status: {
    phase: 'Running',
    podIP: o.ip ?? '10.244.0.5',
    podIPs: [{ ip: o.ip ?? '10.244.0.5' }],
    conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
  },
});
const nodes: Record<string, Node> = {
  'node-1': { metadata: { name: 'node-1', labels: { 'topology.kubernetes.io/zone': 'zone-a' } } },
  'node-2': { metadata: { name: 'node-2' } },
};
const input = (service: Service, pods: Pod[], existing: EndpointSlice[] = [], extra: Partial<SliceInput> = {}): SliceInput => ({
  service,
  pods,
  node: (n) => nodes[n],
  existing,
  ...extra,
});
const ep = (
  name: string,
  ip: string,
  o: { ready?: boolean; serving?: boolean; terminating?: boolean; node?: string; zone?: string | null } = {},
) => ({
  addresses: [ip],
  conditions: { ready: o.ready ?? true, serving: o.serving ?? o.ready ?? true, terminating: o.terminating ?? false },
  targetRef: { kind: 'Pod', namespace: 'default', name, uid: `uid-${name}` },
  nodeName: o.node ?? 'node-1',
  ...(o.zone === null ? {} : { zone: o.zone ?? 'zone-a' }),
});
const http = (port: number) => ({ name: 'http', protocol: 'TCP', port });
const LABELS = { 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' };
const OWNER = { apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'svc-uid', controller: true, blockOwnerDeletion: true };

/** The plan's slices applied, as the server would store them (names given to creates). */
function stored(plan: SlicePlan, before: EndpointSlice[] = []): EndpointSlice[] {
  const out = new Map(before.map((s) => [s.metadata!.name!, s]));
  for (const s of plan.delete) out.delete(s.metadata!.name!);
  for (const s of plan.update)
    out.set(s.metadata!.name!, { ...s, metadata: { ...s.metadata, resourceVersion: String(Number(s.metadata!.resourceVersion) + 1) } });
  let n = out.size;
  for (const s of plan.create) {
    const name = `web-${++n}`;
    out.set(name, { ...s, metadata: { ...s.metadata, name, resourceVersion: '1', generateName: undefined } });
  }
  return [...out.values()];
}
const noop = (p: SlicePlan) => p.create.length + p.update.length + p.delete.length === 0;

test('one slice for the ready, not-ready and terminating Pods, owned and labelled as kube does', () => {
  const plan = planSlices(
    input(svc(), [
      pod('a', { ip: '10.244.0.5' }),
      pod('b', { ip: '10.244.0.6', ready: false, node: 'node-2' }),
      pod('c', { ip: '10.244.0.7', terminating: true }),
    ]),
  );
  assert.deepEqual(plan.update, []);
  assert.deepEqual(plan.delete, []);
  assert.deepEqual(plan.create, [
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { generateName: 'web-', namespace: 'default', labels: LABELS, ownerReferences: [OWNER] },
      addressType: 'IPv4',
      endpoints: [
        ep('a', '10.244.0.5'),
        ep('b', '10.244.0.6', { ready: false, node: 'node-2', zone: null }),
        ep('c', '10.244.0.7', { ready: false, serving: true, terminating: true }),
      ],
      ports: [http(8080)],
    },
  ]);
});

test('publishNotReadyAddresses makes every endpoint ready, and keeps Pods whose Node is unknown', () => {
  const plan = planSlices(
    input(svc({ publishNotReadyAddresses: true }), [pod('a', { ready: false }), pod('b', { ip: '10.244.0.6', node: 'gone' })]),
  );
  assert.deepEqual(plan.skipped, []);
  assert.deepEqual(
    plan.create[0].endpoints.map((e) => [e.targetRef?.name, e.conditions]),
    [
      ['a', { ready: true, serving: false, terminating: false }],
      ['b', { ready: true, serving: true, terminating: false }],
    ],
  );
});

test('a Pod on an unknown Node is left out and reported (the sync is retried)', () => {
  const plan = planSlices(input(svc(), [pod('a'), pod('b', { ip: '10.244.0.6', node: 'gone' })]));
  assert.deepEqual(
    plan.create[0].endpoints.map((e) => e.targetRef?.name),
    ['a'],
  );
  assert.match(plan.skipped[0], /skipping Pod b for Service default\/web: Node gone Not Found/);
});

test('no matching Pods: one placeholder slice, made once and then left alone', () => {
  const plan = planSlices(input(svc(), []));
  assert.equal(plan.create.length, 1);
  assert.deepEqual(plan.create[0].endpoints, []);
  assert.deepEqual(plan.create[0].ports, []);
  const slices = stored(plan);
  assert.ok(noop(planSlices(input(svc(), [], slices))));
  // As stored by a server that turns an empty list into null.
  assert.ok(noop(planSlices(input(svc(), [], [{ ...slices[0], endpoints: null as unknown as [] }]))));
});

test('named target ports resolved per Pod: one slice per distinct port mapping; a Pod without the port gets a slice without ports', () => {
  const s = svc({ ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'web' }] });
  const plan = planSlices(
    input(s, [
      pod('a', { ip: '10.244.0.5', ports: [{ name: 'web', containerPort: 8080 }] }),
      pod('b', { ip: '10.244.0.6', ports: [{ name: 'web', containerPort: 9090 }] }),
      pod('c', { ip: '10.244.0.7', ports: [{ name: 'web', containerPort: 8080 }] }),
      pod('d', { ip: '10.244.0.8' }),
    ]),
  );
  assert.deepEqual(
    plan.create.map((sl) => [sl.ports, sl.endpoints.map((e) => e.targetRef?.name)]),
    [
      [[http(8080)], ['a', 'c']],
      [[http(9090)], ['b']],
      [[], ['d']],
    ],
  );
});

test('steady state writes nothing; a readiness change updates the slice in place', () => {
  const pods = [pod('a', { ip: '10.244.0.5' }), pod('b', { ip: '10.244.0.6' })];
  const slices = stored(planSlices(input(svc(), pods)));
  assert.ok(noop(planSlices(input(svc(), pods, slices))));
  const p = planSlices(input(svc(), [pods[0], pod('b', { ip: '10.244.0.6', ready: false })], slices));
  assert.deepEqual(p.create, []);
  assert.deepEqual(p.delete, []);
  assert.equal(p.update.length, 1);
  assert.equal(p.update[0].metadata?.name, slices[0].metadata?.name);
  assert.equal(p.update[0].metadata?.resourceVersion, '1');
  assert.deepEqual(p.update[0].endpoints[1].conditions, { ready: false, serving: false, terminating: false });
});

test('Pods going away: the slice shrinks, then turns into the placeholder instead of being deleted and made again', () => {
  const pods = [pod('a', { ip: '10.244.0.5' }), pod('b', { ip: '10.244.0.6' })];
  const slices = stored(planSlices(input(svc(), pods)));
  const one = planSlices(input(svc(), [pods[0]], slices));
  assert.deepEqual(
    one.update[0].endpoints.map((e) => e.targetRef?.name),
    ['a'],
  );
  const none = planSlices(input(svc(), [], stored(one, slices)));
  assert.deepEqual(none.create, []);
  assert.deepEqual(none.delete, []);
  assert.equal(none.update.length, 1);
  assert.equal(none.update[0].metadata?.name, slices[0].metadata?.name);
  assert.deepEqual(none.update[0].endpoints, []);
  assert.deepEqual(none.update[0].ports, []);
});

test('at most maxEndpointsPerSlice endpoints per slice; new endpoints fill the slice that fits them best', () => {
  const pods = Array.from({ length: 250 }, (_, i) => pod(`p${String(i).padStart(3, '0')}`, { ip: `10.244.${i >> 8}.${i & 255}` }));
  const plan = planSlices(input(svc(), pods));
  assert.deepEqual(
    plan.create.map((s) => s.endpoints.length),
    [100, 100, 50],
  );
  const slices = stored(plan);
  const more = planSlices(input(svc(), [...pods, pod('zz', { ip: '10.244.9.9' })], slices));
  assert.deepEqual(more.create, []);
  assert.equal(more.update.length, 1);
  assert.equal(more.update[0].endpoints.length, 51);
  const small = planSlices(input(svc(), pods.slice(0, 5), [], { maxEndpointsPerSlice: 2 }));
  assert.deepEqual(
    small.create.map((s) => s.endpoints.length),
    [2, 2, 1],
  );
});

test('Service label changes reach the slices; slices of an older Service of the same name go', () => {
  const pods = [pod('a')];
  const slices = stored(planSlices(input(svc(), pods)));
  const relabel = planSlices(input(svc({}, { labels: { team: 'blue' } }), pods, slices));
  assert.deepEqual(relabel.update[0].metadata?.labels, { team: 'blue', ...LABELS });
  const reborn = svc({}, { uid: 'new-uid' });
  const p = planSlices(input(reborn, pods, slices));
  // The old slice is not reused across owners: a new one is made and the old one deleted.
  assert.equal(p.create.length, 1);
  assert.equal(p.create[0].metadata?.ownerReferences?.[0].uid, 'new-uid');
  assert.deepEqual(
    p.delete.map((s) => s.metadata?.name),
    [slices[0].metadata?.name],
  );
});

test("address types follow the Service's IP families; a headless Service gets the headless label", () => {
  const dual = svc({ ipFamilies: ['IPv4', 'IPv6'] });
  const p = planSlices(input(dual, [{ ...pod('a'), status: { ...pod('a').status, podIPs: [{ ip: '10.244.0.5' }, { ip: 'fd00::5' }] } }]));
  assert.deepEqual(
    p.create.map((s) => [s.addressType, s.endpoints[0].addresses]),
    [
      ['IPv4', ['10.244.0.5']],
      ['IPv6', ['fd00::5']],
    ],
  );
  const v6only = planSlices(input(svc({ ipFamilies: ['IPv6'] }), [], stored(planSlices(input(svc(), [pod('a')])))));
  assert.deepEqual(
    v6only.delete.map((s) => s.addressType),
    ['IPv4'],
  );
  assert.equal(planSlices(input(svc({ clusterIP: 'None' }), [])).create[0].metadata?.labels?.['service.kubernetes.io/headless'], '');
});
