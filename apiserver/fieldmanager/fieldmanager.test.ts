// The field manager's rules on objects, without a server: the create fast
// path against the field-set path, the manager name, managedFields a client
// sends, the cap of Update entries, stripped metadata, conflicts' Status.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findResource } from '../../shared/api/resources.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { KubeObject } from '../registry/object.ts';
import { podFixture } from '../../bench/fixtures.ts';
import {
  conflictError,
  createEntriesBySets,
  managerName,
  MAX_UPDATE_MANAGERS,
  createdFields,
  serializeWithCreatedFields,
  trackApply,
  trackUpdate,
  type WriteContext,
} from './index.ts';

const pods = findResource('', 'v1', 'pods')!;
const configmaps = findResource('', 'v1', 'configmaps')!;
const deployments = findResource('apps', 'v1', 'deployments')!;
const now = new Date('2026-12-02T10:00:00Z');
const w = (rt: ResourceType, manager: string, subresource = '', at = now): WriteContext => ({ rt, manager, subresource, now: at });

const pod = (): KubeObject => ({ ...structuredClone(podFixture('p', 'default')), apiVersion: 'v1', kind: 'Pod' }) as unknown as KubeObject;
const deployment = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: 'u', labels: { app: 'web' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }] },
    },
  },
  status: { replicas: 0 },
});
const cm = (data: Record<string, string>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'default', uid: 'u', resourceVersion: '5' },
    data,
  }) as unknown as KubeObject;

test('a create: the one-walk entry equals the field-set one', () => {
  for (const [rt, make] of [
    [pods, pod],
    [deployments, deployment],
    [configmaps, () => cm({ a: '1' })],
  ] as const) {
    const obj = make();
    trackUpdate(w(rt, 'creator'), undefined, obj);
    const reference = createEntriesBySets(w(rt, 'creator'), { ...make(), metadata: { ...make().metadata } });
    assert.deepEqual(obj.metadata.managedFields, reference, rt.kind);
    assert.equal(obj.metadata.managedFields.length, 1);
    // As a create worker writes it: the same object, as JSON.
    const made = make();
    assert.deepEqual(JSON.parse(serializeWithCreatedFields(w(rt, 'creator'), made, createdFields(w(rt, 'creator'), made))), obj, rt.kind);
  }
  const d = deployment();
  trackUpdate(w(deployments, 'kubectl-create'), undefined, d);
  const f = d.metadata.managedFields![0].fieldsV1 as Record<string, any>;
  // Identity metadata is never owned; status is the status subresource's.
  assert.deepEqual(f['f:metadata'], { 'f:labels': { '.': {}, 'f:app': {} } });
  assert.equal(f['f:status'], undefined);
  assert.deepEqual(f['f:spec']['f:selector'], {});
  assert.deepEqual(f['f:spec']['f:strategy'], { '.': {}, 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {} }, 'f:type': {} });
});

test('the manager: fieldManager, else the User-Agent up to its first "/"', () => {
  const cases: [string, string | undefined, string][] = [
    ['fieldManager=alice', 'kubectl/v1.35.0 (linux/amd64) kubernetes/abc', 'alice'],
    ['', 'kubectl/v1.35.0 (linux/amd64) kubernetes/abc', 'kubectl'],
    ['', 'kube-controller-manager/v1.35.0 (linux/amd64) kubernetes/abc/deployment-controller', 'kube-controller-manager'],
    ['', 'Go-http-client/2.0', 'Go-http-client'],
    ['', undefined, ''],
  ];
  for (const [q, ua, want] of cases) assert.equal(managerName(new URLSearchParams(q), ua), want);
});

test('updates: the changer takes the field, an unchanged update keeps everything, a client may reset or replace the list', () => {
  const live = cm({ a: '1', b: '2' });
  trackUpdate(w(configmaps, 'creator'), undefined, live);
  const next = cm({ a: '9', b: '2' });
  trackUpdate(w(configmaps, 'editor', '', new Date('2026-12-02T11:00:00Z')), live, next);
  const byManager = Object.fromEntries(next.metadata.managedFields!.map((e) => [e.manager, e.fieldsV1]));
  assert.deepEqual(byManager, { creator: { 'f:data': { '.': {}, 'f:b': {} } }, editor: { 'f:data': { 'f:a': {} } } });
  assert.equal(next.metadata.managedFields![1].time, '2026-12-02T11:00:00Z');

  const same = cm({ a: '9', b: '2' });
  trackUpdate(w(configmaps, 'other', '', new Date('2026-12-02T12:00:00Z')), next, same);
  assert.deepEqual(same.metadata.managedFields, next.metadata.managedFields);

  for (const reset of [[], [{}]]) {
    const cleared = { ...cm({ a: '9', b: '2' }), metadata: { ...cm({}).metadata, managedFields: reset } } as KubeObject;
    trackUpdate(w(configmaps, 'x'), next, cleared);
    assert.equal(cleared.metadata.managedFields, undefined, JSON.stringify(reset));
    // An object without managedFields stays without (skipnonapplied).
    const later = cm({ a: '10', b: '2' });
    trackUpdate(w(configmaps, 'y'), cleared, later);
    assert.equal(later.metadata.managedFields, undefined);
  }

  const replaced = cm({ a: '9', b: '2' });
  replaced.metadata.managedFields = [
    { manager: 'mine', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
  ];
  trackUpdate(w(configmaps, 'x'), next, replaced);
  assert.deepEqual(
    replaced.metadata.managedFields.map((e) => e.manager),
    ['mine'],
  );

  const unreadable = cm({ a: '9', b: '2' });
  unreadable.metadata.managedFields = [{ manager: 'bad', operation: 'Delete', fieldsType: 'FieldsV1', fieldsV1: {} }];
  trackUpdate(w(configmaps, 'x'), next, unreadable);
  assert.deepEqual(unreadable.metadata.managedFields, next.metadata.managedFields);

  // On a subresource what the client sends is ignored.
  const viaStatus = cm({ a: '9', b: '2' });
  viaStatus.metadata.managedFields = [];
  trackUpdate(w(configmaps, 'x', 'status'), next, viaStatus);
  assert.deepEqual(viaStatus.metadata.managedFields, next.metadata.managedFields);
});

test(`at most ${MAX_UPDATE_MANAGERS} Update entries: the oldest merge into ancient-changes`, () => {
  let obj = cm({ k0: 'v' });
  trackUpdate(w(configmaps, 'm0', '', new Date(Date.UTC(2026, 0, 1, 0, 0, 0))), undefined, obj);
  for (let i = 1; i <= 11; i++) {
    const next = cm({ ...(obj as unknown as { data: Record<string, string> }).data, [`k${i}`]: 'v' });
    trackUpdate(w(configmaps, `m${i}`, '', new Date(Date.UTC(2026, 0, 1, 0, 0, i))), obj, next);
    obj = next;
  }
  const list = obj.metadata.managedFields!;
  assert.equal(list.length, MAX_UPDATE_MANAGERS);
  const ancient = list.find((e) => e.manager === 'ancient-changes')!;
  assert.deepEqual(ancient.fieldsV1, { 'f:data': { '.': {}, 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } });
  assert.equal(ancient.time, '2026-01-01T00:00:02Z');
  assert.deepEqual(
    list.map((e) => e.manager),
    ['ancient-changes', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8', 'm9', 'm10', 'm11'],
  );
});

test('apply: the first apply to an untracked object gives what it holds to before-first-apply', () => {
  const live = cm({ a: '1' });
  const out = trackApply(w(configmaps, 'alice'), live, cm({ b: '2' }), false);
  const list = out.metadata.managedFields!;
  assert.deepEqual(
    list.map((e) => [e.manager, e.operation, e.fieldsV1]),
    [
      ['alice', 'Apply', { 'f:data': { 'f:b': {} } }],
      ['before-first-apply', 'Update', { 'f:data': { '.': {}, 'f:a': {} } }],
    ],
  );
  assert.throws(
    () => trackApply(w(configmaps, 'bob'), out, cm({ a: 'x' }), false),
    (err: { code: number; message: string }) =>
      err.code === 409 && err.message === 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a',
  );
});

test("conflicts' Status: one, or several grouped by manager", () => {
  const one = conflictError([{ manager: '{"manager":"alice","operation":"Apply"}', path: ['f:data', 'f:color'] }]);
  assert.equal(one.code, 409);
  assert.equal(one.reason, 'Conflict');
  assert.equal(one.message, 'Apply failed with 1 conflict: conflict with "alice": .data.color');
  const several = conflictError([
    { manager: '{"manager":"bob","operation":"Update","apiVersion":"v1","subresource":"status"}', path: ['f:status', 'f:x'] },
    { manager: '{"manager":"alice","operation":"Apply"}', path: ['f:spec', 'f:containers', 'k:{"name":"web"}', 'f:image'] },
    { manager: '{"manager":"alice","operation":"Apply"}', path: ['f:spec', 'f:replicas'] },
  ]);
  assert.equal(
    several.message,
    'Apply failed with 3 conflicts: conflicts with "alice":\n- .spec.containers[name="web"].image\n- .spec.replicas\nconflicts with "bob" with subresource "status" using v1:\n- .status.x',
  );
  assert.deepEqual(several.details!.causes![2], {
    reason: 'FieldManagerConflict',
    message: 'conflict with "bob" with subresource "status" using v1',
    field: '.status.x',
  });
});

test('creates from one template share their walk, and any other difference gets its own entry', () => {
  const variant = (name: string, edit: (p: any) => void = () => {}): KubeObject => {
    const p = pod() as any;
    p.metadata.name = name;
    p.metadata.uid = `uid-${name}`;
    p.metadata.creationTimestamp = `2026-12-03T10:00:0${name.length % 10}Z`;
    edit(p);
    return p as KubeObject;
  };
  const variants = [
    variant('a'),
    variant('bb'),
    variant('c', (p) => (p.spec.containers[0].name = 'other')),
    variant('d', (p) => (p.metadata.labels = { ...p.metadata.labels, extra: 'x' })),
    // The same length as the one before, another field: remembered by length it would be mistaken for it.
    variant('d2', (p) => (p.metadata.labels = { ...p.metadata.labels, extrb: 'x' })),
    variant('e', (p) => (p.spec.containers[0].ports = [{ containerPort: 81 }])),
    variant('f', (p) => (p.spec.containers[0].image = '')),
    variant('g'),
  ];
  // Twice over: the second round finds each one's entry remembered, and must still be right.
  for (const round of [1, 2])
    for (const make of variants) {
      const obj = structuredClone(make);
      trackUpdate(w(pods, 'creator'), undefined, obj);
      const reference = createEntriesBySets(w(pods, 'creator'), structuredClone(make));
      assert.deepEqual(obj.metadata.managedFields, reference, `round ${round}, ${make.metadata.name}`);
    }
  const fieldsOf = (obj: KubeObject) => {
    const o = structuredClone(obj);
    trackUpdate(w(pods, 'creator'), undefined, o);
    return JSON.stringify(o.metadata.managedFields![0].fieldsV1);
  };
  assert.equal(fieldsOf(variants[0]), fieldsOf(variants[1]), "name, uid and creationTimestamp are no manager's");
  assert.notEqual(fieldsOf(variants[0]), fieldsOf(variants[2]), 'a keyed list item by its key');
});
