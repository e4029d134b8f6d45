// creates: durable Pod creates from 50 closed-loop clients on keep-alive
// connections, with 0, 10 and 100 open watchers on /api/v1/pods that consume
// their streams. Each phase gets a fresh apiserver. Every watcher must
// receive every create, in resourceVersion order; the figures say how many
// did not. Side by side in one run, with no watchers: the floor server over
// HTTPS (floor-server.ts: what a durable JSON store that does nothing else
// reaches here), the apiserver as it runs by default (HTTPS, client
// certificate authentication, RBAC, admission, audit), the same over HTTPS
// with the request path off (--authorization-mode AlwaysAllow, every optional
// admission plugin disabled, an audit policy of None): their ratio is what
// the request path costs, as the issue measures it; and --insecure-http
// (plain HTTP as well), which also shows what TLS itself costs; and the
// default again with managedFields off (KSIM_MANAGED_FIELDS=off): their ratio
// is what recording field ownership on every create costs. Those four run
// twice, in mirrored order, and each ratio compares the means of two runs.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { closedLoop, LoadClient } from './load.ts';
import { CpuMeter, cpuTicker, runtimeMetrics } from './proc.ts';
import { podFixture } from './fixtures.ts';
import { measureRawPutRate, RAW_PUT_RATE } from './raw-store.ts';
import { bodyTemplate, currentRevision, firstResourceVersion, withApiserver } from './server.ts';
import { settleApiserver } from './settle.ts';
import { removeTempDir, spawnTracked, tempDir } from '../test/helpers/index.ts';
import { throwawayPki } from './throwaway-pki.ts';
import { OPTIONAL_ADMISSION_PLUGINS } from '../apiserver/admission/chain.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSequence, sumChecks, WatchStream } from './watch-stream.ts';
import type { BenchContext, Benchmark, Target } from './report.ts';

const CONCURRENCY = 50;
const PODS_PATH = '/api/v1/namespaces/default/pods';
const PHASES: { watchers: number; target: number }[] = [
  { watchers: 0, target: 10_000 },
  { watchers: 10, target: 8_000 },
  { watchers: 100, target: 4_000 },
];
const P99_TARGET: Target = { op: '<', value: 50 };
const FLOOR_SERVER = new URL('./floor-server.ts', import.meta.url).pathname;
/** The bound on the request path: HTTPS with authentication, RBAC and admission keeps 85% of the throughput without. */
const REQUEST_PATH_TARGET: Target = { op: '>=', value: 0.85 };

/** How the apiserver of a phase serves: its default, HTTPS with the request path off, or --insecure-http. */
type Mode = 'https' | 'https-off' | 'insecure' | 'no-managed-fields';

const MODE_LABELS: Record<Mode, string> = {
  https: '',
  'https-off': ', HTTPS, request path off',
  insecure: ', --insecure-http',
  'no-managed-fields': ', managedFields off',
};

/** The bound on managedFields: creates keep 85% of the throughput without them. */
const MANAGED_FIELDS_TARGET: Target = { op: '>=', value: 0.85 };

/** The apiserver flags of a mode (`dir` holds the audit policy file the mode needs). */
function modeArgs(mode: Mode, dir: string): string[] {
  if (mode === 'insecure') return ['--insecure-http'];
  if (mode === 'https' || mode === 'no-managed-fields') return [];
  const policy = join(dir, 'audit-none.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n');
  return [
    '--authorization-mode',
    'AlwaysAllow',
    '--disable-admission-plugins',
    OPTIONAL_ADMISSION_PLUGINS.join(','),
    '--audit-policy-file',
    policy,
  ];
}

/** What one mode reached: creates per second and latency percentiles (ms). */
interface ModeFigures {
  rate: number;
  p50: number;
  p99: number;
}

async function phase(
  ctx: BenchContext,
  watchers: number,
  rateTarget: number,
  rawRate: number,
  floorRate: number,
  mode: Mode = 'https',
  again = false,
): Promise<ModeFigures> {
  const label = `${watchers} watchers${MODE_LABELS[mode]}${again ? ' (again)' : ''}`;
  const durationMs = ctx.size(10_000, 1_000);
  let figures: ModeFigures = { rate: NaN, p50: NaN, p99: NaN };
  const argsDir = await tempDir('bench-mode');
  const env: Record<string, string> | undefined = mode === 'no-managed-fields' ? { KSIM_MANAGED_FIELDS: 'off' } : undefined;
  await withApiserver(
    modeArgs(mode, argsDir),
    async (server) => {
      const client = new LoadClient(server, CONCURRENCY);
      const streams: WatchStream[] = [];
      try {
        const body = bodyTemplate(1, (name) => podFixture(name, 'default'));
        await settleApiserver(server);
        // Warm the JIT of both processes before measuring; these creates precede the watchers' start.
        await closedLoop({
          concurrency: CONCURRENCY,
          durationMs: ctx.size(1000, 200),
          op: (seq) => client.expectOk('POST', PODS_PATH, body(`warm-${seq}`)).then(() => {}),
        });
        const fromRv = await currentRevision(client);
        // Sized for the target rate: growing a hundred large arrays at once stalls this process.
        const expectedEvents = Math.ceil((rateTarget * durationMs) / 1000);
        for (let i = 0; i < watchers; i++) streams.push(new WatchStream(server, '/api/v1/pods', expectedEvents));
        await Promise.all(streams.map((s) => s.open(fromRv)));

        const created: number[] = [];
        let lastRv = fromRv;
        const cpu = new CpuMeter(() => server.pid);
        const gc0 = (await runtimeMetrics(server)).gcSeconds;
        const benchLoop = monitorEventLoopDelay({ resolution: 10 });
        benchLoop.enable();
        cpu.start();
        const cpuNow = cpuTicker(() => server.pid);
        ctx.progress(`${label}: ${durationMs / 1000} s of creates from ${CONCURRENCY} clients`);
        const result = await closedLoop({
          concurrency: CONCURRENCY,
          durationMs,
          op: async (seq) => {
            const r = await client.request('POST', PODS_PATH, body(`pod-${String(seq).padStart(8, '0')}`));
            if (r.status !== 201) throw new Error(`HTTP ${r.status}: ${r.body.slice(0, 200)}`);
            const rv = firstResourceVersion(r.body);
            created.push(rv);
            if (rv > lastRv) lastRv = rv;
          },
          progress: {
            label,
            progress: ctx.progress,
            everyMs: ctx.size(3000, 500),
            extra: () =>
              (watchers ? `, slowest watcher ${lastRv - Math.min(...streams.map((s) => s.lastRv))} revisions behind` : '') + cpuNow(),
          },
        });
        const usage = cpu.read();
        benchLoop.disable();
        const runtime = await runtimeMetrics(server);
        const rate = (result.ok * 1000) / result.elapsedMs;
        figures = { rate, p50: result.latencies.percentile(50), p99: result.latencies.percentile(99) };
        ctx.record(`${label}: creates`, rate, '/s', { target: { op: '>=', value: rateTarget } });
        ctx.record(`${label}: create p50`, result.latencies.percentile(50), 'ms');
        ctx.record(`${label}: create p99`, result.latencies.percentile(99), 'ms', { target: P99_TARGET });
        ctx.record(`${label}: ratio to raw awaited put`, rate / rawRate, 'x');
        ctx.record(`${label}: ratio to the floor server (HTTPS)`, rate / floorRate, 'x');
        ctx.record(`${label}: apiserver CPU`, usage.server, '% of a core');
        ctx.record(`${label}: benchmark process CPU`, usage.client, '% of a core');
        ctx.record(`${label}: other processes' CPU`, usage.others, '% of a core', { note: 'anything but 0 skews the figures' });
        ctx.record(`${label}: apiserver GC time`, ((runtime.gcSeconds - gc0) * 100_000) / result.elapsedMs, '% of wall');
        ctx.record(`${label}: apiserver event-loop lag p99`, runtime.loopLagP99 * 1000, 'ms', {
          note: `max ${Math.round(runtime.loopLagMax * 1000)} ms`,
        });
        ctx.record(`${label}: benchmark process event-loop lag p99`, benchLoop.percentile(99) / 1e6, 'ms', {
          note: `max ${Math.round(benchLoop.max / 1e6)} ms`,
        });
        if (result.errors > 0) ctx.record(`${label}: failed creates`, result.errors, '', { note: result.errorSamples[0] });
        if (watchers === 0) return;

        const drainStart = performance.now();
        ctx.progress(`${label}: waiting for every watcher to receive resourceVersion ${lastRv}`);
        const caughtUp = await Promise.all(streams.map((s) => s.waitForRv(lastRv, 60_000)));
        const drainMs = performance.now() - drainStart;
        const expected = new Set(created);
        const check = sumChecks(streams.map((s) => checkSequence(s.rvs, expected)));
        const received = streams.reduce((n, s) => n + s.rvs.length, 0);
        ctx.record(`${label}: events received`, received, '', { note: `expected ${(created.length * watchers).toLocaleString('en-US')}` });
        ctx.record(`${label}: events missing`, check.missing, '', { target: { op: '<=', value: 0 } });
        ctx.record(`${label}: events out of order or duplicated`, check.outOfOrder + check.duplicates + check.extra, '', {
          target: { op: '<=', value: 0 },
        });
        ctx.record(`${label}: drain after last create`, drainMs, 'ms', {
          note: `${caughtUp.filter((x) => !x).length} watchers never caught up`,
        });
        const dropped = streams.reduce((n, s) => n + s.serverEnds, 0);
        if (dropped > 0) ctx.record(`${label}: watches ended by the server`, dropped, '');
        const mismatches = streams.reduce((n, s) => n + s.mismatches, 0);
        if (mismatches > 0) ctx.record(`${label}: watch lines misread by the fast parser`, mismatches, '');
      } finally {
        for (const s of streams) s.close();
        client.close();
      }
    },
    env,
  );
  await removeTempDir(argsDir);
  return figures;
}

/** The same load against the floor server over HTTPS (a throwaway CA, a client certificate shown). */
async function floorPhase(ctx: BenchContext): Promise<ModeFigures> {
  const dataDir = await tempDir('bench-floor');
  const tlsDir = `${dataDir}/tls`;
  const tls = await throwawayPki(tlsDir);
  const proc = await spawnTracked(process.execPath, ['--import', 'tsx', FLOOR_SERVER, `${dataDir}/db`, tlsDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      proc.child.stdout!.once('data', (d) => resolve(Number(String(d).trim())));
      void proc.exited.then(() => reject(new Error('the floor server exited before it listened')));
    });
    const client = new LoadClient({ url: `https://127.0.0.1:${port}`, tls }, CONCURRENCY);
    try {
      const body = bodyTemplate(1, (name) => podFixture(name, 'default'));
      const op = (seq: number) => client.expectOk('POST', PODS_PATH, body(`pod-${String(seq).padStart(8, '0')}`)).then(() => {});
      await closedLoop({ concurrency: CONCURRENCY, durationMs: ctx.size(1000, 200), op: (seq) => op(seq + 1e8) });
      ctx.progress(`floor server: ${ctx.size(10_000, 1_000) / 1000} s of creates from ${CONCURRENCY} clients`);
      const result = await closedLoop({ concurrency: CONCURRENCY, durationMs: ctx.size(10_000, 1_000), op });
      const rate = (result.ok * 1000) / result.elapsedMs;
      ctx.record('floor server (HTTPS): creates (no apiserver work, same client)', rate, '/s', {
        note: 'node:https with a client certificate + JSON + synced LevelDB batches',
      });
      ctx.record('floor server (HTTPS): create p50', result.latencies.percentile(50), 'ms');
      ctx.record('floor server (HTTPS): create p99', result.latencies.percentile(99), 'ms');
      return { rate, p50: result.latencies.percentile(50), p99: result.latencies.percentile(99) };
    } finally {
      client.close();
    }
  } finally {
    await proc.stop();
    await removeTempDir(dataDir);
  }
}

export const creates: Benchmark = {
  name: 'creates',
  description:
    'durable Pod creates, 50 keep-alive clients: HTTPS with authn+RBAC+admission+audit vs HTTPS with them off vs --insecure-http vs the floor server (HTTPS), then 10 and 100 watchers',
  async run(ctx: BenchContext) {
    let rawRate = ctx.shared.get(RAW_PUT_RATE);
    if (rawRate === undefined) {
      ctx.progress('raw-store did not run: measuring the raw awaited-put rate for the ratio');
      rawRate = await measureRawPutRate(ctx.size(2000, 300));
      ctx.record('raw awaited put (reference)', rawRate, 'puts/s');
    }
    const floor = await floorPhase(ctx);
    const [first, ...rest] = PHASES;
    // The modes run twice, in mirrored order (A B C D D C B A), and each figure is the mean of its two
    // runs: a machine that speeds up or slows down during the run then weighs on every ratio alike.
    const modes: Mode[] = ['https', 'no-managed-fields', 'https-off', 'insecure'];
    const runs = new Map<Mode, ModeFigures[]>(modes.map((m) => [m, []]));
    for (const m of modes) runs.get(m)!.push(await phase(ctx, first.watchers, first.target, rawRate, floor.rate, m));
    for (const m of [...modes].reverse()) runs.get(m)!.push(await phase(ctx, first.watchers, first.target, rawRate, floor.rate, m, true));
    const mean = (m: Mode): ModeFigures => {
      const r = runs.get(m)!;
      const avg = (f: (x: ModeFigures) => number) => r.reduce((a, x) => a + f(x), 0) / r.length;
      return { rate: avg((x) => x.rate), p50: avg((x) => x.p50), p99: avg((x) => x.p99) };
    };
    const [secure, noManagedFields, off, insecure] = modes.map(mean);
    const spread = (m: Mode) =>
      runs
        .get(m)!
        .map((x) => Math.round(x.rate).toLocaleString('en-US'))
        .join(' and ');
    ctx.record('managedFields: HTTPS default / the same with managedFields off', secure.rate / noManagedFields.rate, 'x', {
      target: MANAGED_FIELDS_TARGET,
      note: `they cost ${Math.round((1 - secure.rate / noManagedFields.rate) * 100)}% of the throughput (means of ${spread('https')} and of ${spread('no-managed-fields')} /s)`,
    });
    ctx.record('request path: HTTPS with authn+RBAC+admission+audit / HTTPS with them off', secure.rate / off.rate, 'x', {
      target: REQUEST_PATH_TARGET,
      note: `it costs ${Math.round((1 - secure.rate / off.rate) * 100)}% of the throughput (means of ${spread('https')} and of ${spread('https-off')} /s)`,
    });
    ctx.record('request path: p99 with it minus p99 without', secure.p99 - off.p99, 'ms');
    ctx.record('TLS and the request path: HTTPS default / --insecure-http', secure.rate / insecure.rate, 'x', {
      note: `together they cost ${Math.round((1 - secure.rate / insecure.rate) * 100)}% of the throughput`,
    });
    const row = (name: string, f: ModeFigures) =>
      `${name.padEnd(40)} ${Math.round(f.rate).toString().padStart(7)} creates/s  p50 ${f.p50.toFixed(1).padStart(6)} ms  p99 ${f.p99.toFixed(1).padStart(6)} ms  ${(f.rate / floor.rate).toFixed(2)}x floor`;
    ctx.progress(
      `side by side, no watchers (means of two runs each):\n  ${row('floor server (HTTPS)', floor)}\n  ${row('apiserver --insecure-http', insecure)}\n  ${row('apiserver HTTPS, request path off', off)}\n  ${row('apiserver HTTPS, managedFields off', noManagedFields)}\n  ${row('apiserver HTTPS + authn + RBAC + admission', secure)}`,
    );
    for (const p of rest) await phase(ctx, p.watchers, p.target, rawRate, floor.rate);
  },
};
