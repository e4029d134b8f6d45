// A real apiserver process on a disk that fills up, and on data dirs it
// cannot use. The disk is a small tmpfs (root only: skipped with the reason
// when mounting is not possible; apiserver/storage/store-faults.test.ts covers
// the store's side with an injected failure either way).
//  - Full disk: writes get kube's 500 Status (etcd's "database space
//    exceeded"), reads and watches go on, /readyz fails its etcd check, and
//    once space returns writes succeed again in the same process; a restart
//    finds exactly the acknowledged objects.
//  - A start on a data dir that is a file, held by another apiserver, on a
//    read-only or a full disk: one line on stderr naming the data dir and the
//    cause, no stack trace, exit 1.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  api,
  freePort,
  kubectl,
  ksimNodeArgs,
  repoRoot,
  spawnTracked,
  startApiserver,
  tempDir,
  until,
  type Apiserver,
} from './helpers/index.ts';
import { mountTmpfs, type Tmpfs } from './helpers/tmpfs.ts';

const disks: Tmpfs[] = [];
const servers: Apiserver[] = [];
after(async () => {
  for (const s of servers) await s.stop();
  for (const d of disks) d.unmount();
});

/** A tmpfs for this test, or undefined after skipping the test with the reason. */
async function disk(t: { skip(msg: string): void }, size: number, opts?: { readOnly?: boolean }): Promise<Tmpfs | undefined> {
  const fs = await mountTmpfs(size, opts);
  if ('unavailable' in fs) {
    t.skip(fs.unavailable);
    return undefined;
  }
  disks.push(fs);
  return fs;
}

const NO_SPACE = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'etcdserver: mvcc: database space exceeded',
  code: 500,
};

test('a full disk: writes get a 500 Status, reads and watches go on, writes resume when space returns, no restart needed', async (t) => {
  const fs = await disk(t, 32 * 1024 * 1024);
  if (!fs) return;
  // Its log is on the same disk, as `ksim up` keeps logs in the data dir: a log write that fails must not end it either.
  const server = await startApiserver({ dataDir: fs.dir });
  servers.push(server);
  const c = api(server);
  assert.equal((await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'full' } })).status, 201);
  const acked: string[] = [];
  const first = await c.request('POST', '/api/v1/namespaces/full/configmaps', { metadata: { name: 'first' }, data: { k: 'v' } });
  assert.equal(first.status, 201);
  acked.push('first');
  const watch = c.watch(`/api/v1/namespaces/full/configmaps?watch=true&resourceVersion=${first.body.metadata.resourceVersion}`);
  await watch.ready;

  const filler = fs.fill();
  let refused: { status: number; body: any } | undefined;
  for (let i = 0; i < 5000 && !refused; i++) {
    const res = await c.request('POST', '/api/v1/namespaces/full/configmaps', {
      metadata: { name: `cm-${i}` },
      data: { pad: 'p'.repeat(4000) },
    });
    if (res.status === 201) acked.push(`cm-${i}`);
    else refused = res;
  }
  assert.ok(refused, 'no write was refused on a full disk');
  assert.equal(refused.status, 500);
  assert.deepEqual(refused.body, NO_SPACE);
  // Later writes of every verb are refused the same way, at once; the server lives on.
  const pid = server.pid;
  assert.deepEqual(
    (await c.request('PUT', '/api/v1/namespaces/full/configmaps/first', { ...first.body, data: { k: 'changed' } })).body,
    NO_SPACE,
  );
  assert.deepEqual((await c.request('DELETE', '/api/v1/namespaces/full/configmaps/first')).body, NO_SPACE);
  const kc = await kubectl(['create', 'configmap', 'by-kubectl', '-n', 'full', '--from-literal=k=v'], { kubeconfig: server.kubeconfig });
  assert.equal(kc.code, 1);
  assert.equal(kc.stderr.trim(), 'error: failed to create configmap: etcdserver: mvcc: database space exceeded');
  // Reads go on and show exactly the acknowledged writes.
  const got = await c.request('GET', '/api/v1/namespaces/full/configmaps/first');
  assert.equal(got.status, 200);
  assert.equal(got.body.data.k, 'v');
  const list = await c.request('GET', '/api/v1/namespaces/full/configmaps');
  assert.deepEqual(list.body.items.map((i: any) => i.metadata.name).sort(), [...acked].sort());
  const ready = await c.request('GET', '/readyz');
  assert.equal(ready.status, 503);
  assert.match(ready.body, /^\[-\]etcd failed: reason withheld$/m);
  assert.equal((await c.request('GET', '/livez')).status, 200);

  fs.release(filler);
  const resumed = await until(
    async () => {
      const res = await c.request('POST', '/api/v1/namespaces/full/configmaps', { metadata: { name: 'after' } });
      return res.status === 201 && res;
    },
    'a write to succeed once space returned',
    15_000,
  );
  acked.push('after');
  assert.equal(server.pid, pid, 'the apiserver restarted');
  assert.equal((await c.request('GET', '/readyz')).status, 200);
  assert.equal(Number(resumed.body.metadata.resourceVersion), Number(list.body.metadata.resourceVersion) + 1);
  // The watch saw every acknowledged write, in order, the refused ones never.
  const seen: string[] = [];
  while (!seen.includes('after')) {
    const ev = (await watch.next(10_000))!;
    assert.equal(ev.type, 'ADDED');
    seen.push(ev.object.metadata.name);
  }
  assert.deepEqual(seen, acked.slice(1));
  watch.close();

  await server.restart();
  const relist = await c.request('GET', '/api/v1/namespaces/full/configmaps');
  assert.deepEqual(relist.body.items.map((i: any) => i.metadata.name).sort(), [...acked].sort());
  assert.equal(relist.body.metadata.resourceVersion, resumed.body.metadata.resourceVersion);
});

/** Starts `ksim apiserver` on `dataDir` expecting it to fail; returns its exit code and output. */
async function failedStart(dataDir: string, port?: number): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const proc = await spawnTracked(
    process.execPath,
    [...ksimNodeArgs(), 'apiserver', '--data-dir', dataDir, '--port', String(port ?? (await freePort()))],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  proc.child.stdout!.on('data', (d) => (stdout += d));
  proc.child.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => void proc.kill9(), 20_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Asserts one clear line on stderr (besides pino's JSON lines) and no stack trace. */
function assertOneLine(out: { code: number | null; stderr: string }, expected: string): void {
  assert.equal(out.code, 1, out.stderr);
  const plain = out.stderr.split('\n').filter((l) => l && !l.startsWith('{'));
  assert.deepEqual(plain, [`ksim apiserver: ${expected}`]);
  assert.doesNotMatch(out.stderr, /NotOpenError|\n\s+at /);
  const fatal = out.stderr.split('\n').filter((l) => l.startsWith('{') && JSON.parse(l).level === 60);
  assert.equal(fatal.length, 1);
  assert.equal(JSON.parse(fatal[0]).msg, expected);
}

test('a start on a data dir that is a file, or held by another apiserver, is one clear line and exit 1', async () => {
  const dir = await tempDir('bad-data-dir');
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  assertOneLine(
    await failedStart(file),
    `data dir ${file}: cannot open the database ${file}/db: it or one of its parents is not a directory (ENOTDIR)`,
  );

  const holder = await startApiserver();
  servers.push(holder);
  assertOneLine(
    await failedStart(holder.dataDir),
    `data dir ${holder.dataDir}: cannot open the database ${holder.dataDir}/db: another process holds it (LEVEL_LOCKED): is another ksim apiserver running on this data dir?`,
  );
  const other = await tempDir('port-taken');
  assertOneLine(
    await failedStart(other, holder.port),
    `cannot serve on 127.0.0.1:${holder.port}: the address is already in use (EADDRINUSE): is another ksim apiserver running?`,
  );
  // The holder is unharmed.
  assert.equal((await api(holder).request('GET', '/readyz')).status, 200);
});

test('a start on a read-only or a full disk is one clear line and exit 1', async (t) => {
  const ro = await disk(t, 1024 * 1024, { readOnly: true });
  if (!ro) return;
  const roDir = join(ro.dir, 'data');
  assertOneLine(await failedStart(roDir), `data dir ${roDir}: cannot open the database ${roDir}/db: the file system is read-only (EROFS)`);

  const full = await disk(t, 1024 * 1024);
  if (!full) return;
  full.fill();
  const fullDir = join(full.dir, 'data');
  assertOneLine(
    await failedStart(fullDir),
    `data dir ${fullDir}: cannot open the database ${fullDir}/db: no space left on device (ENOSPC)`,
  );
});
