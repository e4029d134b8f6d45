// ProbeRunner against what a container serves: grpc and tcpSocket ask whether the port is open, httpGet the
// status; an exec probe whose executable is missing errors without counting towards failureThreshold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Container } from 'kubernetes-types/core/v1.js';
import { FakeClock } from '../../shared/clock/clock.ts';
import { ProbeRunner, type ProbeHooks } from './probes.ts';
import type { ExitResult } from './shell.ts';

function run(c: Container, over: Partial<ProbeHooks>) {
  const clock = new FakeClock();
  const seen: string[] = [];
  const hooks: ProbeHooks = {
    clock,
    speed: 1,
    podIP: '10.244.1.5',
    listening: false,
    exec: (): Promise<ExitResult> => Promise.resolve({ exitCode: 0 }),
    onStarted: () => seen.push('started'),
    onReady: (r) => seen.push(`ready=${r}`),
    onUnhealthy: (kind, message, errored) => seen.push(`${kind} ${errored ? 'errored' : 'failed'}: ${message}`),
    onFailed: (kind) => seen.push(`${kind} killed`),
    ...over,
  };
  const r = new ProbeRunner(c, hooks);
  r.start();
  return { clock, seen, stop: () => r.stop() };
}

test('a grpc liveness probe: open port passes, closed port fails with the grpc prober text and kills', async () => {
  const c: Container = { name: 'g', livenessProbe: { grpc: { port: 9000 }, periodSeconds: 1, failureThreshold: 2 } };
  const open = run(c, { tcpOpen: () => true });
  await open.clock.step(5000);
  assert.deepEqual(open.seen, []);
  open.stop();
  const closed = run(c, { tcpOpen: () => false });
  await closed.clock.step(1500);
  assert.deepEqual(closed.seen, [
    'Liveness failed: timeout: failed to connect service "10.244.1.5:9000" within 1s: context deadline exceeded',
    'Liveness failed: timeout: failed to connect service "10.244.1.5:9000" within 1s: context deadline exceeded',
    'Liveness killed',
  ]);
});

test('an exec probe whose executable is missing errors and never kills', async () => {
  const c: Container = { name: 'e', livenessProbe: { exec: { command: ['pg_isready'] }, periodSeconds: 1, failureThreshold: 1 } };
  const r = run(c, {
    exec: (_argv, out) => {
      out('sh: pg_isready: not found\n');
      return Promise.resolve({ exitCode: 127 });
    },
  });
  await r.clock.step(3500);
  r.stop();
  assert.equal(r.seen.length, 4);
  for (const s of r.seen)
    assert.match(
      s,
      /^Liveness errored: rpc error: code = Unknown desc = failed to exec in container: failed to start exec "[0-9a-f]{64}": .*exec: "pg_isready": executable file not found in \$PATH: unknown$/,
    );
});

test('an httpGet readiness probe: a 500 is a failure with its status code', async () => {
  const c: Container = { name: 'h', readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 1, failureThreshold: 1 } };
  const r = run(c, { httpGet: () => 500 });
  await r.clock.step(500);
  r.stop();
  assert.deepEqual(r.seen, ['Readiness failed: HTTP probe failed with statuscode: 500', 'ready=false']);
});
