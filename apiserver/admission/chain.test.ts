// The chain over an in-memory store: each plugin's refusals with kube's
// messages, a dry run refused alike but charging nothing, the quota charged
// in the object's own transaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, ResourceQuota } from 'kubernetes-types/core/v1.js';
import { findResource } from '../../shared/api/resources.ts';
import { StatusError } from '../../shared/api/errors.ts';
import { Store } from '../storage/store.ts';
import { MemoryBackend } from '../storage/memory-backend.ts';
import type { StoredObject } from '../storage/types.ts';
import { ANONYMOUS, type UserInfo } from '../auth/user-info.ts';
import { buildAdmissionChain } from './chain.ts';
import type { AdmissionAttributes, AdmissionChain, Operation } from './types.ts';

const pods = findResource('', 'v1', 'pods')!;
const nodes = findResource('', 'v1', 'nodes')!;
const namespaces = findResource('', 'v1', 'namespaces')!;

const NS = '/registry/core/namespaces';
const QUOTA_KEY = '/registry/core/resourcequotas/lab/compute';

function attrs(
  op: Operation,
  name: string,
  extra: Partial<AdmissionAttributes> = {},
): AdmissionAttributes & { warnings: string[]; log: string[] } {
  const warnings: string[] = [];
  const log: string[] = [];
  return {
    operation: op,
    user: ANONYMOUS,
    namespace: 'lab',
    name,
    subresource: '',
    dryRun: false,
    warn: (m) => warnings.push(m),
    record: (p, v) => log.push(`${p}:${v}`),
    warnings,
    log,
    ...extra,
  };
}

const pod = (name: string, cpu?: string, extra: Partial<Pod['spec']> = {}): StoredObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'lab' },
    spec: { containers: [{ name: 'nginx', image: 'nginx', resources: cpu ? { requests: { cpu }, limits: { cpu } } : {} }], ...extra },
  }) as StoredObject;

/** A create as the handler runs it: every stage, the transactional one inside the object's transaction. */
async function create(store: Store, chain: AdmissionChain, obj: StoredObject, a: AdmissionAttributes): Promise<void> {
  chain.admit('CREATE', pods, obj, undefined, 'object', a);
  chain.admit('CREATE', pods, obj, undefined, 'context', a);
  if (a.dryRun) return chain.admit('CREATE', pods, obj, undefined, 'transaction', a);
  await store.txn(`/registry/core/pods/lab/${obj.metadata.name}`, () => {
    chain.admit('CREATE', pods, obj, undefined, 'transaction', a);
    return obj;
  });
}

async function refusal(p: Promise<unknown> | (() => void)): Promise<StatusError> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return err;
  }
  assert.fail('not refused');
}

async function withStore(fn: (store: Store, chain: AdmissionChain) => Promise<void>): Promise<void> {
  const store = await Store.open(new MemoryBackend());
  try {
    await store.txn(`${NS}/lab`, () => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } }));
    await fn(store, buildAdmissionChain(store));
  } finally {
    await store.close();
  }
}

test('ResourceQuota refuses with kube message, charges status.used, and a dry run charges nothing', () =>
  withStore(async (store, chain) => {
    const quota: ResourceQuota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'compute', namespace: 'lab' },
      spec: { hard: { 'requests.cpu': '1', pods: '5' } },
    };
    await store.txn(QUOTA_KEY, () => quota);
    const used = () => (JSON.parse(store.get(QUOTA_KEY)!.json) as ResourceQuota).status?.used;
    await create(store, chain, pod('a', '600m'), attrs('CREATE', 'a'));
    assert.deepEqual(used(), { 'requests.cpu': '600m', pods: '1' });
    // A dry run that passes charges nothing; one over the quota is refused the same way.
    await create(store, chain, pod('b', '100m'), attrs('CREATE', 'b', { dryRun: true }));
    assert.deepEqual(used(), { 'requests.cpu': '600m', pods: '1' });
    for (const dryRun of [true, false]) {
      const err = await refusal(create(store, chain, pod('c', '500m'), attrs('CREATE', 'c', { dryRun })));
      assert.equal(err.code, 403);
      assert.equal(
        err.message,
        'pods "c" is forbidden: exceeded quota: compute, requested: requests.cpu=500m, used: requests.cpu=600m, limited: requests.cpu=1',
      );
    }
    const missing = await refusal(create(store, chain, pod('d'), attrs('CREATE', 'd')));
    assert.equal(missing.message, 'pods "d" is forbidden: failed quota: compute: must specify requests.cpu for: nginx');
    assert.deepEqual(used(), { 'requests.cpu': '600m', pods: '1' });
  }));

test('PodSecurity enforce refuses, warn warns, audit annotates; LimitRanger defaults and bounds', () =>
  withStore(async (store, chain) => {
    await store.txn(`${NS}/lab`, (cur) => ({
      ...cur!,
      metadata: {
        ...cur!.metadata,
        labels: { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'restricted' },
      },
    }));
    const a = attrs('CREATE', 'h');
    const err = await refusal(create(store, chain, pod('h', undefined, { hostNetwork: true }), a));
    assert.equal(err.message, 'pods "h" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)');
    assert.deepEqual(a.log, ['ServiceAccount:mutated', 'PodSecurity:refused']);
    const ok = attrs('CREATE', 'ok');
    await create(store, chain, pod('ok'), ok);
    assert.equal(ok.warnings.length, 1);
    assert.match(
      ok.warnings[0],
      /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "nginx" must set/,
    );

    await store.txn('/registry/core/limitranges/lab/lr', () => ({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'lr', namespace: 'lab' },
      spec: { limits: [{ type: 'Container', min: { cpu: '100m' }, defaultRequest: { cpu: '200m' }, default: { cpu: '300m' } }] },
    }));
    const low = await refusal(create(store, chain, pod('low', '50m'), attrs('CREATE', 'low')));
    assert.equal(low.message, 'pods "low" is forbidden: minimum cpu usage per Container is 100m, but request is 50m');
    const filled = pod('filled');
    await create(store, chain, filled, attrs('CREATE', 'filled'));
    assert.deepEqual((filled as Pod).spec!.containers[0].resources, { limits: { cpu: '300m' }, requests: { cpu: '200m' } });
  }));

test('ServiceAccount: the token volume in every container, a missing account refused, automount off honoured', () =>
  withStore(async (store, chain) => {
    const p = pod('p', undefined, { initContainers: [{ name: 'init', image: 'busybox' }] }) as Pod;
    await create(store, chain, p as StoredObject, attrs('CREATE', 'p'));
    const vol = p.spec!.volumes![0];
    assert.match(vol.name, /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.deepEqual(
      vol.projected!.sources!.map((s) => Object.keys(s)[0]),
      ['serviceAccountToken', 'configMap', 'downwardAPI'],
    );
    assert.equal(vol.projected!.sources![0].serviceAccountToken!.expirationSeconds, 3607);
    for (const c of [...p.spec!.containers, ...p.spec!.initContainers!])
      assert.deepEqual(c.volumeMounts, [{ name: vol.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }]);
    const err = await refusal(create(store, chain, pod('q', undefined, { serviceAccountName: 'robot' }), attrs('CREATE', 'q')));
    assert.equal(err.message, 'pods "q" is forbidden: error looking up service account lab/robot: serviceaccount "robot" not found');
    await store.txn('/registry/core/serviceaccounts/lab/robot', () => ({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'robot', namespace: 'lab' },
      automountServiceAccountToken: false,
    }));
    const r = pod('r', undefined, { serviceAccountName: 'robot' }) as Pod;
    await create(store, chain, r as StoredObject, attrs('CREATE', 'r'));
    assert.equal(r.spec!.volumes, undefined);
  }));

test('NodeRestriction and NamespaceLifecycle refuse as kube does', () =>
  withStore(async (store, chain) => {
    const nodeA: UserInfo = { username: 'system:node:a', groups: ['system:nodes', 'system:authenticated'] };
    const asNode = (op: Operation, name: string, extra: Partial<AdmissionAttributes> = {}) => attrs(op, name, { user: nodeA, ...extra });
    const plain = await refusal(() =>
      chain.admit('CREATE', pods, pod('x', undefined, { nodeName: 'a' }), undefined, 'all', asNode('CREATE', 'x')),
    );
    assert.equal(
      plain.message,
      'pods "x" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "a" can only create mirror pods',
    );
    const other = pod('y', undefined, { nodeName: 'b' });
    const status = await refusal(() => chain.admit('UPDATE', pods, other, other, 'all', asNode('UPDATE', 'y', { subresource: 'status' })));
    assert.equal(status.message, 'pods "y" is forbidden: node "a" can only update pod status for pods with spec.nodeName set to itself');
    const del = await refusal(() => chain.admitDelete(pods, other, asNode('DELETE', 'y')));
    assert.equal(del.message, 'pods "y" is forbidden: node "a" can only delete pods with spec.nodeName set to itself');
    const mine = pod('z', undefined, { nodeName: 'a' });
    chain.admitDelete(pods, mine, asNode('DELETE', 'z'));
    const node = (name: string, labels: Record<string, string> = {}) =>
      ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } }) as StoredObject;
    const b = await refusal(() => chain.admit('UPDATE', nodes, node('b'), node('b'), 'all', asNode('UPDATE', 'b')));
    assert.equal(b.message, 'nodes "b" is forbidden: node "a" is not allowed to modify node "b"');
    const labelled = node('a', { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/hostname': 'a', 'example.com/x': '1' });
    const lab = await refusal(() => chain.admit('UPDATE', nodes, labelled, node('a'), 'all', asNode('UPDATE', 'a')));
    assert.equal(lab.message, 'nodes "a" is forbidden: node "a" is not allowed to modify labels: node-role.kubernetes.io/control-plane');
    // Any other user is not restricted.
    chain.admit('UPDATE', nodes, node('b'), node('b'), 'all', attrs('UPDATE', 'b'));

    const ns = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) as StoredObject;
    const def = await refusal(() => chain.admitDelete(namespaces, ns('kube-system'), attrs('DELETE', 'kube-system', { namespace: '' })));
    assert.equal(def.message, 'namespaces "kube-system" is forbidden: this namespace may not be deleted');
    chain.admitDelete(namespaces, ns('lab'), attrs('DELETE', 'lab', { namespace: '' }));
    await store.txn(`${NS}/lab`, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }));
    const term = await refusal(() => chain.admit('CREATE', pods, pod('late'), undefined, 'all', attrs('CREATE', 'late')));
    assert.equal(term.code, 403);
    assert.match(term.message, /unable to create new content in namespace lab because it is being terminated$/);
  }));

test('ServiceAllocation answers a dry run with an address and holds none', () =>
  withStore(async (_store, chain) => {
    const services = findResource('', 'v1', 'services')!;
    const svc = (name: string, clusterIP?: string) =>
      ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace: 'lab' },
        spec: { clusterIP, ports: [{ port: 80 }] },
      }) as StoredObject;
    const dry = svc('dry', '10.96.0.50');
    chain.admit('CREATE', services, dry, undefined, 'all', attrs('CREATE', 'dry', { dryRun: true }));
    assert.equal((dry as unknown as { spec: { clusterIP: string } }).spec.clusterIP, '10.96.0.50');
    // The address is still free for a real create, and then taken.
    chain.admit('CREATE', services, svc('real', '10.96.0.50'), undefined, 'all', attrs('CREATE', 'real'));
    const taken = await refusal(() =>
      chain.admit('CREATE', services, svc('again', '10.96.0.50'), undefined, 'all', attrs('CREATE', 'again')),
    );
    assert.equal(taken.code, 422);
    assert.match(taken.message, /provided IP is already allocated/);
  }));
