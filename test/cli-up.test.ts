// `ksim up` as a user runs it: it serves, writes DIR/kubeconfig and prints
// the export line; the real kubectl works with that kubeconfig; `ksim status`
// lists the components; SIGTERM stops everything with exit 0; a restart on
// the same data dir keeps every object.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, kubectl, ksimCli, spawnTracked, tempDir, type TrackedProcess } from './helpers/index.ts';

const run = promisify(execFile);
let up: TrackedProcess | undefined;
after(() => up?.stop());

async function startUp(dataDir: string, port: number): Promise<{ proc: TrackedProcess; output: () => string }> {
  const proc = await spawnTracked(process.execPath, [ksimCli, 'up', '--data-dir', dataDir, '--port', String(port), '--nodes', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
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
  assert.deepEqual(ns.stdout.trim().split('\n').sort(), ['namespace/default', 'namespace/kube-node-lease', 'namespace/kube-public', 'namespace/kube-system']);
  const created = await kubectl(['create', '--validate=false', '-f', '-'], { kubeconfig, input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: survivor\n  namespace: default\ndata:\n  k: v\n' });
  assert.equal(created.code, 0, created.stderr);

  const status = await run(process.execPath, [ksimCli, 'status', '--data-dir', dataDir]);
  assert.match(status.stdout, /apiserver\s+\d+\s+running\s+http:\/\/127\.0\.0\.1:\d+/);

  first.proc.signal('SIGTERM');
  const exit = await first.proc.exited;
  assert.equal(exit.code, 0);

  const second = await startUp(dataDir, port);
  up = second.proc;
  const got = await kubectl(['get', 'configmap', 'survivor', '-o', 'jsonpath={.data.k}'], { kubeconfig });
  assert.equal(got.code, 0, got.stderr);
  assert.equal(got.stdout, 'v');
  second.proc.signal('SIGINT');
  assert.equal((await second.proc.exited).code, 0);
  up = undefined;
});
