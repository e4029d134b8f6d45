// The store when its backend fails a write (a full or read-only disk, as a
// fault-injecting wrapper plays it): kube's Status for every write in the
// batch and behind it, nothing of the batch visible anywhere, reads and
// watches unaffected, and writes accepted again once storage recovers.
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatusError } from '../../shared/api/errors.ts';
import { FaultyBackend, noSpaceError, readOnlyError } from './faulty-backend.ts';
import { LevelBackend } from './level-backend.ts';
import { MemoryBackend } from './memory-backend.ts';
import { Store } from './store.ts';
import type { WatchEvent } from './watch-hub.ts';

const B = '/registry/core/configmaps';
const key = (name: string) => `${B}/default/${name}`;
const cm = (name: string, v = 'x') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v } });
const put = (store: Store, name: string, v?: string) => store.txn(key(name), () => cm(name, v));

async function open(retryIntervalMs = 20) {
  const memory = new MemoryBackend();
  const backend = new FaultyBackend(memory);
  const failures: string[] = [];
  let recoveries = 0;
  const store = await Store.open(backend, {
    failure: { retryIntervalMs, onFailure: (_err, kind) => failures.push(kind), onRecovered: () => recoveries++ },
  });
  const events: WatchEvent[] = [];
  store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (evs) => events.push(...evs) }, store.revision);
  return { memory, backend, store, events, failures, recoveries: () => recoveries };
}

/** The Status a rejected write carries, as it goes on the wire. */
async function statusOf(p: Promise<unknown>): Promise<Record<string, unknown>> {
  const err = await p.then(
    () => assert.fail('the write succeeded'),
    (e) => e,
  );
  assert.ok(err instanceof StatusError, `not a StatusError: ${err}`);
  return JSON.parse(JSON.stringify(err.toStatus()));
}

const until = async (cond: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

const NO_SPACE_STATUS = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'etcdserver: mvcc: database space exceeded',
  code: 500,
};

test("a commit that fails for lack of space answers its batch and the writes behind it with kube's Status, and leaves no trace", async () => {
  const { backend, store, events } = await open(60_000);
  await put(store, 'kept', 'v1');
  const rev = store.revision;
  backend.fail(noSpaceError);
  // One batch: a create and an update of the kept object; a delete sequenced behind them reads the update.
  const batch = [put(store, 'new'), put(store, 'kept', 'v2')];
  const behind = store.txn(key('kept'), (cur) => ((cur as ConfigMap).data!.v === 'v2' ? null : undefined));
  for (const p of [...batch, behind]) assert.deepEqual(await statusOf(p), NO_SPACE_STATUS);
  assert.equal(store.revision, rev);
  assert.equal(store.get(key('new')), undefined);
  assert.equal(JSON.parse(store.get(key('kept'))!.json).data.v, 'v1');
  assert.deepEqual(
    store.list({ bucket: B, keyPrefix: `${B}/` }).items.map((j) => JSON.parse(j).metadata.name),
    ['kept'],
  );
  assert.deepEqual(
    events.map((e) => e.rev),
    [rev],
  );
  assert.equal(store.health.ok, false);
  // While it fails: a write is refused at once, a no-op is answered, reads and watches go on.
  const attempts = backend.commitAttempts;
  assert.deepEqual(await statusOf(put(store, 'later')), NO_SPACE_STATUS);
  assert.equal(backend.commitAttempts, attempts, 'a write while failing reached the backend');
  assert.equal((await store.txn(key('kept'), () => undefined)).type, 'NOOP');
  const replay: WatchEvent[] = [];
  store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (evs) => replay.push(...evs) }, 0);
  assert.deepEqual(
    replay.map((e) => e.rev),
    [rev],
  );
  await store.close();
});

test("any other storage failure is kube's ServerTimeout for the write's verb and resource", async () => {
  const { backend, store } = await open(60_000);
  await put(store, 'a');
  backend.fail(readOnlyError);
  const expected = (operation: string) => ({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `The ${operation} operation against configmaps could not be completed at this time, please try again.`,
    reason: 'ServerTimeout',
    details: { kind: 'configmaps', name: operation, retryAfterSeconds: 2 },
    code: 500,
  });
  assert.deepEqual(await statusOf(put(store, 'b')), expected('create'));
  assert.deepEqual(await statusOf(put(store, 'a', 'changed')), expected('update'));
  assert.deepEqual(await statusOf(store.txn(key('a'), () => null)), expected('delete'));
  const deploy = await statusOf(store.txn('/registry/apps/deployments/default/web', () => ({ metadata: { name: 'web' } })));
  assert.equal(deploy.message, 'The create operation against deployments.apps could not be completed at this time, please try again.');
  assert.deepEqual(deploy.details, { group: 'apps', kind: 'deployments', name: 'create', retryAfterSeconds: 2 });
  await store.close();
});

test('the store retries by itself and accepts writes again once storage works, the revision continuing from the last commit', async () => {
  const { backend, store, events, failures, recoveries } = await open(20);
  await put(store, 'a');
  backend.fail(noSpaceError);
  await statusOf(put(store, 'b'));
  await until(() => backend.recoverAttempts >= 3);
  assert.equal(store.health.ok, false, 'recovered while storage still fails');
  backend.fail(readOnlyError);
  await until(() => failures.length === 2);
  assert.deepEqual(failures, ['no-space', 'unavailable']);
  backend.heal();
  await until(() => store.health.ok);
  assert.equal(recoveries(), 1);
  const b = await put(store, 'b');
  assert.equal(b.rev, 2);
  assert.deepEqual(
    events.map((e) => [e.rev, e.type, e.key]),
    [
      [1, 'ADDED', key('a')],
      [2, 'ADDED', key('b')],
    ],
  );
  await store.close();
});

test('a batch whose sync failed after it reached the disk is undone there before the next write', async () => {
  const { memory, backend, store } = await open(20);
  await put(store, 'a', 'v1');
  backend.fail(noSpaceError, 'after-write');
  await Promise.allSettled([put(store, 'a', 'v2'), put(store, 'gone'), store.txn(key('a'), () => null)]);
  assert.equal(memory.rev, 4, 'the fault did not let the batch reach the backend');
  backend.heal();
  await until(() => store.health.ok);
  assert.equal(memory.rev, 1);
  assert.deepEqual([...memory.objects.keys()], [key('a')]);
  assert.equal(JSON.parse(memory.objects.get(key('a'))!.json).data.v, 'v1');
  assert.deepEqual(
    memory.log.map((e) => e.rev),
    [1],
  );
  await put(store, 'c');
  await store.close();
  // What a restart loads is exactly what was acknowledged.
  const reopened = await Store.open(memory);
  assert.equal(reopened.revision, 2);
  assert.deepEqual(reopened.keys(B, `${B}/`), [key('a'), key('c')]);
  await reopened.close();
});

test('a refusal that read a write of a failed batch fails with the storage error, not its own verdict', async () => {
  const { backend, store } = await open(60_000);
  backend.fail(noSpaceError);
  const create = put(store, 'x');
  // AlreadyExists judged on the uncommitted create, which never happened.
  const second = store.txn(key('x'), (cur) => {
    if (cur) throw new StatusError(409, 'AlreadyExists', 'configmaps "x" already exists');
    return cm('x');
  });
  assert.equal((await statusOf(create)).message, 'etcdserver: mvcc: database space exceeded');
  assert.equal((await statusOf(second)).message, 'etcdserver: mvcc: database space exceeded');
  await store.close();
});

/** A seeded generator, so that a failing schedule can be replayed (KSIM_FAULT_SEED). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

for (const kind of ['memory', 'level'] as const) {
  test(`concurrent writers under random storage failures (${kind}): every acknowledged write is there, nothing else, revisions without a gap`, async () => {
    const seed = Number(process.env.KSIM_FAULT_SEED ?? Date.now() % 1_000_000);
    const rnd = random(seed);
    const dir = kind === 'level' ? await mkdtemp(join(tmpdir(), 'ksim-fault-')) : undefined;
    const inner = dir ? await LevelBackend.open(dir) : new MemoryBackend();
    const backend = new FaultyBackend(inner);
    try {
      const store = await Store.open(backend, { failure: { retryIntervalMs: 2 } });
      const seen: WatchEvent[] = [];
      store.watch({ bucket: B, keyPrefix: `${B}/`, deliver: (evs) => seen.push(...evs) }, 0);
      const KEYS = 5;
      const acked = new Array<number>(KEYS).fill(0);
      let refused = 0;
      let stop = false;
      const chaos = setInterval(() => {
        const r = rnd();
        if (r < 0.15) backend.fail(r < 0.075 ? noSpaceError : readOnlyError, rnd() < 0.5 ? 'before-write' : 'after-write');
        else if (r < 0.6) backend.heal();
      }, 3);
      const writers = Array.from({ length: 20 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const k = (w + i) % KEYS;
          try {
            await store.txn(key(`k${k}`), (cur) => ({
              ...cm(`k${k}`),
              data: { n: String(Number((cur as ConfigMap | undefined)?.data?.n ?? 0) + 1) },
            }));
            acked[k]++;
          } catch (err) {
            assert.ok(err instanceof StatusError && err.code === 500, `unexpected refusal: ${String(err)}`);
            refused++;
            await new Promise((r) => setTimeout(r, 1));
          }
        }
      });
      await new Promise((r) => setTimeout(r, 1500));
      clearInterval(chaos);
      backend.heal();
      stop = true;
      await Promise.all(writers);
      await until(() => store.health.ok);
      const summary = `seed ${seed}: ${acked.reduce((a, b) => a + b)} acknowledged, ${refused} refused, ${backend.recoverAttempts} recovery attempts`;
      assert.ok(refused > 0 && backend.recoverAttempts > 0, `no failure happened (${summary})`);
      const counts = (s: Store) =>
        Array.from({ length: KEYS }, (_, k) => Number(JSON.parse(s.get(key(`k${k}`))?.json ?? '{"data":{"n":0}}').data.n));
      assert.deepEqual(counts(store), acked, summary);
      // Watchers saw every committed revision once, in order, and nothing else.
      assert.deepEqual(
        seen.map((e) => e.rev),
        Array.from({ length: store.revision }, (_, i) => i + 1),
        summary,
      );
      const revision = store.revision;
      await store.close();
      const reopened = await Store.open(dir ? await LevelBackend.open(dir) : inner);
      assert.equal(reopened.revision, revision, summary);
      assert.deepEqual(counts(reopened), acked, summary);
      await reopened.close();
    } finally {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  });
}
