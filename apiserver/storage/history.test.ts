import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { StatusError } from '../../shared/api/errors.ts';
import { FaultyBackend, noSpaceError } from './faulty-backend.ts';
import { LevelBackend } from './level-backend.ts';
import { MemoryBackend } from './memory-backend.ts';
import { Store } from './store.ts';
import type { HistoryPolicy, PersistenceBackend, WriteRecord } from './types.ts';
import type { WatchEvent } from './watch-hub.ts';

const B = '/registry/core/configmaps';
const keyOf = (name: string) => `${B}/default/${name}`;
const cm = (name: string, data: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { v: data },
});
const put = (store: Store, name: string, data: string, writer?: WriteRecord) => store.txn(keyOf(name), () => cm(name, data), { writer });
const del = (store: Store, name: string, writer?: WriteRecord) => store.txn(keyOf(name), () => null, { writer });
const dataOf = (json: string | undefined) => (json === undefined ? undefined : (JSON.parse(json).data.v as string));
const watchFrom = (store: Store, rev: number, into: WatchEvent[] = []) =>
  store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (e) => into.push(...e) }, rev);
const isGone = (err: unknown) => err instanceof StatusError && err.code === 410;

/** Runs `fn` with a fresh directory for a LevelDB store, removed afterwards whatever happens. */
async function withDataDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'ksim-history-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs `fn` once on a MemoryBackend and once on a LevelBackend. */
async function onEachBackend(fn: (backend: PersistenceBackend) => Promise<void>): Promise<void> {
  await fn(new MemoryBackend());
  await withDataDir(async (dir) => fn(await LevelBackend.open(dir)));
}

test('history survives watch-window compaction and a restart; a watch from a compacted revision still gets 410', async () => {
  await withDataDir(async (dir) => {
    const kubectl: WriteRecord = {
      user: 'admin',
      groups: ['system:masters'],
      userAgent: 'kubectl/v1.31',
      verb: 'create',
      fieldManager: 'kubectl-create',
    };
    let store = await Store.open(await LevelBackend.open(dir));
    await put(store, 'a', 'v1', kubectl);
    await put(store, 'a', 'v2', {
      user: 'system:serviceaccount:kube-system:x',
      verb: 'update',
      subresource: 'status',
      cause: { controller: 'test', key: 'default/a' },
    });
    await put(store, 'b', 'other');
    await put(store, 'a', 'v3');
    const last = await del(store, 'a', { user: 'admin', verb: 'delete' });
    await store.compact(last.rev);
    assert.throws(() => watchFrom(store, 1), isGone);
    const before = await store.history.revisionsOf(keyOf('a'));
    assert.deepEqual(
      before.items.map((r) => [r.rev, r.type]),
      [
        [1, 'ADDED'],
        [2, 'MODIFIED'],
        [4, 'MODIFIED'],
        [5, 'DELETED'],
      ],
    );
    await store.close();

    store = await Store.open(await LevelBackend.open(dir));
    assert.throws(() => watchFrom(store, 1), isGone);
    const after = await store.history.revisionsOf(keyOf('a'));
    assert.deepEqual(after, before);
    assert.deepEqual(after.items[0].writer, kubectl);
    assert.equal(after.items[1].writer?.subresource, 'status');
    assert.equal(after.items[2].writer, undefined);
    assert.equal(dataOf((await store.history.objectAt(keyOf('a'), 2))?.json), 'v2');
    assert.equal(await store.history.objectAt(keyOf('a'), 5), undefined);
    // The watch window and the live objects are as before.
    assert.equal(store.get(keyOf('a')), undefined);
    assert.equal(dataOf(store.get(keyOf('b'))?.json), 'other');
    await store.close();
  });
});

test('objectAt: undefined before the create, each version in between, readable after the delete', async () => {
  await onEachBackend(async (backend) => {
    const store = await Store.open(backend);
    await put(store, 'other', 'x'); // rev 1
    await put(store, 'a', 'one'); // rev 2
    await put(store, 'other', 'y'); // rev 3
    await put(store, 'a', 'two'); // rev 4
    await del(store, 'a'); // rev 5
    await put(store, 'a', 'again'); // rev 6
    const h = store.history;
    assert.equal(await h.objectAt(keyOf('a'), 1), undefined);
    const at2 = await h.objectAt(keyOf('a'), 2);
    assert.equal(at2?.rev, 2);
    assert.equal(at2?.type, 'ADDED');
    assert.equal(JSON.parse(at2.json).metadata.resourceVersion, '2');
    assert.equal(dataOf((await h.objectAt(keyOf('a'), 3))?.json), 'one');
    assert.equal(dataOf((await h.objectAt(keyOf('a'), 4))?.json), 'two');
    assert.equal(await h.objectAt(keyOf('a'), 5), undefined);
    assert.equal(dataOf((await h.objectAt(keyOf('a'), 6))?.json), 'again');
    assert.equal(await h.objectAt(keyOf('a'), 7), undefined, 'a revision not yet written');
    assert.equal(await h.objectAt(keyOf('never'), 6), undefined);
    await store.close();
  });
});

test('retention by count trims only history: the watch window still replays every event', async () => {
  await onEachBackend(async (backend) => {
    const store = await Store.open(backend, { history: { maxRevisionsPerObject: 3 } });
    for (let i = 1; i <= 10; i++) await put(store, 'a', `v${i}`);
    await put(store, 'b', 'only');
    await store.trimHistory();
    const revs = await store.history.revisionsOf(keyOf('a'));
    assert.deepEqual(
      revs.items.map((r) => r.rev),
      [8, 9, 10],
    );
    assert.equal((await store.history.revisionsOf(keyOf('b'))).items.length, 1);
    const replay: WatchEvent[] = [];
    watchFrom(store, 0, replay);
    assert.equal(replay.length, 11);
    await assert.rejects(store.history.objectAt(keyOf('a'), 5), isGone);
    assert.equal(dataOf((await store.history.objectAt(keyOf('a'), 8))?.json), 'v8');
    assert.equal(dataOf((await store.history.objectAt(keyOf('a'), 11))?.json), 'v10');
    await store.close();
  });
});

test('retention by age drops old revisions across the cluster and leaves the window alone', async () => {
  await onEachBackend(async (backend) => {
    let now = 1_000_000;
    const store = await Store.open(backend, { history: { maxAgeMs: 60_000 }, now: () => now });
    await put(store, 'a', 'old');
    await put(store, 'b', 'old');
    now += 120_000;
    await put(store, 'a', 'new');
    await store.trimHistory();
    // a's first version is gone; b's is its current one, which retention keeps.
    assert.deepEqual(
      (await store.history.changesBetween(0, store.revision)).items.map((c) => [c.rev, c.key, c.at]),
      [
        [2, keyOf('b'), 1_000_000],
        [3, keyOf('a'), 1_120_000],
      ],
    );
    assert.equal((await store.history.revisionsOf(keyOf('a'))).items.length, 1);
    assert.equal(dataOf((await store.history.objectAt(keyOf('b'), 3))?.json), 'old');
    // Once b changes, its old version is history like any other, and the next trim drops it.
    await put(store, 'b', 'newer');
    await store.trimHistory();
    assert.deepEqual(
      (await store.history.changesBetween(0, store.revision)).items.map((c) => [c.rev, c.key]),
      [
        [3, keyOf('a')],
        [4, keyOf('b')],
      ],
    );
    const replay: WatchEvent[] = [];
    watchFrom(store, 0, replay);
    assert.equal(replay.length, 4);
    await store.close();
  });
});

test('retention by bytes drops the oldest revisions first', async () => {
  await onEachBackend(async (backend) => {
    const policy: HistoryPolicy = { maxBytes: 3_000 };
    const store = await Store.open(backend, { history: policy });
    for (let i = 0; i < 20; i++) await put(store, `o${i % 4}`, `${i}`.padEnd(400, '.'));
    await store.trimHistory();
    const kept = (await store.history.changesBetween(0, store.revision)).items.map((c) => c.rev);
    assert.ok(kept.length >= 2 && kept.length < 10, `kept ${kept.length}`);
    assert.deepEqual(
      kept,
      Array.from({ length: kept.length }, (_, i) => 21 - kept.length + i),
      'the newest are kept',
    );
    await store.close();
  });
});

test('changesBetween pages through (from, to] in revision order, with writers and objects', async () => {
  await onEachBackend(async (backend) => {
    const store = await Store.open(backend);
    for (let i = 1; i <= 12; i++) await put(store, `o${i % 3}`, `${i}`, { user: `u${i}`, verb: 'update' });
    const seen: number[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await store.history.changesBetween(2, 11, { limit: 4, continue: token, objects: true });
      for (const c of page.items) {
        assert.equal(c.writer?.user, `u${c.rev}`);
        assert.equal(dataOf(c.json), String(c.rev));
        assert.equal(c.key, keyOf(`o${c.rev % 3}`));
      }
      seen.push(...page.items.map((c) => c.rev));
      token = page.continue;
      pages++;
    } while (token);
    assert.deepEqual(seen, [3, 4, 5, 6, 7, 8, 9, 10, 11]);
    assert.equal(pages, 3);
    await assert.rejects(store.history.changesBetween(0, 5, { continue: 'nope' }), (err) => err instanceof StatusError && err.code === 400);
    const one = await store.history.revisionsOf(keyOf('o1'), { limit: 2 });
    assert.deepEqual(
      one.items.map((r) => r.rev),
      [1, 4],
    );
    const next = await store.history.revisionsOf(keyOf('o1'), { limit: 2, continue: one.continue });
    assert.deepEqual(
      next.items.map((r) => r.rev),
      [7, 10],
    );
    assert.equal(next.continue, undefined);
    await store.close();
  });
});

test('a commit that fails after reaching the disk leaves no history behind', async () => {
  await withDataDir(async (dir) => {
    const faulty = new FaultyBackend(await LevelBackend.open(dir));
    const store = await Store.open(faulty, { failure: { retryIntervalMs: 10 } });
    await put(store, 'a', 'one');
    faulty.fail(noSpaceError, 'after-write');
    await assert.rejects(put(store, 'a', 'lost'));
    faulty.heal();
    // The retry timer does not hold the event loop open: poll until the store has recovered.
    while (!store.health.ok) await new Promise((r) => setTimeout(r, 5));
    await put(store, 'a', 'two');
    assert.deepEqual(
      (await store.history.revisionsOf(keyOf('a'))).items.map((r) => r.rev),
      [1, 2],
    );
    assert.equal(dataOf((await store.history.objectAt(keyOf('a'), 2))?.json), 'two');
    await store.close();
  });
});

test('history: false keeps no revisions', async () => {
  const store = await Store.open(new MemoryBackend(), { history: false });
  await put(store, 'a', 'one');
  assert.deepEqual((await store.history.revisionsOf(keyOf('a'))).items, []);
  await store.close();
});

test('reading one object’s 1,000 revisions from LevelDB takes under 100 ms', async (t) => {
  await withDataDir(async (dir) => {
    const store = await Store.open(await LevelBackend.open(dir));
    const writer: WriteRecord = { user: 'system:serviceaccount:kube-system:deployment-controller', verb: 'update', subresource: 'status' };
    // 1,000 revisions of one object among 4,000 writes to others, in batches as a busy apiserver commits them.
    for (let round = 0; round < 10; round++) {
      const writes = [];
      for (let i = 0; i < 100; i++) {
        writes.push(put(store, 'hot', `${round}-${i}`.padEnd(1500, '.'), writer));
        for (let j = 0; j < 4; j++) writes.push(put(store, `cold-${round}-${i}-${j}`, 'x'.repeat(1500)));
      }
      await Promise.all(writes);
    }
    // The median of three reads, so that one pause of a busy machine does not decide.
    const times: number[] = [];
    let page!: Awaited<ReturnType<typeof store.history.revisionsOf>>;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      page = await store.history.revisionsOf(keyOf('hot'), { limit: 1000 });
      times.push(performance.now() - t0);
    }
    const t1 = performance.now();
    const mid = await store.history.objectAt(keyOf('hot'), page.items[500].rev);
    const atMs = performance.now() - t1;
    assert.equal(page.items.length, 1000);
    assert.equal(page.items[999].writer?.subresource, 'status');
    assert.equal(dataOf(mid?.json)?.startsWith('5-0'), true);
    const median = [...times].sort((a, b) => a - b)[1];
    t.diagnostic(`revisionsOf 1,000 revisions: ${times.map((ms) => ms.toFixed(1)).join(', ')} ms; objectAt: ${atMs.toFixed(2)} ms`);
    assert.ok(median < 100, `took ${median} ms`);
    await store.close();
  });
});

test('changesBetween with keyPrefixes keeps only those keys, in full pages, across scan batches', async () => {
  await onEachBackend(async (backend) => {
    const store = await Store.open(backend);
    // 2,500 writes, one in ten to "keep-…": the filter spans several of the store's scan batches.
    for (let i = 1; i <= 2500; i++) await put(store, i % 10 === 0 ? `keep-${i}` : `skip-${i % 7}`, `${i}`);
    const seen: number[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await store.history.changesBetween(0, store.revision, { limit: 100, continue: token, keyPrefixes: [keyOf('keep-')] });
      for (const c of page.items) assert.ok(c.key.startsWith(keyOf('keep-')), c.key);
      if (page.continue) assert.equal(page.items.length, 100);
      seen.push(...page.items.map((c) => c.rev));
      token = page.continue;
      pages++;
    } while (token);
    assert.equal(seen.length, 250);
    assert.deepEqual(
      seen,
      [...seen].sort((a, b) => a - b),
    );
    assert.ok(pages <= 4, `${pages} pages`);
  });
});

test('LevelDB keeps each version once: the live one in its object record, a replaced one beside its revision', async () => {
  await withDataDir(async (dir) => {
    // LevelDB's write-ahead log holds each put as written (uncompressed): count a version's JSON there.
    const onDisk = (text: string) =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.log'))
        .reduce((n, f) => n + readFileSync(join(dir, f), 'latin1').split(text).length - 1, 0);
    let store = await Store.open(await LevelBackend.open(dir));
    await put(store, 'a', 'first-version');
    assert.equal(onDisk('first-version'), 1, 'a new object: its record only, not a second copy for its revision');
    await put(store, 'other', 'x');
    await put(store, 'a', 'second-version');
    await store.close();
    // Each state is read back after a restart: the replaced version, the live one, and both after a delete.
    store = await Store.open(await LevelBackend.open(dir));
    const at = async (rev: number) => dataOf((await store.history.objectAt(keyOf('a'), rev))?.json);
    assert.equal(await at(1), 'first-version');
    assert.equal(await at(3), 'second-version');
    const withObjects = async () =>
      (await store.history.changesBetween(0, store.revision, { objects: true })).items.map((c) => [c.rev, c.type, dataOf(c.json)]);
    assert.deepEqual(await withObjects(), [
      [1, 'ADDED', 'first-version'],
      [2, 'ADDED', 'x'],
      [3, 'MODIFIED', 'second-version'],
    ]);
    await del(store, 'a');
    assert.equal(await at(3), 'second-version');
    assert.deepEqual((await withObjects()).slice(-2), [
      [3, 'MODIFIED', 'second-version'],
      [4, 'DELETED', 'second-version'],
    ]);
    await store.close();
  });
});
