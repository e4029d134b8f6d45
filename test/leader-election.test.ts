// Leader election on a real apiserver: one of two candidates leads; a lease
// held by a silent holder is taken over once it expires; a leader that
// steps down hands over at once; and two real controller-manager (and
// scheduler) processes at --speed 10 fail over after kill -9 of the holder
// within the lease duration + retry period, kube's 15 s and 2 s, which
// --speed does not shorten (MAX_ELECTION_SPEED).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { LeaderElector, electionSpeed } from '../shared/leader/leader-election.ts';
import { makeNode, makePod } from '../scheduler/testing/fixtures.ts';
import { freePort, repoRoot, spawnTracked, startApiserver, until, type Apiserver, type TrackedProcess } from './helpers/index.ts';

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

const waitFor = async (cond: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const fast = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };

test('one of two candidates leads; stepping down hands over', async () => {
  const log: string[] = [];
  const make = (id: string) =>
    new LeaderElector(client, {
      namespace: 'kube-system',
      name: 'demo',
      identity: id,
      ...fast,
      onStartedLeading: () => log.push(`${id}+`),
      onStoppedLeading: () => log.push(`${id}-`),
    });
  const a = make('a');
  const b = make('b');
  a.start();
  await waitFor(() => a.isLeader, 'a to lead');
  b.start();
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(b.isLeader, false);
  await a.stop();
  await waitFor(() => b.isLeader, 'b to take over', 5000);
  assert.deepEqual(log, ['a+', 'a-', 'b+']);
  const lease = await client.get(leases, 'kube-system', 'demo');
  assert.equal(lease.spec.holderIdentity, 'b');
  await b.stop();
});

test('a lease whose holder went silent is taken once it expires', async () => {
  await client.create(leases, 'kube-system', {
    metadata: { name: 'silent' },
    spec: {
      holderIdentity: 'ghost',
      leaseDurationSeconds: 1,
      renewTime: new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z'),
      leaseTransitions: 3,
    },
  });
  const started = Date.now();
  const c = new LeaderElector(client, {
    namespace: 'kube-system',
    name: 'silent',
    identity: 'c',
    ...fast,
    onStartedLeading: () => {},
    onStoppedLeading: () => {},
  });
  c.start();
  await waitFor(() => c.isLeader, 'c to take the expired lease');
  assert.ok(Date.now() - started >= 900, 'not before the lease expired');
  const lease = await client.get(leases, 'kube-system', 'silent');
  assert.equal(lease.spec.leaseTransitions, 4);
  await c.stop();
});

// Two real replicas of a component, each with its own health/metrics port, against the one apiserver.
const SPEED = 10;
/** kube's defaults divided by --speed (at most MAX_ELECTION_SPEED): a standby takes over within lease + retry (its view of the last renewal lags up to one retry). */
const LEASE_MS = 15_000 / electionSpeed(SPEED);
const RETRY_MS = 2_000 / electionSpeed(SPEED);

interface Replica {
  proc: TrackedProcess;
  port: number;
}

async function startReplica(entry: 'controller-manager' | 'scheduler', args: string[]): Promise<Replica> {
  const port = await freePort();
  const fn = entry === 'scheduler' ? 'schedulerMain' : 'controllerManagerMain';
  const all = [...args, '--port', String(port), '--speed', String(SPEED)];
  const code = `import('./${entry}/main.ts').then((m) => m.${fn}(${JSON.stringify(all)}))`;
  const proc = await spawnTracked(process.execPath, ['--import', 'tsx', '-e', code], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, KSIM_LOG_LEVEL: 'error' },
  });
  return { proc, port };
}

/** leader_election_master_status{name=lease} of a replica, from its /metrics (undefined until it serves). */
async function masterStatus(r: Replica, lease: string): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${r.port}/metrics`)).text();
  const m = new RegExp(`^leader_election_master_status\\{name="${lease}"[^}]*\\} (\\d)`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
}

/** Starts two replicas, waits for one to lead, kills it with SIGKILL and measures until the other holds the Lease. */
async function failover(entry: 'controller-manager' | 'scheduler', lease: string, args: string[]) {
  const replicas = [await startReplica(entry, args), await startReplica(entry, args)];
  const statuses = async () => Promise.all(replicas.map((r) => masterStatus(r, lease).catch(() => undefined)));
  const settled = await until(
    async () => {
      const s = await statuses();
      return s.every((v) => v !== undefined) && s.filter((v) => v === 1).length === 1 && s;
    },
    `one ${entry} replica to lead`,
    30_000,
  );
  const leader = replicas[settled.indexOf(1)];
  const standby = replicas[settled.indexOf(0)];
  const before = (await client.get(leases, 'kube-system', lease)).spec;
  // Let a few renewals pass, so the standby's view of the holder is a steady one.
  await new Promise((r) => setTimeout(r, 3 * RETRY_MS));
  assert.equal(await masterStatus(standby, lease), 0, 'the standby does not lead while the holder renews');
  await leader.proc.kill9();
  const killedAt = Date.now();
  const after = await until(
    async () => {
      const spec = (await client.get(leases, 'kube-system', lease)).spec;
      return spec?.holderIdentity && spec.holderIdentity !== before.holderIdentity && spec;
    },
    `the standby ${entry} to take the Lease`,
    LEASE_MS + RETRY_MS + 5_000,
  );
  const seenAt = Date.now();
  // acquireTime is stamped by the new holder at the start of the attempt that took the Lease (same machine clock).
  const decidedMs = Date.parse(after.acquireTime) - killedAt;
  assert.equal(after.leaseTransitions, (before.leaseTransitions ?? 0) + 1);
  await until(async () => (await masterStatus(standby, lease)) === 1, 'the standby to report itself master');
  return { standby, decidedMs, seenMs: seenAt - killedAt, stopAll: () => Promise.all(replicas.map((r) => r.proc.stop(5000))) };
}

test(`two controller-managers at --speed ${SPEED}: only the holder acts; after kill -9 the other takes over within kube's lease + retry (--speed does not shorten election)`, async () => {
  const replicasets = findResource('apps', 'v1', 'replicasets')!;
  const pods = findResource('', 'v1', 'pods')!;
  const args = ['--kubeconfig', server.kubeconfigOf('controllerManager'), '--controllers', 'replicaset'];
  const f = await failover('controller-manager', 'kube-controller-manager', args);
  try {
    console.log(
      `controller-manager failover: decided ${f.decidedMs} ms, Lease seen changed ${f.seenMs} ms after kill -9 (bound ${LEASE_MS + RETRY_MS} ms)`,
    );
    assert.ok(f.decidedMs <= LEASE_MS + RETRY_MS + 100, `the standby took the Lease ${f.decidedMs} ms after the kill`);
    assert.ok(f.seenMs <= LEASE_MS + RETRY_MS + 1000, `the Lease changed hands ${f.seenMs} ms after the kill`);
    // The new leader runs the controllers: a ReplicaSet gets its Pods.
    await client.create(replicasets, 'default', {
      metadata: { name: 'after-failover' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'after-failover' } },
        template: { metadata: { labels: { app: 'after-failover' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    await until(
      async () => {
        const list = await client.list(pods, { namespace: 'default', labelSelector: 'app=after-failover' });
        return list.items.length === 2;
      },
      'the new leader to create the ReplicaSet its Pods',
      15_000,
    );
  } finally {
    await f.stopAll();
  }
});

test(`two schedulers at --speed ${SPEED}: after kill -9 of the leader the other takes over within kube's lease + retry and binds`, async () => {
  const pods = findResource('', 'v1', 'pods')!;
  const nodes = findResource('', 'v1', 'nodes')!;
  const f = await failover('scheduler', 'kube-scheduler', ['--kubeconfig', server.kubeconfigOf('scheduler')]);
  try {
    console.log(
      `scheduler failover: decided ${f.decidedMs} ms, Lease seen changed ${f.seenMs} ms after kill -9 (bound ${LEASE_MS + RETRY_MS} ms)`,
    );
    assert.ok(f.decidedMs <= LEASE_MS + RETRY_MS + 100, `the standby took the Lease ${f.decidedMs} ms after the kill`);
    assert.ok(f.seenMs <= LEASE_MS + RETRY_MS + 1000, `the Lease changed hands ${f.seenMs} ms after the kill`);
    await client.create(nodes, undefined, makeNode('n1'));
    await client.create(pods, 'default', makePod('bound-after-failover'));
    await until(async () => (await client.get(pods, 'default', 'bound-after-failover')).spec?.nodeName === 'n1', 'the new leader to bind');
  } finally {
    await f.stopAll();
  }
});
