import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../shared/api/object.ts';
import { applyJsonPatch, applyStrategicMergePatch, mergeSchemaFor } from '../../../shared/patch/index.ts';
import {
  classifyOwner,
  decideForDependent,
  deleteOwnerRefsPatch,
  groupOf,
  removeFinalizerPatch,
  unblockOwnerRefsPatch,
  type RefClass,
} from './plan.ts';

const ref = (uid: string, block = true) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  name: uid,
  uid,
  controller: true,
  blockOwnerDeletion: block,
});
const owned = (uids: string[], finalizers?: string[]) => ({
  metadata: { name: 'x', uid: 'x-uid', ownerReferences: uids.map((u) => ref(u)), finalizers },
});

test('classifyOwner', () => {
  const cases: [string, KubeObject | undefined, RefClass][] = [
    ['404', undefined, 'dangling'],
    ['another object under the name', { metadata: { uid: 'other' } }, 'dangling'],
    ['exists', { metadata: { uid: 'o' } }, 'solid'],
    [
      'being deleted in the background (another finalizer holds it)',
      { metadata: { uid: 'o', deletionTimestamp: 't', finalizers: ['example.com/x'] } },
      'solid',
    ],
    ['being orphaned', { metadata: { uid: 'o', deletionTimestamp: 't', finalizers: ['orphan'] } }, 'solid'],
    ['being deleted in the foreground', { metadata: { uid: 'o', deletionTimestamp: 't', finalizers: ['foregroundDeletion'] } }, 'waiting'],
  ];
  for (const [why, owner, want] of cases) assert.equal(classifyOwner(ref('o'), owner), want, why);
});

test('decideForDependent, as kube attemptToDeleteItem decides', () => {
  const none = { count: 0, anyDeletingDependents: false };
  const cases: [string, KubeObject, [string, RefClass][], { count: number; anyDeletingDependents: boolean }, unknown][] = [
    ['no owners', owned([]), [], none, { type: 'none' }],
    [
      'all owners solid',
      owned(['a', 'b']),
      [
        ['a', 'solid'],
        ['b', 'solid'],
      ],
      none,
      { type: 'none' },
    ],
    [
      'one owner gone, one left: drop the gone reference only',
      owned(['a', 'b']),
      [
        ['a', 'dangling'],
        ['b', 'solid'],
      ],
      none,
      { type: 'removeRefs', uids: ['a'] },
    ],
    [
      'a solid owner and a foreground one: drop the foreground reference',
      owned(['a', 'b']),
      [
        ['a', 'waiting'],
        ['b', 'solid'],
      ],
      none,
      { type: 'removeRefs', uids: ['a'] },
    ],
    [
      'every owner gone: background delete',
      owned(['a', 'b']),
      [
        ['a', 'dangling'],
        ['b', 'dangling'],
      ],
      none,
      { type: 'delete', policy: 'Background', unblock: false },
    ],
    [
      'owner in foreground, no dependents of our own: background delete',
      owned(['a']),
      [['a', 'waiting']],
      none,
      { type: 'delete', policy: 'Background', unblock: false },
    ],
    [
      'owner in foreground and dependents of our own: foreground delete',
      owned(['a']),
      [['a', 'waiting']],
      { count: 3, anyDeletingDependents: false },
      { type: 'delete', policy: 'Foreground', unblock: false },
    ],
    [
      'foreground cycle: unblock, then foreground delete',
      owned(['a']),
      [['a', 'waiting']],
      { count: 1, anyDeletingDependents: true },
      { type: 'delete', policy: 'Foreground', unblock: true },
    ],
    [
      'gone owners and an orphan finalizer already there: honour it',
      owned(['a'], ['orphan']),
      [['a', 'dangling']],
      none,
      { type: 'delete', policy: 'Orphan', unblock: false },
    ],
    [
      'gone owners and a foreground finalizer already there: honour it',
      owned(['a'], ['foregroundDeletion']),
      [['a', 'dangling']],
      none,
      { type: 'delete', policy: 'Foreground', unblock: false },
    ],
  ];
  for (const [why, latest, classes, deps, want] of cases) assert.deepEqual(decideForDependent(latest, new Map(classes), deps), want, why);
});

test('the owner-reference patches apply as kube applies them', () => {
  const schema = mergeSchemaFor('Pod');
  const pod = { metadata: { name: 'p', uid: 'p-uid', ownerReferences: [ref('a'), ref('b')] } };
  const dropped = applyStrategicMergePatch(structuredClone(pod), deleteOwnerRefsPatch('p-uid', ['a']), schema);
  assert.deepEqual(
    dropped.metadata.ownerReferences.map((r) => r.uid),
    ['b'],
  );
  const unblocked = applyStrategicMergePatch(structuredClone(pod), unblockOwnerRefsPatch(pod), schema);
  assert.deepEqual(unblocked.metadata.ownerReferences, [ref('a', false), ref('b', false)]);
});

test('removeFinalizerPatch removes one finalizer and only if nothing changed meanwhile', () => {
  const obj = { metadata: { uid: 'u', finalizers: ['example.com/keep', 'foregroundDeletion'] } };
  assert.equal(removeFinalizerPatch(obj, 'orphan'), undefined);
  const patch = removeFinalizerPatch(obj, 'foregroundDeletion')!;
  assert.deepEqual(applyJsonPatch(structuredClone(obj), patch).metadata.finalizers, ['example.com/keep']);
  const changed = { metadata: { uid: 'u', finalizers: ['example.com/keep', 'foregroundDeletion', 'example.com/new'] } };
  assert.throws(() => applyJsonPatch(changed, patch), /test failed/);
  const last = applyJsonPatch(
    { metadata: { uid: 'u', finalizers: ['orphan'] } },
    removeFinalizerPatch({ metadata: { uid: 'u', finalizers: ['orphan'] } }, 'orphan'),
  );
  assert.equal('finalizers' in last.metadata, false, 'the last finalizer removed takes the field');
  const recreated = { metadata: { uid: 'other', finalizers: obj.metadata.finalizers } };
  assert.throws(() => applyJsonPatch(recreated, patch), /test failed/);
});

test('groupOf', () => {
  assert.equal(groupOf('v1'), '');
  assert.equal(groupOf('apps/v1'), 'apps');
  assert.equal(groupOf('rbac.authorization.k8s.io/v1'), 'rbac.authorization.k8s.io');
});
