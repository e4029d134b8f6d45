// The container and kubelet faults on a pod worker (FakeClock, no apiserver):
// a SIGKILLed container restarts per restartPolicy, an evicted Pod fails as
// kubelet's eviction manager writes it, a frozen kubelet restarts nothing
// until it is thawed; and the eviction manager evicts by kube's ranking
// until the shortfall is covered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import pino from 'pino';
import { FakeClock } from '../../shared/clock/clock.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import { NodeFleet, type SimNode } from '../node/node-fleet.ts';
import { DEFAULT_PROFILE } from '../node/node-object.ts';
import { fakeNode, MapConfigSource, MemoryRecorder } from '../runtime/fakes.ts';
import { LogStore } from '../runtime/log-store.ts';
import { PodWorker } from '../runtime/pod-worker.ts';
import { DEFAULT_TIMINGS } from '../runtime/timings.ts';
import { EVICTION_INTERVAL_MS, EvictionManager } from './eviction-manager.ts';
import { applyNodeAction, parseNodeAction } from './node-actions.ts';
import { killPod } from './pod-kill.ts';

const log = pino({ level: 'silent' });

function podOf(name: string, spec: Partial<Pod['spec']> = {}, nodeName = 'node-0'): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: 'default', name, uid: `uid-${name}` },
    spec: { nodeName, restartPolicy: 'Always', containers: [{ name: 'c', image: 'nginx' }], ...spec },
  };
}

function workerOf(pod: Pod, clock: FakeClock, recorder = new MemoryRecorder(() => clock.now()), logs = new LogStore()) {
  const w = new PodWorker(pod, {
    clock,
    timings: DEFAULT_TIMINGS,
    speed: 1,
    node: fakeNode(),
    recorder,
    config: new MapConfigSource(),
    logs,
    onChange: () => {},
  });
  w.start();
  return { w, recorder };
}

const running = (w: PodWorker) => w.status().containerStatuses?.[0]?.state?.running !== undefined;

test('pod.kill: the container dies with 137/Error and is restarted (restartCount 1, lastState terminated)', async () => {
  const clock = new FakeClock();
  const { w } = workerOf(podOf('web'), clock);
  await clock.step(5000);
  assert.ok(running(w));
  assert.deepEqual(w.killProcess(), { container: 'c' });
  await clock.step(1);
  const st = w.status().containerStatuses![0];
  assert.equal(st.state?.terminated?.exitCode, 137);
  assert.equal(st.state?.terminated?.reason, 'Error');
  await clock.step(DEFAULT_TIMINGS.restartMs + 500);
  const after = w.status().containerStatuses![0];
  assert.equal(after.restartCount, 1);
  assert.ok(after.state?.running, 'running again');
  assert.equal(after.lastState?.terminated?.exitCode, 137);
  assert.equal(after.lastState?.terminated?.reason, 'Error');
  assert.deepEqual(w.killProcess('nope'), { error: 'container "nope" not found' });
  w.stop();
});

test('pod.kill with restartPolicy Never: the Pod fails and stays down', async () => {
  const clock = new FakeClock();
  const { w } = workerOf(podOf('once', { restartPolicy: 'Never' }), clock);
  await clock.step(5000);
  w.killProcess('c');
  await clock.step(30_000);
  const st = w.status();
  assert.equal(st.phase, 'Failed');
  assert.equal(st.containerStatuses![0].restartCount, 0);
  assert.match(w.killProcess('c') && JSON.stringify(w.killProcess('c')), /is not running/);
  w.stop();
});

test('a frozen kubelet restarts nothing until it is back, then catches up', async () => {
  const clock = new FakeClock();
  const { w } = workerOf(podOf('web'), clock);
  await clock.step(5000);
  w.freeze();
  w.killProcess();
  await clock.step(20_000);
  assert.equal(w.status().containerStatuses![0].restartCount, 0, 'no restart while the kubelet is down');
  assert.ok(!running(w));
  w.thaw();
  await clock.step(DEFAULT_TIMINGS.restartMs + 500);
  assert.equal(w.status().containerStatuses![0].restartCount, 1);
  assert.ok(running(w));
  w.stop();
});

test('an evicted Pod: Failed, reason Evicted, the DisruptionTarget condition, the Evicted event; not deleted', async () => {
  const clock = new FakeClock();
  const { w, recorder } = workerOf(podOf('be'), clock);
  await clock.step(5000);
  const msg = 'The node was low on resource: memory. ';
  w.evict('Evicted', msg, 1000);
  await clock.step(2000);
  const st = w.status();
  assert.equal(st.phase, 'Failed');
  assert.equal(st.reason, 'Evicted');
  assert.equal(st.message, msg);
  const dt = st.conditions!.find((c) => c.type === 'DisruptionTarget')!;
  assert.equal(dt.status, 'True');
  assert.equal(dt.reason, 'TerminationByKubelet');
  assert.equal(dt.message, msg);
  assert.ok(st.containerStatuses![0].state?.terminated, 'its container was killed');
  assert.equal(w.terminated(), false, 'an evicted Pod is not deleted by kubelet');
  assert.ok(recorder.events.some((e) => e.line === `Warning Evicted: ${msg}`));
  await clock.step(60_000);
  assert.equal(w.status().containerStatuses![0].restartCount, 0, 'never restarted');
  // Deleted afterwards (kubectl delete, the Pod GC): the deletion is confirmed at once.
  w.update({ ...w.pod, metadata: { ...w.pod.metadata, deletionTimestamp: '2026-01-01T00:10:00Z' } });
  assert.equal(w.terminated(), true);
  w.stop();
});

/** A fleet with a client that accepts everything, and Pods run by workers on a FakeClock. */
function fixture(names = ['node-0', 'node-1']) {
  const clock = new FakeClock();
  const calls: string[] = [];
  const client = {
    create: (_r: unknown, _ns: unknown, body: { metadata?: object }) => {
      calls.push('create');
      return Promise.resolve({ ...body, metadata: { ...body.metadata, uid: 'u1', resourceVersion: '1' } });
    },
    patch: (_r: unknown, _ns: unknown, name: string, _t: unknown, body: unknown, sub?: string) => {
      calls.push(`patch ${name}${sub ? `/${sub}` : ''} ${JSON.stringify(body)}`);
      return Promise.resolve({ metadata: { name, uid: 'u1' }, status: {} });
    },
    update: (_r: unknown, body: unknown) => Promise.resolve(body),
    get: () => Promise.resolve({ metadata: {}, spec: {} }),
  } as unknown as KubeClient;
  const fleet = new NodeFleet(
    { client, clock, timings: DEFAULT_TIMINGS, profile: DEFAULT_PROFILE, endpoint: { host: '127.0.0.1', port: 1 }, log },
    names.map((name, index) => ({ name, index })),
  );
  for (const n of fleet.nodes.values()) n.registered = true;
  const recorder = new MemoryRecorder(() => clock.now());
  const entries: { pod: Pod; worker: PodWorker }[] = [];
  const nodeEvents: string[] = [];
  const pods = {
    podsOn: (node: string) =>
      entries.filter((e) => e.pod.spec?.nodeName === node).map((e) => ({ pod: { ...e.pod, status: e.worker.status() }, worker: e.worker })),
    nodeEvent: (node: SimNode, type: string, reason: string, message: string) =>
      nodeEvents.push(`${node.name} ${type} ${reason}: ${message}`),
    worker: (ns: string, name: string) => entries.find((e) => e.pod.metadata?.namespace === ns && e.pod.metadata.name === name)?.worker,
  };
  const add = (pod: Pod) => entries.push({ pod, worker: workerOf(pod, clock, recorder).w });
  return { clock, fleet, pods, add, entries, calls, nodeEvents, recorder };
}

const guaranteed = { resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '100m', memory: '64Mi' } } };

test('memory pressure: the condition, then one eviction per interval by rank until the shortfall is covered', async () => {
  const f = fixture();
  f.add(podOf('guaranteed', { containers: [{ name: 'c', image: 'nginx', ...guaranteed }] }));
  f.add(podOf('besteffort'));
  f.add(podOf('elsewhere', {}, 'node-1'));
  // A critical Pod (CoreDNS's system-cluster-critical) is never evicted, and what it uses is no part of the shortfall.
  f.add(podOf('dns', { priority: 2_000_000_000, containers: [{ name: 'c', image: 'nginx' }] }));
  await f.clock.step(5000);
  const ev = new EvictionManager({ fleet: f.fleet, pods: f.pods, clock: f.clock, speed: 1, log });
  const res = await ev.set('node-0', 'memory', true);
  assert.equal(res.condition, 'MemoryPressure=True');
  const posted = f.calls.find((c) => c.startsWith('patch node-0/status'))!;
  assert.match(
    posted,
    /"type":"MemoryPressure","status":"True".*"reason":"KubeletHasInsufficientMemory","message":"kubelet has insufficient memory available"/,
  );
  assert.deepEqual(f.nodeEvents, ['node-0 Normal NodeHasInsufficientMemory: Node node-0 status is now: NodeHasInsufficientMemory']);
  // Nothing before the first housekeeping pass.
  await f.clock.step(EVICTION_INTERVAL_MS - 10);
  assert.deepEqual(ev.evicted('node-0', 'memory'), []);
  await f.clock.step(20);
  assert.deepEqual(ev.evicted('node-0', 'memory'), ['default/besteffort'], 'BestEffort (over its zero request) goes first');
  assert.ok(f.nodeEvents.includes('node-0 Warning EvictionThresholdMet: Attempting to reclaim memory'));
  await f.clock.step(2000);
  const st = f.entries[1].worker.status();
  assert.equal(st.phase, 'Failed');
  assert.match(
    st.message!,
    /^The node was low on resource: memory\. Threshold quantity: 100Mi, available: \d+Ki\. Container c was using \d+Ki, request is 0, has larger consumption of memory\. $/,
  );
  // Half of what both used was short: one nginx covers it; the Guaranteed one stays.
  await f.clock.step(EVICTION_INTERVAL_MS * 3);
  assert.deepEqual(ev.evicted('node-0', 'memory'), ['default/besteffort']);
  assert.ok(running(f.entries[0].worker));
  assert.ok(running(f.entries[2].worker), 'other nodes are untouched');
  assert.ok(running(f.entries[3].worker), 'the critical Pod stays');
  const off = await ev.set('node-0', 'memory', false);
  assert.equal(off.condition, 'MemoryPressure=False');
  assert.match(f.calls.at(-1)!, /"type":"MemoryPressure","status":"False".*"reason":"KubeletHasSufficientMemory"/);
  assert.equal(f.nodeEvents.at(-1), 'node-0 Normal NodeHasSufficientMemory: Node node-0 status is now: NodeHasSufficientMemory');
  await assert.rejects(ev.set('node-9', 'memory', true), /no node node-9/);
  ev.stop();
  for (const e of f.entries) e.worker.stop();
});

test('a partitioned or frozen kubelet evicts nothing until it is back', async () => {
  const f = fixture();
  f.add(podOf('besteffort'));
  await f.clock.step(5000);
  const ev = new EvictionManager({ fleet: f.fleet, pods: f.pods, clock: f.clock, speed: 1, log });
  await ev.set('node-0', 'pid', true);
  f.fleet.kubeletDown('node-0', 'paused');
  await f.clock.step(EVICTION_INTERVAL_MS * 2);
  assert.deepEqual(ev.evicted('node-0', 'pid'), []);
  await f.fleet.kubeletUp('node-0', 'resume');
  await f.clock.step(EVICTION_INTERVAL_MS + 10);
  assert.deepEqual(ev.evicted('node-0', 'pid'), ['default/besteffort']);
  await f.clock.step(2000);
  assert.equal(f.entries[0].worker.status().message, 'The node was low on resource: pids. ');
  ev.stop();
  for (const e of f.entries) e.worker.stop();
});

test('node.action: arguments, modes and refusals', async () => {
  const f = fixture();
  assert.throws(() => parseNodeAction(f.fleet, { node: 'node-7', action: 'partition' }), /node "node-7" is not a node of this kubelet-sim/);
  assert.throws(() => parseNodeAction(f.fleet, { node: 'node-0', action: 'explode' }), /action must be one of partition, heal/);
  assert.throws(() => parseNodeAction(f.fleet, { action: 'heal' }), /node is required/);
  const step = async (action: string) => {
    const { node, action: a } = parseNodeAction(f.fleet, { node: 'node-0', action });
    return (await applyNodeAction(f.fleet, node, a)).mode;
  };
  assert.equal(await step('partition'), 'partitioned');
  await assert.rejects(step('kubelet-kill'), /partitioned; heal it first/);
  await assert.rejects(step('start'), /is partitioned, not stopped/);
  assert.equal(await step('heal'), 'running');
  assert.equal(await step('kubelet-kill'), 'kubelet-killed');
  await assert.rejects(step('kubelet-resume'), /killed, not paused; start it/);
  assert.equal(await step('kubelet-start'), 'running');
  assert.ok(f.calls.includes('create'), 'a started kubelet registers again');
  assert.equal(await step('kubelet-pause'), 'kubelet-paused');
  assert.equal(await step('kubelet-kill'), 'kubelet-killed', 'a paused kubelet can be killed');
  assert.equal(await step('kubelet-start'), 'running');
  assert.equal(await step('kubelet-stop'), 'kubelet-stopped');
  assert.equal(await step('kubelet-start'), 'running');
  assert.equal(await step('fail'), 'stopped');
  await assert.rejects(step('heal'), /is stopped, not partitioned/);
  await assert.rejects(step('kubelet-kill'), /powered off/);
  assert.equal(await step('start'), 'running');
  f.fleet.stop();
});

test('pod.kill: the Pod must run on a node of this process', async () => {
  const f = fixture();
  f.add(podOf('web'));
  await f.clock.step(5000);
  assert.throws(
    () => killPod(f.fleet, f.pods, { namespace: 'default', name: 'other' }),
    /pod "default\/other" is not running on any node of this kubelet-sim/,
  );
  assert.throws(() => killPod(f.fleet, f.pods, { name: 'web' }), /namespace is required/);
  assert.deepEqual(killPod(f.fleet, f.pods, { namespace: 'default', name: 'web' }), {
    namespace: 'default',
    name: 'web',
    node: 'node-0',
    container: 'c',
    exitCode: 137,
  });
  assert.throws(() => killPod(f.fleet, f.pods, { namespace: 'default', name: 'web', container: 'c' }), /container "c" is not running/);
  for (const e of f.entries) e.worker.stop();
});
