import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatusError } from '../../shared/api/errors.ts';
import { LevelBackend } from './level-backend.ts';
import { MemoryBackend } from './memory-backend.ts';
import { Store } from './store.ts';
import type { WatchEvent } from './watch-hub.ts';

const B = '/registry/core/configmaps';
const cm = (ns: string, name: string, labels: Record<string, string> = {}, data = 'x') => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, labels },
  data: { v: data },
});
const put = (store: Store, ns: string, name: string, labels?: Record<string, string>, data?: string) =>
  store.txn(`${B}/${ns}/${name}`, () => cm(ns, name, labels, data));
const del = (store: Store, ns: string, name: string) => store.txn(`${B}/${ns}/${name}`, () => null);
const names = (items: string[]) => items.map((j) => JSON.parse(j).metadata.name);

/** Runs `fn` with a fresh directory for a LevelDB store, removed afterwards whatever happens. */
async function withDataDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ksim-store-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('each write gets the next revision and concurrent writes share one commit', async () => {
  const backend = new MemoryBackend();
  const store = await Store.open(backend);
  const results = await Promise.all([put(store, 'a', 'one'), put(store, 'a', 'two'), put(store, 'b', 'three')]);
  assert.deepEqual(
    results.map((r) => r.rev),
    [1, 2, 3],
  );
  assert.equal(backend.commits, 1);
  assert.equal(store.revision, 3);
  assert.equal(JSON.parse(store.get(`${B}/a/two`)!.json).metadata.resourceVersion, '2');
  await store.close();
});

test('a mutate that throws writes nothing and a no-op keeps the revision', async () => {
  const store = await Store.open(new MemoryBackend());
  await put(store, 'a', 'one');
  await assert.rejects(
    store.txn(`${B}/a/one`, () => {
      throw new Error('refused');
    }),
    /refused/,
  );
  const noop = await store.txn(`${B}/a/one`, () => undefined);
  assert.equal(noop.type, 'NOOP');
  assert.equal(store.revision, 1);
  await store.close();
});

test('a write refused because of an uncommitted write is answered after that write commits', async () => {
  const store = await Store.open(new MemoryBackend());
  await put(store, 'a', 'one');
  const deleting = del(store, 'a', 'one');
  // A second delete of the same object, as a second API for the same objects would send it.
  const again = store.txn(`${B}/a/one`, (cur) => {
    if (!cur) throw new Error('not found');
    return null;
  });
  await assert.rejects(again, /not found/);
  assert.equal(store.get(`${B}/a/one`), undefined, 'after the refusal, reads see the delete it was refused for');
  assert.deepEqual(names(store.list({ bucket: B, keyPrefix: `${B}/` }).items), []);
  assert.equal((await deleting).type, 'DELETED');
  await store.close();
});

test('writes queued behind an uncommitted write see it', async () => {
  const store = await Store.open(new MemoryBackend());
  const first = put(store, 'a', 'one');
  const second = store.txn(`${B}/a/one`, (cur) => {
    assert.equal(cur!.metadata.resourceVersion, '1');
    return { ...cur, data: { v: 'y' } };
  });
  assert.equal((await first).type, 'ADDED');
  assert.equal((await second).type, 'MODIFIED');
  await store.close();
});

test('lists page in key order and can be served at an older revision', async () => {
  const store = await Store.open(new MemoryBackend());
  for (const n of ['c', 'a', 'b', 'd']) await put(store, 'ns', n);
  const first = store.list({ bucket: B, keyPrefix: `${B}/ns/`, limit: 2 });
  assert.deepEqual(names(first.items), ['a', 'b']);
  assert.equal(first.remaining, 2);
  const rev = first.rev;
  await del(store, 'ns', 'c');
  await put(store, 'ns', 'bb');
  await put(store, 'ns', 'd', {}, 'changed');
  const rest = store.list({ bucket: B, keyPrefix: `${B}/ns/`, startAfter: first.lastKey, atRev: rev });
  assert.deepEqual(names(rest.items), ['c', 'd']);
  assert.equal(JSON.parse(rest.items[1]).data.v, 'x');
  const now = store.list({ bucket: B, keyPrefix: `${B}/ns/` });
  assert.deepEqual(names(now.items), ['a', 'b', 'bb', 'd']);
  await store.close();
});

test('watch replays from a revision, then streams, with selector transitions', async () => {
  const store = await Store.open(new MemoryBackend());
  await put(store, 'ns', 'a', { app: 'web' });
  const from = store.revision;
  await put(store, 'ns', 'b', { app: 'web' });
  const seen: WatchEvent[] = [];
  const all: WatchEvent[] = [];
  store.watch(
    { bucket: B, keyPrefix: `${B}/ns/`, matches: (o) => o.metadata.labels?.app === 'web', deliver: (e) => seen.push(...e) },
    from,
  );
  store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (e) => all.push(...e) }, from);
  await put(store, 'ns', 'a', { app: 'db' });
  await put(store, 'ns', 'a', { app: 'web' });
  await del(store, 'ns', 'b');
  assert.deepEqual(
    seen.map((e) => `${e.type}:${JSON.parse(e.json).metadata.name}`),
    ['ADDED:b', 'DELETED:a', 'ADDED:a', 'DELETED:b'],
  );
  assert.deepEqual(
    all.map((e) => e.type),
    ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED'],
  );
  assert.deepEqual(
    all.map((e) => e.rev),
    [2, 3, 4, 5],
  );
  await store.close();
});

test('compaction makes older revisions Gone for watch and list', async () => {
  const store = await Store.open(new MemoryBackend());
  for (let i = 0; i < 5; i++) await put(store, 'ns', `n${i}`);
  await store.compact(3);
  assert.throws(
    () => store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: () => {} }, 2),
    (e: unknown) => e instanceof StatusError && e.code === 410,
  );
  assert.throws(
    () => store.list({ bucket: B, keyPrefix: `${B}/`, atRev: 2 }),
    (e: unknown) => e instanceof StatusError && e.code === 410,
  );
  const events: WatchEvent[] = [];
  store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (e) => events.push(...e) }, 3);
  assert.deepEqual(
    events.map((e) => e.rev),
    [4, 5],
  );
  await store.close();
});

test('a reopened store has every object, the revision and the log window', async () => {
  const backend = new MemoryBackend();
  let store = await Store.open(backend);
  await put(store, 'ns', 'a');
  await put(store, 'ns', 'b');
  await put(store, 'ns', 'a', {}, 'y');
  await store.close();
  store = await Store.open(backend);
  assert.equal(store.revision, 3);
  assert.equal(JSON.parse(store.get(`${B}/ns/a`)!.json).data.v, 'y');
  const events: WatchEvent[] = [];
  store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (e) => events.push(...e) }, 1);
  assert.deepEqual(
    events.map((e) => `${e.type}@${e.rev}`),
    ['ADDED@2', 'MODIFIED@3'],
  );
  assert.equal((await put(store, 'ns', 'c')).rev, 4);
  await store.close();
});

test('a restart loads only the newest events back; older resourceVersions are Gone, as after a kube apiserver restart', async () => {
  const backend = new MemoryBackend();
  let store = await Store.open(backend);
  for (let i = 0; i < 5; i++) await put(store, 'ns', `n${i}`);
  await store.close();
  store = await Store.open(backend, { compaction: { restoreEvents: 2 } });
  assert.throws(
    () => store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: () => {} }, 1),
    (e: unknown) => e instanceof StatusError && e.code === 410,
  );
  const events: WatchEvent[] = [];
  store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (e) => events.push(...e) }, 3);
  assert.deepEqual(
    events.map((e) => e.rev),
    [4, 5],
  );
  assert.equal(store.objectCount(B), 5);
  await store.close();
});

test('a store reopened on LevelDB loads more objects than one read batch, in key order, with its log window', () =>
  withDataDir(async (dir) => {
    let store = await Store.open(await LevelBackend.open(dir));
    // Created out of key order, some deleted and one rewritten: the reload must still list them sorted.
    const order = Array.from({ length: 2500 }, (_, i) => (i * 7919) % 2500);
    await Promise.all(order.map((i) => put(store, `ns-${i % 3}`, `cm-${String(i).padStart(4, '0')}`)));
    await Promise.all([del(store, 'ns-0', 'cm-0000'), del(store, 'ns-1', 'cm-1000'), put(store, 'ns-2', 'cm-0002', {}, 'y')]);
    const before = store.list({ bucket: B, keyPrefix: `${B}/` }).items;
    const rev = store.revision;
    await store.close();

    store = await Store.open(await LevelBackend.open(dir), { compaction: { restoreEvents: 1200 } });
    assert.equal(store.revision, rev);
    assert.equal(store.objectCount(B), 2498);
    const after = store.list({ bucket: B, keyPrefix: `${B}/` }).items;
    assert.deepEqual(after, before);
    const keys = after.map((j) => `${JSON.parse(j).metadata.namespace}/${JSON.parse(j).metadata.name}`);
    assert.deepEqual(keys, [...keys].sort());
    assert.equal(JSON.parse(store.get(`${B}/ns-2/cm-0002`)!.json).data.v, 'y');
    const page = store.list({ bucket: B, keyPrefix: `${B}/ns-1/`, limit: 500 });
    assert.equal(page.items.length, 500);
    assert.equal(page.remaining, 832 - 500); // 833 in ns-1, one deleted
    const events: WatchEvent[] = [];
    store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (e) => events.push(...e) }, rev - 1200);
    assert.equal(events.length, 1200);
    assert.deepEqual(
      events.slice(-3).map((e) => e.type),
      ['DELETED', 'DELETED', 'MODIFIED'],
    );
    assert.equal(JSON.parse(events.at(-1)!.json).metadata.name, 'cm-0002');
    assert.throws(
      () => store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: () => {} }, rev - 1201),
      (e: unknown) => e instanceof StatusError && e.code === 410,
    );
    await store.close();
  }));

test('on LevelDB every version replayed after a restart has its own JSON, whether it was created, replaced in the same batch or later', () =>
  withDataDir(async (dir) => {
    let store = await Store.open(await LevelBackend.open(dir));
    await put(store, 'ns', 'a', {}, 'a1');
    // Created and replaced in one commit: the replaced version's record is rewritten in that same batch.
    await Promise.all([put(store, 'ns', 'b', {}, 'b1'), put(store, 'ns', 'b', {}, 'b2'), put(store, 'ns', 'a', {}, 'a2')]);
    await del(store, 'ns', 'a');
    await put(store, 'ns', 'c', {}, 'c1');
    await store.close();

    store = await Store.open(await LevelBackend.open(dir));
    const events: WatchEvent[] = [];
    store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (e) => events.push(...e) }, 0);
    const seen = events.map(
      (e) => `${e.type} ${JSON.parse(e.json).metadata.name}=${JSON.parse(e.json).data.v}@${JSON.parse(e.json).metadata.resourceVersion}`,
    );
    assert.deepEqual(seen, ['ADDED a=a1@1', 'ADDED b=b1@2', 'MODIFIED b=b2@3', 'MODIFIED a=a2@4', 'DELETED a=a2@5', 'ADDED c=c1@6']);
    await store.close();
  }));

test('on LevelDB a version replaced after a restart had dropped its event starts the next restart window after it', () =>
  withDataDir(async (dir) => {
    let store = await Store.open(await LevelBackend.open(dir));
    await put(store, 'ns', 'a', {}, 'a1');
    await put(store, 'ns', 'b', {}, 'b1');
    await store.close();
    // Nothing of the log comes back into memory, so replacing a@1 cannot copy its JSON into its record.
    store = await Store.open(await LevelBackend.open(dir), { compaction: { restoreEvents: 0 } });
    await put(store, 'ns', 'a', {}, 'a2');
    await store.close();

    store = await Store.open(await LevelBackend.open(dir));
    assert.throws(
      () => store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: () => {} }, 0),
      (e: unknown) => e instanceof StatusError && e.code === 410,
    );
    const events: WatchEvent[] = [];
    store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (e) => events.push(...e) }, 1);
    assert.deepEqual(
      events.map((e) => `${e.type}@${e.rev}`),
      ['ADDED@2', 'MODIFIED@3'],
    );
    assert.equal(JSON.parse(events[1].json).data.v, 'a2');
    assert.deepEqual(names(store.list({ bucket: B, keyPrefix: `${B}/` }).items), ['a', 'b']);
    await store.close();
  }));

test('a write an observer follows learns how many watchers its event reached; others are not counted', async () => {
  const store = await Store.open(new MemoryBackend());
  const outcomes: { watchers?: number }[] = [];
  store.observeWrites((key) => (key.endsWith('/followed') ? ({ result }) => outcomes.push({ watchers: result?.watchers }) : undefined));
  const stops = [
    store.watch({ bucket: B, keyPrefix: `${B}/a/`, deliver: () => {} }, 0),
    store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: () => {} }, 0),
    store.watch({ bucket: B, keyPrefix: `${B}/b/`, deliver: () => {} }, 0),
  ];
  const [followed, other] = await Promise.all([put(store, 'a', 'followed'), put(store, 'a', 'other')]);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(outcomes, [{ watchers: 2 }]);
  assert.equal(followed.watchers, 2);
  assert.equal(other.watchers, undefined);
  for (const stop of stops) stop();
  await store.close();
});

test('each committed write reports its delay from its sequencing to its commit; a no-op reports none', async () => {
  let clock = 1_000;
  const backend = new MemoryBackend();
  const commit = backend.commit.bind(backend);
  // The durable write takes 40 ms of the store's clock.
  backend.commit = async (ops, rev) => {
    clock += 40;
    return commit(ops, rev);
  };
  const store = await Store.open(backend, { now: () => clock });
  const delays: number[] = [];
  store.observeCommitDelays((ms) => delays.push(ms));
  const first = put(store, 'a', 'one');
  clock += 5;
  const second = put(store, 'a', 'two');
  await Promise.all([first, second]);
  assert.deepEqual(delays, [45, 40]);
  await store.txn(`${B}/a/one`, () => undefined);
  assert.equal(delays.length, 2);
  await store.close();
});
