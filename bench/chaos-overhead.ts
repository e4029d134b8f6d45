// chaos-overhead: what the apiserver's fault injection costs when it
// injects nothing. One apiserver, started as `ksim up` starts it (with its
// control channel), takes durable Pod creates from 50 closed-loop clients in
// alternating rounds: no fault set (the hook's one boolean test), then a
// fault set that matches no request (user "nobody", with latency, errors and
// a watch delay), so that every create runs the matching code and is let
// through. Alternating in one process cancels drift; the ratio of the two
// rates is what the issue bounds (under 3% of create throughput). On a
// busy machine that ratio is mostly noise, so the hook's own cost is also
// timed in this process: nanoseconds per request with no fault and with a
// fault that matches nothing, as a share of a create at the 10,000/s.
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { ComponentReply, ComponentRequest } from '../shared/chaos/protocol.ts';
import { loadKubeconfig } from '../shared/client/kubeconfig.ts';
import type { ServingMessage } from '../apiserver/main.ts';
import { freePort, ksimNodeArgs, removeTempDir, repoRoot, spawnTracked, tempDir, tlsMaterialOf } from '../test/helpers/index.ts';
import { closedLoop, LoadClient } from './load.ts';
import { podFixture } from './fixtures.ts';
import { bodyTemplate } from './server.ts';
import { settleApiserver } from './settle.ts';
import type { BenchContext, Benchmark } from './report.ts';
import { apiserverFaults, checkFaultSpec } from '../apiserver/chaos/fault-table.ts';
import { injectRequestFaults, type FaultTarget } from '../apiserver/chaos/request-faults.ts';

const CONCURRENCY = 50;
const PODS_PATH = '/api/v1/namespaces/default/pods';
/** A fault of every request kind, for a user no request comes from. */
const NO_MATCH_FAULT = { id: 'bench-nobody', match: { user: 'nobody' }, latencyMs: 1000, errorRate: 1, watchDelayMs: 1000, seed: 1 };

/** Nanoseconds per request of the request hook as api-handler.ts runs it (the test, then the matching when a fault is set). */
async function hookNanos(n: number): Promise<number> {
  const target: FaultTarget = {
    userAgent: 'kubectl/v1.35.0',
    user: 'kubernetes-admin',
    verb: 'create',
    resource: 'pods',
    subresource: '',
    name: '',
  };
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) if (apiserverFaults.requestFaults) await injectRequestFaults(target);
  return Number(process.hrtime.bigint() - t0) / n;
}

/** A create's time at the target rate (10,000/s): the budget the hook's cost is a share of. */
const CREATE_BUDGET_NS = 100_000;

export const chaosOverhead: Benchmark = {
  name: 'chaos-overhead',
  description: 'durable Pod creates with no fault set vs a fault set that matches nothing (user "nobody"), alternating on one apiserver',
  async run(ctx: BenchContext) {
    const calls = ctx.size(2_000_000, 200_000);
    await hookNanos(calls);
    const idle = await hookNanos(calls);
    apiserverFaults.set(checkFaultSpec(NO_MATCH_FAULT));
    await hookNanos(calls);
    const nomatch = await hookNanos(calls);
    apiserverFaults.clear();
    ctx.record('request hook, no fault set', idle, 'ns/request', { note: 'one boolean test' });
    ctx.record('request hook, a fault matching nothing', nomatch, 'ns/request', {
      note: `${((100 * nomatch) / CREATE_BUDGET_NS).toFixed(2)}% of a create at 10,000/s`,
    });
    const dataDir = await tempDir('bench-chaos');
    const logFile = join(dataDir, 'apiserver.log');
    const fd = openSync(logFile, 'a');
    const proc = await spawnTracked(
      process.execPath,
      [...ksimNodeArgs(), 'apiserver', '--data-dir', dataDir, '--port', String(await freePort())],
      { cwd: repoRoot, env: { ...process.env, KSIM_SUPERVISOR_PID: String(process.pid) }, stdio: ['ignore', fd, fd, 'ipc'] },
    ).finally(() => closeSync(fd));
    const replies = new Map<number, (r: ComponentReply) => void>();
    let nextId = 1;
    const control = async (op: string, args: Record<string, unknown>) => {
      const id = nextId++;
      const reply = new Promise<ComponentReply>((resolve) => replies.set(id, resolve));
      proc.child.send({ type: 'ksim-control', id, op, args } satisfies ComponentRequest);
      const r = await reply;
      if (!r.ok) throw new Error(`${op}: ${r.error}`);
    };
    try {
      const serving = await new Promise<ServingMessage>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`apiserver not serving after 60 s (log: ${logFile})`)), 60_000);
        proc.child.on('message', (m: ServingMessage | ComponentReply) => {
          if (m.type === 'serving') {
            clearTimeout(timer);
            resolve(m);
          } else if (m.type === 'ksim-control-reply') replies.get(m.id)?.(m);
        });
        void proc.exited.then(() => reject(new Error(`apiserver exited (log: ${logFile})`)));
      });
      const config = loadKubeconfig(serving.kubeconfig);
      const server = { url: config.server, tls: tlsMaterialOf(config) };
      await settleApiserver(server);
      const client = new LoadClient(server, CONCURRENCY);
      try {
        const body = bodyTemplate(1, (name) => podFixture(name, 'default'));
        let seq = 0;
        const op = () => client.expectOk('POST', PODS_PATH, body(`pod-${String(seq++).padStart(8, '0')}`)).then(() => {});
        await closedLoop({ concurrency: CONCURRENCY, durationMs: ctx.size(3000, 300), op });
        const totals = {
          off: { ok: 0, errors: 0, ms: 0, p99s: [] as number[] },
          on: { ok: 0, errors: 0, ms: 0, p99s: [] as number[] },
        };
        const rounds = ctx.size(6, 1);
        const roundMs = ctx.size(2000, 500);
        for (let round = 1; round <= rounds; round++) {
          for (const variant of ['off', 'on'] as const) {
            if (variant === 'on') await control('apiserver.faults.set', NO_MATCH_FAULT);
            else await control('apiserver.faults.clear', {});
            const r = await closedLoop({ concurrency: CONCURRENCY, durationMs: roundMs, op });
            const t = totals[variant];
            t.ok += r.ok;
            t.errors += r.errors;
            t.ms += r.elapsedMs;
            t.p99s.push(r.latencies.percentile(99));
            ctx.progress(
              `round ${round}/${rounds}, ${variant === 'off' ? 'no fault' : 'a fault matching nothing'}: ${Math.round((r.ok * 1000) / r.elapsedMs)} creates/s`,
            );
          }
        }
        await control('apiserver.faults.clear', {});
        const rate = (v: 'off' | 'on') => (totals[v].ok * 1000) / totals[v].ms;
        const p99 = (v: 'off' | 'on') => totals[v].p99s.reduce((a, b) => a + b, 0) / totals[v].p99s.length;
        ctx.record('no fault set: creates', rate('off'), '/s');
        ctx.record('no fault set: create p99', p99('off'), 'ms', { note: 'mean of the rounds' });
        ctx.record('a fault matching nothing: creates', rate('on'), '/s');
        ctx.record('a fault matching nothing: create p99', p99('on'), 'ms', { note: 'mean of the rounds' });
        ctx.record('a fault matching nothing / no fault set', rate('on') / rate('off'), 'x', {
          target: { op: '>=', value: 0.97 },
          note: `matching every request costs ${(100 * (1 - rate('on') / rate('off'))).toFixed(1)}% of create throughput; ${rounds} alternating rounds of ${roundMs / 1000} s each`,
        });
        const errors = totals.off.errors + totals.on.errors;
        if (errors > 0) ctx.record('failed creates', errors, '');
      } finally {
        client.close();
      }
    } finally {
      await proc.stop();
      await removeTempDir(dataDir);
    }
  },
};
