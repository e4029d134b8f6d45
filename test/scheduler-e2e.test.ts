// The scheduler against a real apiserver: Nodes created through the API,
// Pods bound through pods/binding, kube's FailedScheduling message and
// PodScheduled condition, requeue on a Node label change, spreading,
// schedulerName, nodeName bypass, and the decision annotation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { resolveConfig } from '../scheduler/config.ts';
import { Scheduler } from '../scheduler/scheduler.ts';
import { stepper } from '../shared/controller/stepper.ts';
import { makeNode, makePod } from '../scheduler/testing/fixtures.ts';
import { startApiserver, type Apiserver } from './helpers/index.ts';

const pods = findResource('', 'v1', 'pods')!;
const nodes = findResource('', 'v1', 'nodes')!;
const events = findResource('', 'v1', 'events')!;
let server: Apiserver;
let client: KubeClient;
let scheduler: Scheduler;

const until = async <T>(fn: () => T | undefined | Promise<T | undefined>, what: string, ms = 10_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const boundNode = (name: string, ns = 'default') =>
  until(async () => (await client.get(pods, ns, name)).spec?.nodeName as string | undefined, `${name} to be bound`);

before(async () => {
  server = await startApiserver();
  client = new KubeClient(server.clientConfig);
  await client.create(nodes, undefined, makeNode('node-a', { cpu: '2' }));
  await client.create(
    nodes,
    undefined,
    makeNode('node-b', { cpu: '2', taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }),
  );
  await client.create(
    nodes,
    undefined,
    makeNode('node-c', { cpu: '2', taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }),
  );
  const config = resolveConfig({
    profiles: [
      { schedulerName: 'default-scheduler' },
      {
        schedulerName: 'packer',
        plugins: { score: { enabled: [{ name: 'NodeResourcesFit', weight: 5 }] } },
        pluginConfig: [{ name: 'NodeResourcesFit', args: { scoringStrategy: { type: 'MostAllocated' } } }],
      },
    ],
  });
  scheduler = new Scheduler({ client, config, log: pino({ level: 'warn' }), speed: 10 });
  scheduler.startInformers();
  await scheduler.run();
});

after(async () => {
  await scheduler?.stop();
  client?.close();
  await server?.stop();
});

test('a Pod is bound through pods/binding with a Scheduled event and the decision annotation', async () => {
  await client.create(pods, 'default', makePod('web-1', { cpu: '100m' }));
  assert.equal(await boundNode('web-1'), 'node-a');
  const pod = await client.get(pods, 'default', 'web-1');
  assert.equal(pod.status.conditions.find((c: any) => c.type === 'PodScheduled').status, 'True');
  const decision = JSON.parse(pod.metadata.annotations['ksim.io/scheduling-decision']);
  assert.equal(decision.node, 'node-a');
  assert.equal(decision.feasible, 1);
  assert.match(decision.rejected['node-b'], /^TaintToleration: node\(s\) had untolerated taint/);
  const ev = await until(
    async () => (await client.list(events, { namespace: 'default', fieldSelector: 'involvedObject.name=web-1,reason=Scheduled' })).items[0],
    'Scheduled event',
  );
  assert.equal(ev.message, 'Successfully assigned default/web-1 to node-a');
  assert.equal(ev.source.component, 'default-scheduler');
});

test("a Pod that fits nowhere gets kube's FailedScheduling message and PodScheduled=False", async () => {
  await client.create(pods, 'default', makePod('huge', { cpu: '3' }));
  const expected =
    '0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';
  const cond = await until(
    async () => (await client.get(pods, 'default', 'huge')).status?.conditions?.find((c: any) => c.type === 'PodScheduled'),
    'condition',
  );
  assert.equal(cond.status, 'False');
  assert.equal(cond.reason, 'Unschedulable');
  assert.equal(cond.message, expected);
  const ev = await until(
    async () =>
      (await client.list(events, { namespace: 'default', fieldSelector: 'involvedObject.name=huge,reason=FailedScheduling' })).items[0],
    'event',
  );
  assert.equal(ev.type, 'Warning');
  assert.equal(ev.message, expected);
  assert.equal(scheduler.queue.where('default/huge'), 'unschedulable');
  await client.delete(pods, 'default', 'huge');
});

test('a Pending Pod is scheduled as soon as a node label change makes it fit', async () => {
  await client.create(pods, 'default', makePod('picky', { nodeSelector: { disk: 'ssd' } }));
  await until(() => (scheduler.queue.where('default/picky') === 'unschedulable' ? true : undefined), 'picky to be parked');
  const node = await client.get(nodes, undefined, 'node-a');
  node.metadata.labels.disk = 'ssd';
  await client.update(nodes, node);
  assert.equal(await boundNode('picky'), 'node-a');
});

test('a Pod with spec.nodeName bypasses the scheduler; other schedulerNames are left alone', async () => {
  await client.create(pods, 'default', makePod('pinned', { nodeName: 'node-c' }));
  await client.create(pods, 'default', makePod('foreign', { schedulerName: 'someone-else' }));
  await new Promise((r) => setTimeout(r, 300));
  const foreign = await client.get(pods, 'default', 'foreign');
  assert.equal(foreign.spec.nodeName, undefined);
  assert.equal(foreign.status.conditions, undefined);
  assert.equal((await client.get(pods, 'default', 'pinned')).spec.nodeName, 'node-c');
});

test('Pods spread over equal nodes; toleration, anti-affinity and a second profile decide placement', async () => {
  for (const n of ['spread-1', 'spread-2', 'spread-3'])
    await client.create(nodes, undefined, makeNode(n, { cpu: '4', labels: { pool: 'spread' } }));
  const tol = [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }];
  for (let i = 0; i < 6; i++)
    await client.create(pods, 'default', makePod(`even-${i}`, { cpu: '500m', nodeSelector: { pool: 'spread' }, labels: { app: 'even' } }));
  const placed = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => boundNode(`even-${i}`)));
  const counts = new Map<string, number>();
  for (const n of placed) counts.set(n, (counts.get(n) ?? 0) + 1);
  const why = await Promise.all(
    [0, 1, 2, 3, 4, 5].map(
      async (i) => (await client.get(pods, 'default', `even-${i}`)).metadata.annotations['ksim.io/scheduling-decision'],
    ),
  );
  assert.deepEqual([...counts.values()].sort(), [2, 2, 2], `placement ${placed.join(',')}\n${why.join('\n')}`);
  const anti = {
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { labelSelector: { matchLabels: { app: 'solo' } }, topologyKey: 'kubernetes.io/hostname' },
      ],
    },
  };
  for (let i = 0; i < 3; i++)
    await client.create(
      pods,
      'default',
      makePod(`solo-${i}`, {
        labels: { app: 'solo' },
        affinity: anti,
        tolerations: tol,
        nodeSelector: { 'kubernetes.io/hostname': ['node-b', 'node-c', 'node-a'][i] },
      }),
    );
  assert.deepEqual(await Promise.all([0, 1, 2].map((i) => boundNode(`solo-${i}`))), ['node-b', 'node-c', 'node-a']);
  await client.create(
    pods,
    'default',
    makePod('solo-3', { labels: { app: 'solo' }, affinity: anti, tolerations: tol, nodeSelector: { 'kubernetes.io/hostname': 'node-a' } }),
  );
  const cond = await until(
    async () => (await client.get(pods, 'default', 'solo-3')).status?.conditions?.find((c: any) => c.type === 'PodScheduled'),
    'solo-3 condition',
  );
  assert.match(
    cond.message,
    /^0\/6 nodes are available: 1 node\(s\) didn't match pod anti-affinity rules, 5 node\(s\) didn't match Pod's node affinity\/selector\./,
  );
  // The packer profile (MostAllocated, weight 5) stacks Pods on the fullest spread node.
  for (let i = 0; i < 3; i++) {
    await client.create(
      pods,
      'default',
      makePod(`packed-${i}`, { cpu: '100m', schedulerName: 'packer', nodeSelector: { pool: 'spread' } }),
    );
  }
  const packed = await Promise.all([0, 1, 2].map((i) => boundNode(`packed-${i}`)));
  assert.equal(new Set(packed).size, 1, `packed onto ${packed.join(',')}`);
});

test('a paused scheduler holds each attempt at its gate; a step lets one through and notes the filter and score table', async () => {
  stepper.pause('scheduler');
  try {
    await client.create(pods, 'default', makePod('held-1', { cpu: '100m' }));
    // The scheduler takes one attempt at a time: a Pod an earlier test left Pending may be retried
    // first and hold the gate, with held-1 queued behind it. Let such attempts through.
    const held = await until(async () => {
      const waiting = stepper.snapshot('scheduler')[0].waiting;
      const mine = waiting.find((w) => w.key === 'default/held-1');
      if (!mine && waiting.length) await stepper.step('scheduler');
      return mine;
    }, 'held-1 at the gate');
    assert.ok(held.triggers.length === 1 && /^\d+$/.test(held.triggers[0]), 'the attempt names the Pod revision it schedules');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await client.get(pods, 'default', 'held-1')).spec?.nodeName, undefined, 'a held Pod is not bound');
    const item = await stepper.step('scheduler')!;
    assert.equal(item.state, 'done');
    const decision = item.notes[0] as {
      result: string;
      node: string;
      feasible: number;
      rejected: Record<string, string>;
      scores: unknown[];
    };
    assert.equal(decision.result, 'Scheduled');
    assert.ok(decision.feasible >= 1);
    assert.match(decision.rejected['node-b'], /^TaintToleration: /);
    assert.ok(decision.scores.length >= 1);
    assert.equal(await boundNode('held-1'), decision.node, 'bound where the noted decision says');
  } finally {
    stepper.resume('scheduler');
  }
});
