// Issue 18's figures, side by side in one run:
// - a 1,000-replica Deployment from apply to available (zero start-up
//   delays, 100 nodes) with history and causes recorded, and with both off
//   (--history off, KSIM_CAUSALITY=off), and on with the web UI open,
//   alternated so that a noisy machine weighs on each alike;
// - with recording on, the web UI open in headless Chromium during the
//   rollout: how long each write takes from the apiserver's commit (when its
//   watch event comes to be: the issue's event-to-screen) to its mark on the
//   page, and from its sequencing (its revision's time, before the durable
//   write); a MutationObserver in the page; the apiserver and the browser
//   share the machine's clock;
// - reading one object's 1,000 revisions through the history API.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ConfigMap } from 'kubernetes-types/core/v1.js';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { chromium } from 'playwright-core';
import { findResource } from '../shared/api/resources.ts';
import type { Change, ChangeList } from '../shared/api/history-types.ts';
import type { KubeClient } from '../shared/client/kube-client.ts';
import { freePort, ksimNodeArgs, spawnTracked, type Apiserver } from '../test/helpers/index.ts';
import { withCluster } from './components.ts';
import { waitAvailable } from './deployment.ts';
import { withApiserver } from './server.ts';
import { histogramQuantiles } from './proc.ts';
import { KubeClient as Client } from '../shared/client/kube-client.ts';
import type { BenchContext, Benchmark } from './report.ts';

const deployments = findResource('apps', 'v1', 'deployments')!;
const configmaps = findResource('', 'v1', 'configmaps')!;
const CHROMIUM = '/usr/bin/chromium';
const CHANGES = '/apis/history.ksim.io/v1alpha1/changes';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function deployment(replicas: number): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'big' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'big' } },
      template: { metadata: { labels: { app: 'big' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
    },
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Each write's delay to its mark on the page: from its sequencing (`time`), and from its commit (when its watch event came to be). */
interface MarkLatencies {
  fromWrite: number[];
  fromEvent: number[];
}

/** The UI against `server`, and a page that times each write to its mark; resolves with a stop that returns the latencies. */
async function watchInBrowser(server: Apiserver, ctx: BenchContext): Promise<() => Promise<MarkLatencies>> {
  const port = await freePort();
  const ui = await spawnTracked(
    process.execPath,
    // Profiled, the app is bundled unminified, so that the page's profile names its functions.
    [
      ...ksimNodeArgs(),
      'ui',
      '--kubeconfig',
      server.kubeconfigOf('ui'),
      '--port',
      String(port),
      ...(process.env.BENCH_CPU_PROF ? ['--dev'] : []),
    ],
    {
      env: { ...process.env, KSIM_LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    },
  );
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if ((await fetch(`${base}/readyz`).catch(() => undefined))?.ok) break;
    await sleep(100);
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(`${base}/`);
  await page.waitForSelector('.plot', { timeout: 30_000 });
  // Each write's times (sequenced, and committed: when its event came to be), from a feed of our own;
  // each mark's first appearance, from the page's DOM.
  await page.evaluate((live) => {
    const w = window as unknown as {
      __times: Map<string, number>;
      __commits: Map<string, number>;
      __lat: number[];
      __eventLat: number[];
      __recv: number[];
      __seen: Set<string>;
      __since: number;
      __long: number[];
    };
    w.__times = new Map();
    w.__commits = new Map();
    w.__eventLat = [];
    // The page's long tasks (over 50 ms on its main thread): what holds a mark back.
    w.__long = [];
    new PerformanceObserver((list) => {
      if (w.__since === Number.MAX_SAFE_INTEGER) return;
      for (const e of list.getEntries()) w.__long.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: false });
    w.__lat = [];
    w.__seen = new Set();
    w.__recv = [];
    // Only the writes made from the rollout on: the backlog a page gets first is older by design.
    w.__since = Number.MAX_SAFE_INTEGER;
    const ws = new WebSocket(live);
    ws.onmessage = (m) => {
      type Item = { revision: string; time: string; committed?: string };
      const data = JSON.parse(String(m.data)) as { items?: Item[] } | Item[];
      const items = Array.isArray(data) ? data : (data.items ?? []);
      const now = Date.now();
      for (const c of items) {
        const t = Date.parse(c.time);
        if (t < w.__since) continue;
        w.__times.set(c.revision, t);
        if (c.committed) w.__commits.set(c.revision, Date.parse(c.committed));
        w.__recv.push(now - t);
      }
    };
    // Only the nodes each mutation added are looked at: a scan of every mark per mutation would
    // cost the page, on its own main thread, what the page is being timed for. (No named
    // functions in here: tsx would wrap them in a helper the page does not have.)
    new MutationObserver((records) => {
      const now = Date.now();
      for (const r of records)
        for (const node of r.addedNodes) {
          if (!(node instanceof Element)) continue;
          const marks = [...(node.matches('.mark[data-revision]') ? [node] : []), ...node.querySelectorAll('.mark[data-revision]')];
          for (const el of marks) {
            const rev = el.getAttribute('data-revision')!;
            if (w.__seen.has(rev)) continue;
            w.__seen.add(rev);
            const t = w.__times.get(rev);
            if (t !== undefined) w.__lat.push(now - t);
            const committed = w.__commits.get(rev);
            if (committed !== undefined) w.__eventLat.push(now - committed);
          }
        }
    }).observe(document.querySelector('.plot')!, { subtree: true, childList: true });
  }, `ws://127.0.0.1:${port}/live`);
  ctx.progress('the UI is open in Chromium');
  // With BENCH_CPU_PROF=DIR, the page's own CPU profile too (DIR/ui-page-<time>.cpuprofile, for Chrome's DevTools).
  const profileDir = process.env.BENCH_CPU_PROF;
  const cdp = profileDir ? await page.context().newCDPSession(page) : undefined;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.start');
  }
  // With BENCH_TRACE=FILE, a Chromium performance trace of the rollout (style, layout, paint: for DevTools' Performance panel).
  const traceFile = process.env.BENCH_TRACE;
  if (traceFile)
    await browser.startTracing(page, { path: traceFile, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
  await page.evaluate(() => ((window as unknown as { __since: number }).__since = Date.now()));
  return async () => {
    const { lat, eventLat, recv, long, marks } = await page.evaluate(() => {
      const w = window as unknown as { __lat: number[]; __eventLat: number[]; __recv: number[]; __long: number[] };
      return { lat: w.__lat, eventLat: w.__eventLat, recv: w.__recv, long: w.__long, marks: document.querySelectorAll('.mark').length };
    });
    const sorted = [...recv].sort((a, b) => a - b);
    if (sorted.length) ctx.progress(`feed: write -> in the browser p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms`);
    const longest = [...long].sort((a, b) => b - a);
    ctx.progress(
      `the page: ${marks} marks drawn at the end; ${long.length} long tasks, ${long.reduce((a, b) => a + b, 0)} ms in all, the longest ${longest.slice(0, 5).join(', ')} ms`,
    );
    if (cdp && profileDir) {
      const { profile } = await cdp.send('Profiler.stop');
      const file = join(profileDir, `ui-page-${Date.now()}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      ctx.progress(`the page's CPU profile: ${file}`);
    }
    if (traceFile) {
      await browser.stopTracing();
      ctx.progress(`the page's trace: ${traceFile}`);
    }
    await browser.close();
    await ui.stop();
    return { fromWrite: lat, fromEvent: eventLat };
  };
}

type Mode = 'off' | 'on' | 'ui';

/** Watches `changes` as the UI server's feed does, from now on; the stop returns each write's delay from its sequencing to its arrival. */
function followChanges(client: KubeClient): () => Promise<number[]> {
  const lags: number[] = [];
  let running = true;
  let stopWatch: (() => void) | undefined;
  const loop = (async () => {
    let from = (await client.request<ChangeList>('GET', CHANGES, { query: { limit: 1 } })).metadata.resourceVersion;
    while (running) {
      const handle = client.watchPath<{ type: string; object: Change }>(CHANGES, { from }, (ev) => {
        const now = Date.now();
        lags.push(now - Date.parse(ev.object.time));
        from = ev.object.revision;
      });
      stopWatch = () => handle.stop();
      await handle.done;
    }
  })();
  return async () => {
    running = false;
    stopWatch?.();
    await loop.catch(() => {});
    return lags;
  };
}

/** One rollout: recording off, on, or on with the UI open in the browser. Resolves with the time to available and the UI's latencies. */
async function rollout(
  mode: Mode,
  replicas: number,
  nodes: number,
  ctx: BenchContext,
): Promise<{ ms: number | 'timed out'; lat?: MarkLatencies; feedLag?: number[] }> {
  let out: { ms: number | 'timed out'; lat?: MarkLatencies; feedLag?: number[] } = { ms: 'timed out' };
  await withCluster(
    'bench-history',
    nodes,
    async (client, _cm, server) => {
      const withUi = mode === 'ui' && existsSync(CHROMIUM);
      // Without the browser: how far behind a reader of `changes` (as the UI server reads it) falls.
      // With the UI open too, for the same rollout: how much of a mark's delay is the feed's.
      const feed = mode !== 'off' ? followChanges(client) : undefined;
      const stop = withUi ? await watchInBrowser(server, ctx) : undefined;
      const t0 = performance.now();
      await client.create(deployments, 'default', deployment(replicas));
      const ok = await waitAvailable(client, 'big', replicas, 1, 240_000, ctx);
      out = { ms: ok ? Math.round(performance.now() - t0) : 'timed out' };
      if (mode !== 'off') {
        const delay = await histogramQuantiles(server, 'ksim_storage_commit_delay_seconds', [0.5, 0.99]);
        if (delay)
          ctx.progress(
            `storage: write sequenced -> committed p50 <= ${delay.bounds[0] * 1000} ms, p99 <= ${delay.bounds[1] * 1000} ms (${delay.count} writes, buckets)`,
          );
      }
      if (feed) {
        const lags = await feed();
        if (withUi) {
          const sorted = lags.sort((a, b) => a - b);
          ctx.progress(
            `feed: write -> read from changes (the bench's own reader) p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms`,
          );
        } else out.feedLag = lags;
      }
      if (stop) {
        await sleep(1000);
        out.lat = await stop();
      }
    },
    'zero',
    mode === 'off' ? { apiserverArgs: ['--history', 'off'], env: { KSIM_CAUSALITY: 'off' } } : {},
  );
  return out;
}

/** See the file comment. */
export const historyBench: Benchmark = {
  name: 'history',
  description: 'history and causes on vs off for a 1,000-replica rollout, the UI live during it, reading 1,000 revisions',
  async run(ctx) {
    const replicas = ctx.size(1000, 100);
    const nodes = ctx.size(100, 20);
    const rounds = ctx.size(2, 1);
    const times: Record<Mode, number[]> = { on: [], off: [], ui: [] };
    let lat: number[] = [];
    let eventLat: number[] = [];
    let feedLag: number[] = [];
    // BENCH_HISTORY_MODES=ui (a comma list of off, on, ui) runs only those rollouts, for working on one figure.
    const only = process.env.BENCH_HISTORY_MODES?.split(',');
    for (let i = 0; i < rounds; i++)
      for (const mode of i % 2 === 0 ? (['off', 'on', 'ui'] as const) : (['ui', 'on', 'off'] as const)) {
        if (only && !only.includes(mode)) continue;
        ctx.progress(`round ${i + 1}: ${mode === 'ui' ? 'recording on, the UI open' : `recording ${mode}`}`);
        const r = await rollout(mode, replicas, nodes, ctx);
        if (typeof r.ms === 'number') times[mode].push(r.ms);
        if (r.lat) {
          lat = lat.concat(r.lat.fromWrite);
          eventLat = eventLat.concat(r.lat.fromEvent);
        }
        if (r.feedLag) feedLag = feedLag.concat(r.feedLag);
      }
    const mean = (v: number[]) => Math.round(v.reduce((a, b) => a + b, 0) / Math.max(1, v.length));
    ctx.record(`recording off: apply -> ${replicas} available`, times.off.length ? mean(times.off) : 'timed out', 'ms', {
      note: `mean of ${times.off.length}: ${times.off.join(', ')}`,
    });
    ctx.record(`recording on: apply -> ${replicas} available`, times.on.length ? mean(times.on) : 'timed out', 'ms', {
      note: `mean of ${times.on.length}: ${times.on.join(', ')}`,
    });
    ctx.record(
      `recording on, the UI open in Chromium: apply -> ${replicas} available`,
      times.ui.length ? mean(times.ui) : 'timed out',
      'ms',
      {
        note: `mean of ${times.ui.length}: ${times.ui.join(', ')}`,
      },
    );
    if (times.on.length && times.off.length)
      ctx.record('recording on / off', Math.round((mean(times.on) / mean(times.off)) * 100) / 100, 'x', {
        target: { op: '<=', value: 1.15 },
      });
    if (feedLag.length) {
      const sorted = [...feedLag].sort((a, b) => a - b);
      ctx.record('no browser: write -> read from changes, p50', percentile(sorted, 50), 'ms', { note: `${sorted.length} writes` });
      ctx.record('no browser: write -> read from changes, p99', percentile(sorted, 99), 'ms');
    }
    // The issue's figure is event-to-screen: from the watch event's birth (the write's commit) to its
    // mark. From the write's sequencing, the wait for its durable commit comes on top.
    if (lat.length) {
      const sorted = [...lat].sort((a, b) => a - b);
      ctx.record('UI: write (sequenced) -> mark on the page, p50', percentile(sorted, 50), 'ms', { note: `${sorted.length} writes` });
      ctx.record('UI: write (sequenced) -> mark on the page, p99', percentile(sorted, 99), 'ms');
    }
    if (eventLat.length) {
      const sorted = [...eventLat].sort((a, b) => a - b);
      ctx.record('UI: event (commit) -> mark on the page, p50', percentile(sorted, 50), 'ms', { note: `${sorted.length} writes` });
      ctx.record('UI: event (commit) -> mark on the page, p99', percentile(sorted, 99), 'ms', { target: { op: '<', value: 500 } });
    } else ctx.record('UI: event (commit) -> mark on the page, p99', existsSync(CHROMIUM) ? 'no marks' : 'no chromium', 'ms');

    // One object's 1,000 revisions through the API.
    await withApiserver([], async (server) => {
      const client = new Client(server.clientConfig);
      try {
        await client.create<ConfigMap>(configmaps, 'default', { metadata: { name: 'many' }, data: { n: '0' } });
        const n = ctx.size(1000, 200);
        for (let i = 1; i < n; i++) await client.patch(configmaps, 'default', 'many', 'merge', { data: { n: String(i) } });
        const path = '/apis/history.ksim.io/v1alpha1/namespaces/default/configmaps/many';
        const reads: number[] = [];
        for (let i = 0; i < 5; i++) {
          const t = performance.now();
          const list = await client.request<{ items: unknown[] }>('GET', path);
          reads.push(performance.now() - t);
          if (list.items.length !== n) throw new Error(`expected ${n} revisions, got ${list.items.length}`);
        }
        const sorted = reads.sort((a, b) => a - b);
        ctx.record(`history API: ${n} revisions of one object, median of 5`, Math.round(sorted[2] * 10) / 10, 'ms', {
          target: { op: '<', value: 100 },
        });
        const t = performance.now();
        await client.request('GET', `${path}?changes=true`);
        ctx.record(`history API: ${n} revisions with each one's changed fields`, Math.round(performance.now() - t), 'ms');
      } finally {
        client.close();
      }
    });
  },
};
