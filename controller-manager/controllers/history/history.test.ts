// Tables for the shared ControllerRevision history: Go's JSON bytes, kube's
// hash and names, equality, ordering, revision numbers, truncation, and the
// create loop's collision handling against a fake client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControllerRevision } from 'kubernetes-types/apps/v1.js';
import { StatusError } from '../../../shared/api/errors.ts';
import type { KubeClient } from '../../../shared/client/kube-client.ts';
import {
  REVISION_DATA_HASH_LABEL,
  controlledRevisions,
  controllerRevisionName,
  createControllerRevision,
  equalRevision,
  fnv1,
  findEqualRevisions,
  goJson,
  hashControllerRevision,
  listControllerRevisions,
  maxRevision,
  newControllerRevision,
  nextRevision,
  revisionsToTruncate,
  safeEncode,
  sortControllerRevisions,
  templatePatch,
} from './history.ts';

const parent = { metadata: { name: 'web', namespace: 'default', uid: 'u-1' } };
const kind = { apiVersion: 'apps/v1', kind: 'DaemonSet' };

function rev(
  name: string,
  revision: number,
  extra: Partial<ControllerRevision> = {},
  created = '2026-01-01T00:00:00Z',
): ControllerRevision {
  return {
    metadata: { name, namespace: 'default', creationTimestamp: created, labels: {}, ...extra.metadata },
    revision,
    data: extra.data,
  };
}

test('goJson writes what Go json.Marshal writes for decoded JSON', () => {
  const cases: [unknown, string][] = [
    [{ b: 1, a: [true, null, 'x'] }, '{"a":[true,null,"x"],"b":1}'],
    [{ s: '<a&b>' }, '{"s":"\\u003ca\\u0026b\\u003e"}'],
    [{ n: 1.5, z: {} }, '{"n":1.5,"z":{}}'],
    [{ u: undefined, k: 'v' }, '{"k":"v"}'],
    ['line\nbreak', '"line\\nbreak"'],
  ];
  for (const [v, want] of cases) assert.equal(goJson(v), want);
});

test('templatePatch replaces the template, with the metadata Go always writes', () => {
  const p = templatePatch({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const want =
    '{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx","name":"c"}]}}}}';
  assert.equal(goJson(p), want);
  // Sent as it is, the object serializes to Go's bytes too (its keys are in sorted order).
  assert.equal(JSON.stringify(p), want);
  assert.equal(goJson(templatePatch(undefined)), '{"spec":{"template":{"$patch":"replace","metadata":{}}}}');
});

test('safeEncode maps each digit onto the alphabet without vowels', () => {
  // '0' is 48, 48 % 27 = 21 -> '4'; '9' is 57 % 27 = 3 -> 'f'
  assert.equal(safeEncode('09'), '4f');
});

test('fnv1 is FNV-1 32 (the published vector for "a")', () => {
  assert.equal(fnv1(new TextEncoder().encode('a')), 0x050c5d7e);
});

test('hashControllerRevision is FNV-1 32 of the data bytes, then the probe', () => {
  // FNV-1 32 of the empty input is the offset basis 2166136261.
  assert.equal(hashControllerRevision({}), safeEncode('2166136261'));
  const a = hashControllerRevision({ data: { x: 1 } });
  assert.equal(a, hashControllerRevision({ data: { x: 1 } }));
  assert.notEqual(a, hashControllerRevision({ data: { x: 2 } }));
  assert.notEqual(a, hashControllerRevision({ data: { x: 1 } }, 1));
  assert.equal(hashControllerRevision({ data: { x: 1 } }, 0), hashControllerRevision({ data: { x: 1 } }, 0));
});

test('controllerRevisionName cuts a long prefix to 223 characters', () => {
  assert.equal(controllerRevisionName('web', 'abc'), 'web-abc');
  assert.equal(controllerRevisionName('x'.repeat(300), 'h').length, 225);
});

test('newControllerRevision is owned, labelled and named by its hash', () => {
  const r = newControllerRevision(parent, kind, { app: 'web' }, { spec: { a: 1 } }, 3, 0);
  const hash = hashControllerRevision({ data: { spec: { a: 1 } } }, 0);
  assert.equal(r.metadata!.name, `web-${hash}`);
  assert.deepEqual(r.metadata!.labels, { app: 'web', 'controller.kubernetes.io/hash': hash });
  assert.equal(r.revision, 3);
  assert.deepEqual(r.metadata!.ownerReferences, [
    { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'web', uid: 'u-1', controller: true, blockOwnerDeletion: true },
  ]);
});

test('listing keeps owned and orphaned revisions that select, controlled keeps owned only', () => {
  const owned = newControllerRevision(parent, kind, { app: 'web' }, { a: 1 }, 1);
  const other = newControllerRevision({ metadata: { ...parent.metadata, uid: 'u-2' } }, kind, { app: 'web' }, { a: 2 }, 1);
  const orphan = rev('web-orphan', 1, { metadata: { labels: { app: 'web' } } });
  const unrelated = rev('db-1', 1, { metadata: { labels: { app: 'db' } } });
  const elsewhere = { ...orphan, metadata: { ...orphan.metadata, namespace: 'other' } };
  const selects = (r: ControllerRevision) => r.metadata?.labels?.app === 'web';
  const names = (rs: ControllerRevision[]) => rs.map((r) => r.metadata!.name);
  assert.deepEqual(names(listControllerRevisions([owned, other, orphan, unrelated, elsewhere], parent, selects)), [
    owned.metadata!.name,
    'web-orphan',
  ]);
  assert.deepEqual(names(controlledRevisions([owned, other, orphan], parent)), [owned.metadata!.name]);
});

test('sort by revision, then creation time, then name', () => {
  const rs = [
    rev('c', 2),
    rev('b', 1, {}, '2026-01-02T00:00:00Z'),
    rev('a', 1, {}, '2026-01-02T00:00:00Z'),
    rev('z', 1, {}, '2026-01-01T00:00:00Z'),
  ];
  assert.deepEqual(
    sortControllerRevisions(rs).map((r) => r.metadata!.name),
    ['z', 'a', 'b', 'c'],
  );
});

test('equalRevision: differing hash labels differ, else data decides', () => {
  const cases: [ControllerRevision | undefined, ControllerRevision | undefined, boolean][] = [
    [undefined, undefined, true],
    [rev('a', 1), undefined, false],
    [rev('a', 1, { data: { x: 1 } }), rev('b', 2, { data: { x: 1 } }), true],
    [rev('a', 1, { data: { x: 1, y: 2 } }), rev('b', 2, { data: { y: 2, x: 1 } }), true],
    [rev('a', 1, { data: { x: 1 } }), rev('b', 2, { data: { x: 2 } }), false],
    [
      rev('a', 1, { data: { x: 1 }, metadata: { labels: { [REVISION_DATA_HASH_LABEL]: 'h1' } } }),
      rev('b', 1, { data: { x: 1 }, metadata: { labels: { [REVISION_DATA_HASH_LABEL]: 'h2' } } }),
      false,
    ],
  ];
  for (const [a, b, want] of cases) assert.equal(equalRevision(a, b), want, `${a?.metadata?.name} ${b?.metadata?.name}`);
  const all = [rev('a', 1, { data: { x: 1 } }), rev('b', 2, { data: { x: 2 } }), rev('c', 3, { data: { x: 1 } })];
  assert.deepEqual(
    findEqualRevisions(all, rev('n', 0, { data: { x: 1 } })).map((r) => r.metadata!.name),
    ['a', 'c'],
  );
});

test('revision numbers', () => {
  assert.equal(nextRevision([]), 1);
  assert.equal(maxRevision([]), 0);
  assert.equal(nextRevision([rev('a', 4), rev('b', 2)]), 5);
  assert.equal(maxRevision([rev('a', 4), rev('b', 7)]), 7);
});

test('revisionsToTruncate deletes the oldest non-live revisions beyond the limit', () => {
  const rs = [rev('r5', 5), rev('r1', 1), rev('r3', 3), rev('r2', 2), rev('r4', 4)];
  const cases: [Set<string>, number, string[]][] = [
    [new Set(['r5']), 10, []],
    [new Set(['r5']), 4, []],
    [new Set(['r5']), 2, ['r1', 'r2']],
    [new Set(['r5', 'r1']), 2, ['r2']],
    [new Set(['r5', 'r4']), 0, ['r1', 'r2', 'r3']],
  ];
  for (const [live, limit, want] of cases) {
    assert.deepEqual(
      revisionsToTruncate(rs, live, limit).map((r) => r.metadata!.name),
      want,
      `limit ${limit}`,
    );
  }
});

/** A client that stores creates by name, enough for the collision loop. */
function fakeClient(existing: ControllerRevision[]) {
  const store = new Map(existing.map((r) => [r.metadata!.name!, r]));
  const client = {
    create: (_rt: unknown, _ns: string, obj: ControllerRevision) => {
      if (store.has(obj.metadata!.name!)) return Promise.reject(new StatusError(409, 'AlreadyExists', 'exists'));
      store.set(obj.metadata!.name!, obj);
      return Promise.resolve(obj);
    },
    get: (_rt: unknown, _ns: string, name: string) => Promise.resolve(store.get(name)!),
  };
  return { client: client as unknown as KubeClient, store };
}

test('createControllerRevision: a free name, equal data under the name, other data under the name', async () => {
  const r = newControllerRevision(parent, kind, { app: 'web' }, { x: 1 }, 1, 0);
  const fresh = fakeClient([]);
  const made = await createControllerRevision(fresh.client, parent, r, 0);
  assert.equal(made.collisionCount, 0);
  assert.equal(made.revision.metadata!.name, r.metadata!.name);

  const same = fakeClient([structuredClone(r)]);
  assert.equal((await createControllerRevision(same.client, parent, r, 0)).collisionCount, 0);
  assert.equal(same.store.size, 1);

  const squatter = { ...structuredClone(r), data: { x: 'other' } };
  const taken = fakeClient([squatter]);
  const got = await createControllerRevision(taken.client, parent, r, 0);
  assert.equal(got.collisionCount, 1);
  assert.equal(got.revision.metadata!.name, controllerRevisionName('web', hashControllerRevision(r, 1)));
  assert.equal(taken.store.size, 2);
});
