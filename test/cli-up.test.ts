// `ksim up` as a user runs it: it serves, writes DIR/kubeconfig and prints
// the export line; the real kubectl works with that kubeconfig; `ksim status`
// lists the components; SIGTERM stops everything with exit 0; a restart on
// the same data dir keeps every object, the CA and the keys. Over HTTPS each
// component has its own kubeconfig; --insecure-http says so loudly, in the
// output and in `ksim status`. A second `ksim up` on a data dir or
// port that is taken says so and exits 1 without touching the first cluster;
// a disk that fills shows in `ksim status` and the cluster carries on.
// (--restart=on-failure and leader failover: cli-up-restart.test.ts; kill -9
// of the apiserver: cli-up-apiserver-kill.test.ts; one cluster per file.)
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { api, freePort, kubectl, ksimCli, spawnTracked, tempDir, tlsMaterialOf, until, type TrackedProcess } from './helpers/index.ts';
import { loadKubeconfig } from '../shared/client/kubeconfig.ts';
import { mountTmpfs } from './helpers/tmpfs.ts';

const run = promisify(execFile);

/** The apiserver URL `ksim up` recorded in DIR/cluster.json. */
const serverOf = (dataDir: string): string =>
  (JSON.parse(readFileSync(join(dataDir, 'cluster.json'), 'utf8')) as { server: string }).server;

/** The status of GET /readyz, trusting the cluster CA when the server is HTTPS. */
async function readyzStatus(dataDir: string): Promise<number> {
  const server = serverOf(dataDir);
  if (!server.startsWith('https:')) return (await fetch(`${server}/readyz`)).status;
  const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'));
  return new Promise((resolve, reject) => {
    https
      .get(`${server}/readyz`, { ca, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .on('error', reject);
  });
}

/** Whether the apiserver knows --insecure-http (the HTTPS apiserver does; the one before it does not). */
async function apiserverHasInsecureHttp(): Promise<boolean> {
  const help = await run(process.execPath, [ksimCli, 'apiserver', '--help']);
  return help.stdout.includes('--insecure-http');
}
let up: TrackedProcess | undefined;
after(() => up?.stop());

async function startUp(dataDir: string, port: number, extra = ['--nodes', '1']): Promise<{ proc: TrackedProcess; output: () => string }> {
  const proc = await spawnTracked(process.execPath, [ksimCli, 'up', '--data-dir', dataDir, '--port', String(port), ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.child.stdout!.on('data', (d) => (out += d));
  proc.child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 30_000;
  while (!out.includes('export KUBECONFIG=')) {
    if (!proc.running() || Date.now() > deadline) throw new Error(`ksim up did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, output: () => out };
}

test('ksim up serves, writes a kubeconfig kubectl can use, and keeps state across restarts', async () => {
  const dataDir = await tempDir('up');
  const port = await freePort();
  const first = await startUp(dataDir, port);
  up = first.proc;
  const kubeconfig = join(dataDir, 'kubeconfig');
  assert.ok(first.output().includes(`export KUBECONFIG=${kubeconfig}`));
  assert.ok(existsSync(kubeconfig));

  const ns = await kubectl(['get', 'namespaces', '-o', 'name'], { kubeconfig });
  assert.equal(ns.code, 0, ns.stderr);
  assert.deepEqual(ns.stdout.trim().split('\n').sort(), [
    'namespace/default',
    'namespace/kube-node-lease',
    'namespace/kube-public',
    'namespace/kube-system',
  ]);
  const created = await kubectl(['create', '--validate=false', '-f', '-'], {
    kubeconfig,
    input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: survivor\n  namespace: default\ndata:\n  k: v\n',
  });
  assert.equal(created.code, 0, created.stderr);

  const status = await run(process.execPath, [ksimCli, 'status', '--data-dir', dataDir]);
  assert.match(status.stdout, /^apiserver\s+\d+\s+running\s+\d+[smhd]\S*\s+0\s+-\s+https?:\/\/127\.0\.0\.1:\d+$/m);
  const tls = serverOf(dataDir).startsWith('https:');
  if (tls) {
    // Each component runs under its own identity, from its own kubeconfig.
    assert.match(readFileSync(kubeconfig, 'utf8'), /server: https:\/\/127\.0\.0\.1:\d+/);
    for (const f of [
      'kubeconfig',
      'controller-manager.kubeconfig',
      'scheduler.kubeconfig',
      'kubelet-sim.kubeconfig',
      'pki/ca.key',
      'pki/admin.key',
    ])
      assert.equal(statSync(join(dataDir, f)).mode & 0o777, 0o600, f);
    assert.doesNotMatch(status.stdout, /INSECURE/);
    assert.match(status.stdout, /^TLS: serving certificate valid until \d{4}-\d\d-\d\d, CA "kubernetes" \(.*ca\.crt\) until \d{4}-/m);
    assert.match(first.output(), new RegExp(`Cluster CA: ${join(dataDir, 'pki', 'ca.crt')}`));
  }
  const caBefore = tls ? readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8') : '';
  const adminKeyBefore = tls ? readFileSync(join(dataDir, 'pki', 'admin.key'), 'utf8') : '';

  first.proc.signal('SIGTERM');
  const exit = await first.proc.exited;
  assert.equal(exit.code, 0);

  const second = await startUp(dataDir, port);
  up = second.proc;
  const got = await kubectl(['get', 'configmap', 'survivor', '-o', 'jsonpath={.data.k}'], { kubeconfig });
  assert.equal(got.code, 0, got.stderr);
  assert.equal(got.stdout, 'v');
  if (tls) {
    assert.equal(readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'), caBefore, 'a restart made a new CA');
    assert.equal(readFileSync(join(dataDir, 'pki', 'admin.key'), 'utf8'), adminKeyBefore, 'a restart made a new admin key');
  }
  second.proc.signal('SIGINT');
  assert.equal((await second.proc.exited).code, 0);
  up = undefined;
});

/** Runs `ksim up` expecting it to fail; returns its exit code and everything it printed. */
async function failedUp(dataDir: string, port: number): Promise<{ code: number | null; output: string }> {
  const proc = await spawnTracked(process.execPath, [ksimCli, 'up', '--data-dir', dataDir, '--port', String(port), '--nodes', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  proc.child.stdout!.on('data', (d) => (output += d));
  proc.child.stderr!.on('data', (d) => (output += d));
  const timer = setTimeout(() => void proc.kill9(), 40_000);
  const { code } = await proc.exited;
  clearTimeout(timer);
  return { code, output };
}

test('ksim up on a data dir another ksim holds, or on a taken port, says so and exits 1, leaving the other cluster alone', async () => {
  const dataDir = await tempDir('up-held');
  const port = await freePort();
  const first = await startUp(dataDir, port);
  up = first.proc;
  const stateBefore = readFileSync(join(dataDir, 'cluster.json'), 'utf8');
  const kubeconfigBefore = readFileSync(join(dataDir, 'kubeconfig'), 'utf8');

  // Same data dir and port: the second apiserver finds the database locked (the other one answers /readyz meanwhile).
  const held = await failedUp(dataDir, port);
  assert.equal(held.code, 1, held.output);
  assert.doesNotMatch(held.output, /ksim is up/);
  assert.match(
    held.output,
    new RegExp(
      `^ksim up: the apiserver could not start \\(code 1\\): data dir ${dataDir}: cannot open the database ${dataDir}/db: another process holds it \\(LEVEL_LOCKED\\): is another ksim apiserver running on this data dir\\?; see ${join(dataDir, 'logs', 'apiserver.log')}\\n$`,
    ),
  );
  assert.equal(readFileSync(join(dataDir, 'cluster.json'), 'utf8'), stateBefore, 'the failed ksim up rewrote cluster.json');
  assert.equal(readFileSync(join(dataDir, 'kubeconfig'), 'utf8'), kubeconfigBefore);

  // Another data dir, same port.
  const otherDir = await tempDir('up-port');
  const taken = await failedUp(otherDir, port);
  assert.equal(taken.code, 1, taken.output);
  assert.doesNotMatch(taken.output, /ksim is up/);
  assert.match(
    taken.output,
    new RegExp(
      `^ksim up: the apiserver could not start \\(code 1\\): cannot serve on 127\\.0\\.0\\.1:${port}: the address is already in use \\(EADDRINUSE\\)`,
    ),
  );
  assert.equal(existsSync(join(otherDir, 'kubeconfig')), false);

  // A data dir that is a file.
  const file = join(otherDir, 'a-file');
  writeFileSync(file, '');
  const notDir = await failedUp(file, await freePort());
  assert.equal(notDir.code, 1, notDir.output);
  assert.equal(notDir.output, `ksim up: cannot use data dir ${file}: it or one of its parents is not a directory (ENOTDIR)\n`);

  // The first cluster is unharmed: every component still runs.
  const status = await run(process.execPath, [ksimCli, 'status', '--data-dir', dataDir]);
  assert.doesNotMatch(status.stdout, /exited|dead|unhealthy/);
  assert.equal(await readyzStatus(dataDir), 200);
  first.proc.signal('SIGTERM');
  assert.equal((await first.proc.exited).code, 0);
  up = undefined;
});

test('a cluster whose disk fills keeps running: ksim status says the apiserver is not ready (etcd), writes resume when space returns', async (t) => {
  const disk = await mountTmpfs(64 * 1024 * 1024);
  if ('unavailable' in disk) {
    t.skip(disk.unavailable);
    return;
  }
  try {
    const dataDir = join(disk.dir, 'cluster');
    const port = await freePort();
    const cluster = await startUp(dataDir, port, ['--nodes', '0']);
    up = cluster.proc;
    // As the admin, over HTTPS with the cluster CA.
    const c = api({ url: serverOf(dataDir), tls: tlsMaterialOf(loadKubeconfig(join(dataDir, 'kubeconfig'))) });
    const statusRow = async () =>
      (await run(process.execPath, [ksimCli, 'status', '--data-dir', dataDir])).stdout.split('\n').find((l) => l.startsWith('apiserver'))!;
    assert.match(await statusRow(), /^apiserver\s+\d+\s+running\s/);

    const filler = disk.fill();
    let refused: { status: number; body: any } | undefined;
    for (let i = 0; i < 5000 && !refused; i++) {
      const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: `fill-${i}` },
        data: { pad: 'p'.repeat(4000) },
      });
      if (res.status !== 201) refused = res;
    }
    assert.equal(refused?.status, 500, JSON.stringify(refused?.body));
    assert.equal(refused?.body.message, 'etcdserver: mvcc: database space exceeded');
    assert.match(await statusRow(), /^apiserver\s+\d+\s+not-ready\(etcd\)\s/);

    disk.release(filler);
    await until(
      async () => (await c.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-full' } })).status === 201,
      'a write once space returned',
      15_000,
    );
    assert.match(await statusRow(), /^apiserver\s+\d+\s+running\s/);
    cluster.proc.signal('SIGTERM');
    assert.equal((await cluster.proc.exited).code, 0);
    up = undefined;
  } finally {
    await up?.stop();
    up = undefined;
    disk.unmount();
  }
});

test('ksim up on a read-only disk says so in one line and exits 1', async (t) => {
  const disk = await mountTmpfs(1024 * 1024, { readOnly: true });
  if ('unavailable' in disk) {
    t.skip(disk.unavailable);
    return;
  }
  try {
    const dataDir = join(disk.dir, 'cluster');
    const res = await failedUp(dataDir, await freePort());
    assert.equal(res.code, 1, res.output);
    assert.equal(res.output, `ksim up: cannot use data dir ${dataDir}: the file system is read-only (EROFS)\n`);
  } finally {
    disk.unmount();
  }
});

test('ksim up --insecure-http warns on stderr, and ksim status says the cluster is unguarded', async (t) => {
  if (!(await apiserverHasInsecureHttp())) {
    t.skip('this apiserver has no --insecure-http yet');
    return;
  }
  const dataDir = await tempDir('up-insecure');
  const cluster = await startUp(dataDir, await freePort(), ['--nodes', '0', '--insecure-http']);
  up = cluster.proc;
  assert.match(cluster.output(), /WARNING: --insecure-http: the apiserver serves plain HTTP with no authentication/);
  assert.match(serverOf(dataDir), /^http:\/\/127\.0\.0\.1:\d+$/);
  const ns = await kubectl(['get', 'namespace', 'default', '-o', 'name'], { kubeconfig: join(dataDir, 'kubeconfig') });
  assert.equal(ns.code, 0, ns.stderr);
  const status = await run(process.execPath, [ksimCli, 'status', '--data-dir', dataDir]);
  assert.match(status.stdout, /^INSECURE: plain HTTP, no authentication$/m);
  cluster.proc.signal('SIGTERM');
  assert.equal((await cluster.proc.exited).code, 0);
  up = undefined;
});
