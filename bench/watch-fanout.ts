// watch-fanout: 100 watchers on /api/v1/pods while Pods are created at a
// paced 1,000/s (open loop). Measures the delay from sending each create to
// each watcher receiving its event, then drops every watcher, keeps
// creating for 2 s, reconnects each from its last seen resourceVersion and
// checks that every watcher got every event exactly once, in order.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { closedLoop, Histogram, LoadClient, openLoop } from './load.ts';
import { CpuMeter, cpuTicker, runtimeMetrics } from './proc.ts';
import { podFixture } from './fixtures.ts';
import { bodyTemplate, currentRevision, firstResourceVersion, withApiserver } from './server.ts';
import { settleApiserver } from './settle.ts';
import { checkSequence, sumChecks, WatchStream } from './watch-stream.ts';
import type { BenchContext, Benchmark } from './report.ts';

const WATCHERS = 100;
const RATE = 1000;
const GAP_MS = 2000;
/** Creates continue this long after the reconnect, so resumed watchers also get live events. */
const AFTER_MS = 2000;
const PODS_PATH = '/api/v1/namespaces/default/pods';
const NAME_PREFIX = 'fan-';

export const watchFanout: Benchmark = {
  name: 'watch-fanout',
  description: '100 watchers, 1,000 creates/s paced; delivery latency, order, resume after disconnect',
  async run(ctx: BenchContext) {
    const mainMs = ctx.size(60_000, 6_000);
    await withApiserver([], async (server) => {
      const client = new LoadClient(server, 256);
      const streams: WatchStream[] = [];
      try {
        const body = bodyTemplate(1, (name) => podFixture(name, 'default'));
        await settleApiserver(server);
        const warmFromRv = await currentRevision(client);

        const totalOps = Math.floor(((mainMs + GAP_MS + AFTER_MS) / 1000) * RATE);
        const sentAt = new Float64Array(totalOps);
        const delivery = new Histogram();
        // Progress lines show the last interval only.
        let recent = new Histogram();
        let measuring = true;
        const onEvent = (_type: string, _rv: number, name: string, at: number) => {
          if (!measuring || !name.startsWith(NAME_PREFIX)) return;
          const ms = at - sentAt[Number(name.slice(NAME_PREFIX.length))];
          delivery.add(ms);
          recent.add(ms);
        };
        const recentP99 = () => {
          const p99 = recent.percentile(99);
          recent = new Histogram();
          return p99;
        };
        for (let i = 0; i < WATCHERS; i++) {
          const s = new WatchStream(server, '/api/v1/pods', totalOps);
          s.onEvent = onEvent;
          streams.push(s);
        }
        await Promise.all(streams.map((s) => s.open(warmFromRv)));
        // Warm the create and the watch paths of both processes, then start counting from a clean slate.
        const warmMs = ctx.size(3000, 500);
        ctx.progress(`warming up: ${warmMs / 1000} s of creates from 50 clients with the ${WATCHERS} watchers open`);
        await closedLoop({
          concurrency: 50,
          durationMs: warmMs,
          op: (seq) => client.expectOk('POST', PODS_PATH, body(`warm-${seq}`)).then(() => {}),
        });
        const fromRv = await currentRevision(client);
        await Promise.all(streams.map((s) => s.waitForRv(fromRv, 60_000)));
        for (const s of streams) s.resetReceived();

        const created: number[] = [];
        let lastRv = fromRv;
        let phase: 'main' | 'disconnected' | 'resumed' = 'main';
        let resumed: Promise<{ reconnectMs: number; catchUpMs: number; error?: string }> | undefined;
        let mainCreates = 0;
        const cpu = new CpuMeter(() => server.pid);
        const gc0 = (await runtimeMetrics(server)).gcSeconds;
        const benchLoop = monitorEventLoopDelay({ resolution: 10 });
        benchLoop.enable();
        let serverLoop = { loopLagP99: NaN, loopLagMax: NaN };
        cpu.start();
        let mainUsage = { server: NaN, client: NaN, others: NaN };
        const cpuNow = cpuTicker(() => server.pid);
        ctx.progress(
          `${WATCHERS} watchers, ${RATE} creates/s for ${mainMs / 1000} s, then disconnect ${GAP_MS / 1000} s, resume, ${AFTER_MS / 1000} s more`,
        );
        const result = await openLoop({
          ratePerSec: RATE,
          durationMs: mainMs + GAP_MS + AFTER_MS,
          onScheduled: (seq, at) => {
            sentAt[seq] = at;
          },
          op: async (seq) => {
            const r = await client.request('POST', PODS_PATH, body(`${NAME_PREFIX}${seq}`));
            if (r.status !== 201) throw new Error(`HTTP ${r.status}: ${r.body.slice(0, 200)}`);
            const rv = firstResourceVersion(r.body);
            created.push(rv);
            if (rv > lastRv) lastRv = rv;
          },
          tick: (elapsed) => {
            if (phase === 'main' && elapsed >= mainMs) {
              phase = 'disconnected';
              measuring = false;
              mainUsage = cpu.read();
              benchLoop.disable();
              void runtimeMetrics(server).then((m) => (serverLoop = m));
              mainCreates = created.length;
              for (const s of streams) s.close();
              ctx.progress(`disconnected all watchers at ${(elapsed / 1000).toFixed(1)} s; creates go on`);
            } else if (phase === 'disconnected' && elapsed >= mainMs + GAP_MS) {
              phase = 'resumed';
              const target = lastRv;
              const t0 = performance.now();
              resumed = Promise.all(streams.map((s) => s.open(s.lastRv))).then(
                async () => {
                  const reconnectMs = performance.now() - t0;
                  await Promise.all(streams.map((s) => s.waitForRv(target, 60_000)));
                  return { reconnectMs, catchUpMs: performance.now() - t0 };
                },
                (err: Error) => ({ reconnectMs: NaN, catchUpMs: NaN, error: err.message }),
              );
              ctx.progress(`reconnected ${WATCHERS} watchers from their last resourceVersions`);
            }
          },
          progress: {
            label: 'creating',
            progress: ctx.progress,
            everyMs: ctx.size(5000, 1000),
            extra: () => (phase === 'main' ? `, delivery p99 ${recentP99().toFixed(1)} ms` : `, watchers ${phase}`) + cpuNow(),
          },
        });
        const runtime = await runtimeMetrics(server);
        const resume = await resumed;

        ctx.progress(`waiting for every watcher to receive resourceVersion ${lastRv}`);
        const drainStart = performance.now();
        const caughtUp = await Promise.all(streams.map((s) => s.waitForRv(lastRv, 60_000)));
        const drainMs = performance.now() - drainStart;
        const expected = new Set(created);
        const check = sumChecks(streams.map((s) => checkSequence(s.rvs, expected)));

        ctx.record('creates (paced)', (result.ok * 1000) / result.elapsedMs, '/s', { note: `asked for ${RATE}/s` });
        ctx.record('create p50', result.latencies.percentile(50), 'ms', { note: 'from scheduled send' });
        ctx.record('create p99', result.latencies.percentile(99), 'ms');
        if (result.errors > 0) ctx.record('failed creates', result.errors, '', { note: result.errorSamples[0] });
        ctx.record('delivery p50', delivery.percentile(50), 'ms', { note: 'create sent -> watcher got event' });
        ctx.record('delivery p99', delivery.percentile(99), 'ms', { target: { op: '<', value: 50 } });
        ctx.record('delivery max', delivery.max(), 'ms');
        ctx.record('deliveries measured', delivery.count, '', {
          note: `${mainCreates.toLocaleString('en-US')} creates x ${WATCHERS} watchers before the disconnect`,
        });
        ctx.record('apiserver CPU', mainUsage.server, '% of a core', { note: 'before the disconnect' });
        ctx.record('benchmark process CPU', mainUsage.client, '% of a core', { note: 'before the disconnect' });
        ctx.record("other processes' CPU", mainUsage.others, '% of a core', { note: 'anything but 0 skews the figures' });
        ctx.record('apiserver GC time', ((runtime.gcSeconds - gc0) * 100_000) / result.elapsedMs, '% of wall');
        ctx.record('apiserver event-loop lag p99', serverLoop.loopLagP99 * 1000, 'ms', {
          note: `max ${Math.round(serverLoop.loopLagMax * 1000)} ms, before the disconnect`,
        });
        ctx.record('benchmark process event-loop lag p99', benchLoop.percentile(99) / 1e6, 'ms', {
          note: `max ${Math.round(benchLoop.max / 1e6)} ms: adds to delivery latency`,
        });
        if (resume?.error) ctx.record('resume failed', 1, '', { note: resume.error.slice(0, 160) });
        else if (resume) {
          ctx.record('resume: reconnect', resume.reconnectMs, 'ms', { note: 'all watchers answered 200' });
          ctx.record('resume: caught up', resume.catchUpMs, 'ms', { note: `${GAP_MS / 1000} s of missed events replayed` });
        }
        ctx.record('events missing', check.missing, '', { target: { op: '<=', value: 0 } });
        ctx.record('events out of order', check.outOfOrder, '', { target: { op: '<=', value: 0 } });
        ctx.record('events duplicated or unexpected', check.duplicates + check.extra, '', { target: { op: '<=', value: 0 } });
        ctx.record('drain after last create', drainMs, 'ms', { note: `${caughtUp.filter((x) => !x).length} watchers never caught up` });
        const dropped = streams.reduce((n, s) => n + s.serverEnds, 0);
        if (dropped > 0) ctx.record('watches ended by the server', dropped, '');
        const errors = streams.flatMap((s) => s.errors);
        if (errors.length > 0) ctx.record('watch errors', errors.length, '', { note: errors[0].slice(0, 120) });
        const mismatches = streams.reduce((n, s) => n + s.mismatches, 0);
        if (mismatches > 0) ctx.record('watch lines misread by the fast parser', mismatches, '');
      } finally {
        for (const s of streams) s.close();
        client.close();
      }
    });
  },
};
