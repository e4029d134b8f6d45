// `ksim scheduler` as its own process: serves /healthz and /metrics, takes
// the kube-system/kube-scheduler Lease, binds a Pod, and exits 0 on SIGTERM.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { makeNode, makePod } from '../scheduler/testing/fixtures.ts';
import { freePort, repoRoot, spawnTracked, startApiserver, type Apiserver } from './helpers/index.ts';

const pods = findResource('', 'v1', 'pods')!;
const nodes = findResource('', 'v1', 'nodes')!;
const leases = findResource('coordination.k8s.io', 'v1', 'leases')!;
let server: Apiserver;
let client: KubeClient;

before(async () => {
  server = await startApiserver();
  client = new KubeClient(server.clientConfig);
});
after(async () => {
  client?.close();
  await server?.stop();
});

const until = async <T>(fn: () => Promise<T | undefined>, what: string, ms = 15_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

test('the scheduler process leads, schedules, serves metrics and exits 0 on SIGTERM', async () => {
  // Its own identity, system:kube-scheduler, as `ksim up` starts it.
  const kubeconfig = server.kubeconfigOf('scheduler');
  const port = await freePort();
  const code = `import('./scheduler/main.ts').then((m) => m.schedulerMain(['--kubeconfig', ${JSON.stringify(kubeconfig)}, '--port', '${port}', '--leader-elect-lease-duration', '3']))`;
  const proc = await spawnTracked(process.execPath, ['--import', 'tsx', '-e', code], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, KSIM_LOG_LEVEL: 'warn' },
  });
  try {
    await client.create(nodes, undefined, makeNode('only'));
    await client.create(pods, 'default', makePod('hello'));
    const node = await until(async () => (await client.get(pods, 'default', 'hello')).spec?.nodeName, 'hello bound');
    assert.equal(node, 'only');
    const lease = await client.get(leases, 'kube-system', 'kube-scheduler');
    assert.ok(lease.spec.holderIdentity, 'lease held');
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"[^}]*\} 1/);
    assert.match(metrics, /scheduler_pending_pods\{queue="active"/);
    assert.match(metrics, /scheduler_e2e_scheduling_duration_seconds_bucket/);
  } finally {
    const status = await proc.stop(10_000);
    assert.deepEqual(status, { code: 0, signal: null });
  }
});
