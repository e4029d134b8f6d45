// Tables for the usage model: what a command line demands, and how the
// meter turns demand, requests and limits into cumulative CPU and memory.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { baselineOf } from './baselines.ts';
import { UsageMeter, NODE_SYSTEM, type ContainerRun } from './meter.ts';
import { demandOf } from './profile.ts';
import { RequestCounter } from './requests.ts';

const Mi = 1024 * 1024;

test('a command line demands cores and bytes', () => {
  const cases: [string[], number, number][] = [
    [['sleep', '3600'], 0, 0],
    [['sh', '-c', 'while true; do :; done'], 1, 0],
    [['sh', '-c', 'while true; do sleep 1; done'], 0, 0],
    [['sh', '-c', 'while :; do i=$((i+1)); done'], 1, 0],
    [['/bin/sh', '-c', 'while true; do wget -q -O- http://php-apache; done'], 0, 0],
    [['sh', '-c', 'while sleep 0.01; do wget -q -O- http://php-apache; done'], 0, 0],
    [['sh', '-c', 'yes > /dev/null'], 1, 0],
    [['dd', 'if=/dev/zero', 'of=/dev/null'], 1, 0],
    [['sh', '-c', 'md5sum /dev/zero & md5sum /dev/zero'], 2, 0],
    [['stress', '--cpu', '2'], 2, 0],
    [['stress', '-c', '3', '--timeout', '60s'], 3, 0],
    [['stress-ng', '--cpu=2'], 2, 0],
    [['/stress', '-cpus', '2'], 2, 0],
    [['stress', '--vm', '1', '--vm-bytes', '100M', '--vm-hang', '1'], 0, 100 * Mi],
    [['stress', '--vm', '2', '--vm-bytes', '50M'], 2, 100 * Mi],
    [['sh', '-c', 'alloc 250Mi; sleep 3600'], 0, 250 * Mi],
    [['sh', '-c', 'echo start; stress --vm 1 --vm-bytes 150M --vm-hang 1'], 0, 150 * Mi],
  ];
  for (const [argv, cores, bytes] of cases) assert.deepEqual(demandOf(argv), { cpuCores: cores, memoryBytes: bytes }, argv.join(' '));
});

const run = (over: Partial<ContainerRun>): ContainerRun => ({
  id: 'c1',
  startedAt: 0,
  demand: { cpuCores: 0, memoryBytes: 0 },
  baseline: { cpuCores: 0, memoryBytes: 2 * Mi, cpuPerRequest: 0 },
  ...over,
});

test('the meter integrates demand, capped at limits.cpu and the node', () => {
  // [case, run, seconds after start, expected cumulative core-seconds, expected rate]
  const cases: [string, Partial<ContainerRun>, number, number, number][] = [
    ['idle', {}, 10, 0, 0],
    ['a busy loop, one core', { demand: { cpuCores: 1, memoryBytes: 0 } }, 10, 10, 1],
    ['throttled at limits.cpu 200m', { demand: { cpuCores: 1, memoryBytes: 0 }, limitCores: 0.2 }, 10, 2, 0.2],
    ['stress --cpu 8 on a 4-core node', { demand: { cpuCores: 8, memoryBytes: 0 } }, 10, 40, 4],
    ['baseline 2m', { baseline: { cpuCores: 0.002, memoryBytes: 0, cpuPerRequest: 0 } }, 10, 0.02, 0.002],
  ];
  for (const [name, over, s, cum, rate] of cases) {
    const m = new UsageMeter(4, 0, () => 0.5);
    const got = m.sample(run(over), s * 1000);
    assert.ok(Math.abs(got.cpuSeconds - cum) < 1e-9, `${name}: ${got.cpuSeconds}`);
    assert.ok(Math.abs(got.cpuCores - rate) < 1e-9, `${name}: rate ${got.cpuCores}`);
  }
});

test('requests served drive CPU; a restart starts a new counter', () => {
  const m = new UsageMeter(4, 0, () => 0.5);
  const base = { baseline: { cpuCores: 0, memoryBytes: 10 * Mi, cpuPerRequest: 0.01 }, limitCores: 0.5 };
  assert.equal(m.sample(run({ ...base, requestCpu: 0 }), 10_000).cpuSeconds, 0);
  // 30 requests of 10 ms in 10 s: 30 m-cores.
  const light = m.sample(run({ ...base, requestCpu: 0.3 }), 20_000);
  assert.ok(Math.abs(light.cpuCores - 0.03) < 1e-9, String(light.cpuCores));
  // 10,000 requests in 10 s would be 10 cores: CFS holds it at the 500m limit.
  const heavy = m.sample(run({ ...base, requestCpu: 100.3 }), 30_000);
  assert.equal(heavy.cpuCores, 0.5);
  assert.ok(Math.abs(heavy.cpuSeconds - 5.3) < 1e-9);
  // Restarted: a new container ID counts from its own start.
  const again = m.sample(run({ ...base, id: 'c2', startedAt: 35_000, requestCpu: 100.3 }), 40_000);
  assert.equal(again.cpuSeconds, 0);
  m.retain(new Set(['c2']));
  assert.equal(m.sample(run({ ...base, requestCpu: 100.3 }), 41_000).cpuSeconds, 0, 'c1 was forgotten');
});

test('memory is the baseline plus what the command holds, never above limits.memory', () => {
  const m = new UsageMeter(4, 0, () => 0.5);
  const demand = { cpuCores: 0, memoryBytes: 100 * Mi };
  assert.equal(m.sample(run({ demand }), 1000).memoryBytes, 102 * Mi);
  assert.equal(m.sample(run({ id: 'x', demand, limitBytes: 64 * Mi }), 1000).memoryBytes, 64 * Mi);
});

test('a node is its system overhead plus its containers', () => {
  const m = new UsageMeter(4, 0, () => 0.5);
  const first = m.sampleNode('n', 0, 0, 10_000);
  assert.ok(Math.abs(first.cpuSeconds - NODE_SYSTEM.cpuCores * 10) < 1e-9);
  const next = m.sampleNode('n', 10, 100 * Mi, 20_000);
  assert.ok(Math.abs(next.cpuCores - (NODE_SYSTEM.cpuCores + 1)) < 1e-9);
  assert.equal(next.memoryBytes, NODE_SYSTEM.memoryBytes + 100 * Mi);
});

test('baselines: by server kind, a shell otherwise, the catalog entry overriding', () => {
  assert.equal(baselineOf({ repository: 'docker.io/library/nginx', serves: 'nginx' }, true).memoryBytes, 3.2 * Mi);
  assert.equal(baselineOf({ repository: 'docker.io/library/nginx', serves: 'nginx' }, false).memoryBytes, 0.4 * Mi);
  const own = baselineOf({ repository: 'x/y', serves: 'nginx', usage: { cpu: '5m', memory: '64Mi', cpuPerRequest: '20m' } }, true);
  assert.deepEqual(own, { cpuCores: 0.005, memoryBytes: 64 * Mi, cpuPerRequest: 0.02 });
});

test('the request counter charges each request through the listener', () => {
  const c = new RequestCounter();
  const l = c.counting('10.244.0.5', { http: () => ({ status: 200, body: 'OK!' }) }, 0.01);
  for (let i = 0; i < 3; i++) l.http!({ method: 'GET', path: '/', query: new URLSearchParams(), host: 'x', clientIP: 'y' });
  assert.ok(Math.abs(c.total('10.244.0.5') - 0.03) < 1e-12);
  assert.equal(c.total('10.244.0.6'), 0);
});

test('an unthrottled process wobbles within 1% of its demand; memory is whole pages', () => {
  for (const r of [0, 0.999]) {
    const m = new UsageMeter(4, 0, () => r);
    const s = m.sample(run({ demand: { cpuCores: 1, memoryBytes: 1000 } }), 10_000);
    assert.ok(s.cpuCores >= 0.99 && s.cpuCores <= 1.01 && s.cpuCores !== 1, String(s.cpuCores));
    assert.equal(s.memoryBytes % 4096, 0);
  }
});
