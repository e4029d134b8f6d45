// Leader election on a real apiserver: one of two candidates leads; a lease
// held by a silent holder is taken over once it expires; a leader that
// steps down hands over at once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { LeaderElector } from '../shared/leader/leader-election.ts';
import { startApiserver, type Apiserver } from './helpers/index.ts';

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

const until = async (cond: () => boolean, what: string, ms = 10_000) => {
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
  await until(() => a.isLeader, 'a to lead');
  b.start();
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(b.isLeader, false);
  await a.stop();
  await until(() => b.isLeader, 'b to take over', 5000);
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
  await until(() => c.isLeader, 'c to take the expired lease');
  assert.ok(Date.now() - started >= 900, 'not before the lease expired');
  const lease = await client.get(leases, 'kube-system', 'silent');
  assert.equal(lease.spec.leaseTransitions, 4);
  await c.stop();
});
