// The store on a real LevelDB when its disk fills up and space returns: a
// small tmpfs (root only; skipped with the reason when it cannot be mounted,
// store-faults.test.ts covers the same logic with an injected failure), and
// the undo of a batch that reached the disk although its commit failed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatusError } from '../../shared/api/errors.ts';
import { mountTmpfs, type Tmpfs } from '../../test/helpers/tmpfs.ts';
import { FaultyBackend, noSpaceError } from './faulty-backend.ts';
import { LevelBackend } from './level-backend.ts';
import { StorageOpenError } from './open-failure.ts';
import { Store } from './store.ts';

const B = '/registry/core/configmaps';
const key = (name: string) => `${B}/default/${name}`;
const cm = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { pad: 'p'.repeat(2000) },
});

async function withTmpfs(t: { skip(msg: string): void }, size: number, fn: (fs: Tmpfs) => Promise<void>): Promise<void> {
  const fs = await mountTmpfs(size);
  if ('unavailable' in fs) {
    t.skip(fs.unavailable);
    return;
  }
  try {
    await fn(fs);
  } finally {
    fs.unmount();
  }
}

const until = async (cond: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

test("a full disk refuses writes with kube's Status, reads go on, writes resume when space returns, and a restart finds exactly what was acknowledged", async (t) => {
  await withTmpfs(t, 8 * 1024 * 1024, async (disk) => {
    const dir = join(disk.dir, 'db');
    let store = await Store.open(await LevelBackend.open(dir), { failure: { retryIntervalMs: 50 } });
    const acked = new Map<string, number>();
    for (let i = 0; i < 20; i++) acked.set(`before-${i}`, (await store.txn(key(`before-${i}`), () => cm(`before-${i}`))).rev);
    const filler = disk.fill();
    let failure: unknown;
    for (let i = 0; i < 20_000 && failure === undefined; i++) {
      const name = `full-${i}`;
      await store
        .txn(key(name), () => cm(name))
        .then(
          (r) => acked.set(name, r.rev),
          (err) => (failure = err),
        );
    }
    assert.ok(failure instanceof StatusError, `no write failed on a full disk: ${String(failure)}`);
    assert.deepEqual(JSON.parse(JSON.stringify(failure.toStatus())), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'etcdserver: mvcc: database space exceeded',
      code: 500,
    });
    const lastAcked = Math.max(...acked.values());
    assert.equal(store.revision, lastAcked);
    assert.equal(store.health.ok, false);
    assert.ok(store.get(key('before-0')), 'reads stopped');
    assert.equal(store.list({ bucket: B, keyPrefix: `${B}/` }).items.length, acked.size);
    await assert.rejects(
      store.txn(key('while-full'), () => cm('while-full')),
      /database space exceeded/,
    );

    disk.release(filler);
    await until(() => store.health.ok);
    const after = await store.txn(key('after'), () => cm('after'));
    assert.equal(after.rev, lastAcked + 1);
    acked.set('after', after.rev);
    await store.close();

    store = await Store.open(await LevelBackend.open(dir));
    assert.equal(store.revision, lastAcked + 1);
    assert.deepEqual(store.keys(B, `${B}/`).sort(), [...acked.keys()].map(key).sort());
    for (const [name, rev] of acked) assert.equal(store.get(key(name))!.rev, rev, name);
    await store.close();
  });
});

test('opening on a full or read-only disk fails with one line that names the database and the cause', async (t) => {
  await withTmpfs(t, 1024 * 1024, async (disk) => {
    disk.fill();
    await assert.rejects(LevelBackend.open(join(disk.dir, 'db')), (err: unknown) => {
      assert.ok(err instanceof StorageOpenError);
      assert.equal(err.message, `cannot open the database ${join(disk.dir, 'db')}: no space left on device (ENOSPC)`);
      return true;
    });
  });
  await withTmpfs(t, 1024 * 1024, async (disk) => {
    const dir = join(disk.dir, 'db');
    await (await LevelBackend.open(dir)).close();
    disk.remount('ro');
    for (const path of [dir, join(disk.dir, 'new', 'db')]) {
      await assert.rejects(LevelBackend.open(path), (err: unknown) => {
        assert.ok(err instanceof StorageOpenError);
        assert.equal(err.message, `cannot open the database ${path}: the file system is read-only (EROFS)`);
        return true;
      });
    }
  });
});

test('a batch that reached LevelDB but was reported failed (a failed sync) is undone on disk by the recovery', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ksim-level-undo-'));
  try {
    const faulty = new FaultyBackend(await LevelBackend.open(dir));
    let store = await Store.open(faulty, { failure: { retryIntervalMs: 20 } });
    await store.txn(key('a'), () => ({ ...cm('a'), data: { v: '1' } }));
    await store.txn(key('gone'), () => cm('gone'));
    faulty.fail(noSpaceError, 'after-write');
    // One batch: an update, a create, a delete, and a second update of the same key.
    const results = await Promise.allSettled([
      store.txn(key('a'), (cur) => ({ ...cur, data: { v: '2' } })),
      store.txn(key('b'), () => cm('b')),
      store.txn(key('gone'), () => null),
      store.txn(key('a'), (cur) => ({ ...cur, data: { v: '3' } })),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected', 'rejected'],
    );
    faulty.heal();
    const deadline = Date.now() + 10_000;
    while (!store.health.ok) {
      assert.ok(Date.now() < deadline, 'never recovered');
      await new Promise((r) => setTimeout(r, 10));
    }
    await store.close();

    store = await Store.open(await LevelBackend.open(dir));
    assert.equal(store.revision, 2);
    assert.deepEqual(store.keys(B, `${B}/`), [key('a'), key('gone')]);
    assert.equal(JSON.parse(store.get(key('a'))!.json).data.v, '1');
    assert.equal(store.get(key('a'))!.rev, 1);
    const replay: number[] = [];
    store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (evs) => replay.push(...evs.map((e) => e.rev)) }, 0);
    assert.deepEqual(replay, [1, 2]);
    // The next write takes the revision the failed batch had.
    assert.equal((await store.txn(key('c'), () => cm('c'))).rev, 3);
    await store.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
