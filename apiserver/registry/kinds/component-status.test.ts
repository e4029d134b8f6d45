import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findResource } from '../../../shared/api/resources.ts';
import type { ApiContext, ApiRequest } from '../../handlers/context.ts';
import type { Store } from '../../storage/store.ts';
import { objectKey } from '../keys.ts';
import { COMPONENT_STATUS_WARNING, componentStatuses, handleComponentStatus } from './component-status.ts';

const now = new Date('2026-12-02T05:00:00Z');
const leases = findResource('coordination.k8s.io', 'v1', 'leases')!;
const rt = findResource('', 'v1', 'componentstatuses')!;

/** A store holding the given kube-system Leases, healthy or not. */
function fakeStore(held: Record<string, { renewTime: string; holderIdentity?: string }>, ok = true): Store {
  const byKey = new Map(
    Object.entries(held).map(([name, spec]) => [
      objectKey(leases, 'kube-system', name),
      { json: JSON.stringify({ spec: { holderIdentity: 'me', leaseDurationSeconds: 15, ...spec } }) },
    ]),
  );
  return {
    get: (k: string) => byKey.get(k),
    health: ok ? { ok: true } : { ok: false, kind: 'disk-full', error: new Error('x'), sinceMs: 0 },
  } as unknown as Store;
}

const conditions = (store: Store) =>
  componentStatuses(store, now).map((o: any) => [o.metadata.name, o.conditions[0].status, o.conditions[0].message ?? '']);

test('healthy while the leader Leases are fresh and the store is well', () => {
  const fresh = { renewTime: '2026-12-02T04:59:55.000000Z' };
  assert.deepEqual(conditions(fakeStore({ 'kube-scheduler': fresh, 'kube-controller-manager': fresh })), [
    ['scheduler', 'True', 'ok'],
    ['controller-manager', 'True', 'ok'],
    ['etcd-0', 'True', 'ok'],
  ]);
});

test('unhealthy without a Lease, with an expired one, or with failing storage', () => {
  const stale = { renewTime: '2026-12-02T04:59:00.000000Z' };
  const out = componentStatuses(fakeStore({ 'kube-scheduler': stale }, false), now) as any[];
  assert.deepEqual(
    out.map((o) => [o.metadata.name, o.conditions[0].status]),
    [
      ['scheduler', 'False'],
      ['controller-manager', 'False'],
      ['etcd-0', 'False'],
    ],
  );
  assert.match(out[1].conditions[0].error, /no kube-system\/kube-controller-manager Lease/);
  assert.deepEqual(out[0].metadata, { name: 'scheduler', creationTimestamp: null });
});

test("GET and LIST answer with kube's deprecation warning; an unknown name is NotFound", () => {
  const ctx = { store: fakeStore({}), now: () => now } as unknown as ApiContext;
  const req = (verb: string, name = '') =>
    ({ info: { verb, name, resource: rt }, view: 'object', query: new URLSearchParams() }) as unknown as ApiRequest;
  const list = handleComponentStatus(ctx, req('list'));
  assert.deepEqual(list.warnings, [COMPONENT_STATUS_WARNING]);
  const body = JSON.parse(list.json);
  assert.equal(body.kind, 'ComponentStatusList');
  assert.deepEqual(
    body.items.map((i: any) => i.metadata.name),
    ['scheduler', 'controller-manager', 'etcd-0'],
  );
  assert.equal(JSON.parse(handleComponentStatus(ctx, req('get', 'etcd-0')).json).conditions[0].status, 'True');
  assert.throws(() => handleComponentStatus(ctx, req('get', 'nope')), /componentstatuses "nope" not found/);
});
