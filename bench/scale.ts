// scale: loads 150,000 Pods (50 namespaces, 30 per node name) and 5,000
// Nodes as fast as 100 clients can, then measures a paged list of every Pod,
// the apiserver's memory, the data dir against the live data, a restart
// (spawn -> a watch delivers a new write), and the disk again after churn:
// 20% of Pods relabelled twice, 10% deleted and created again; then the same
// load and churn with --history off, for what keeping every revision (the
// default) costs on disk once the change log is compacted.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Apiserver } from '../test/helpers/index.ts';
import { closedLoop, LoadClient, Samples, type LoadResult } from './load.ts';
import { CpuMeter, cpuSecondsOf, cpuTicker, dirSize, memoryOf } from './proc.ts';
import { namespaceFixture, nodeFixture, podFixture } from './fixtures.ts';
import { bodyTemplate, currentRevision, withApiserver } from './server.ts';
import { WatchStream } from './watch-stream.ts';
import { formatBytes, type BenchContext, type Benchmark } from './report.ts';

const NAMESPACES = 50;
const PODS_PER_NODE = 30;
const CONCURRENCY = 100;
const PAGE = 500;
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const podName = (i: number) => `pod-${pad(i, 6)}`;
const podNamespace = (i: number) => `ns-${pad(i % NAMESPACES, 2)}`;
const nodeName = (i: number) => `node-${pad(i, 5)}`;
const podPath = (i: number) => `/api/v1/namespaces/${podNamespace(i)}/pods`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A Pod's body from its name, namespace and node (the load's and the churn's creates). */
const podBody = bodyTemplate(3, (name, ns, node) => podFixture(name, ns, node));

/** What a full paged list returned. */
interface Listing {
  ms: number;
  /** Time of each page request. */
  pageMs: Samples;
  pages: number;
  items: number;
  /** Sum of the items' JSON sizes: the live data. */
  bytes: number;
}

function continueOf(body: string): string {
  const head = body.slice(0, body.indexOf('"items":'));
  return /"continue":"([^"]*)"/.exec(head)?.[1] ?? '';
}

/** Lists `path` page by page; the timing covers the requests, not the JSON parsing done afterwards. */
async function pagedList(client: LoadClient, path: string): Promise<Listing> {
  const bodies: string[] = [];
  const pageMs = new Samples();
  const t0 = performance.now();
  let token = '';
  do {
    const t = performance.now();
    const r = await client.expectOk('GET', `${path}?limit=${PAGE}${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
    pageMs.add(performance.now() - t);
    bodies.push(r.body);
    token = continueOf(r.body);
  } while (token);
  const ms = performance.now() - t0;
  let items = 0;
  let bytes = 0;
  for (const body of bodies) {
    for (const item of JSON.parse(body).items) {
      items++;
      bytes += Buffer.byteLength(JSON.stringify(item));
    }
  }
  return { ms, pageMs, pages: bodies.length, items, bytes };
}

/** "apiserver CPU 95%, others 3%" for a figure's note. */
function cpuNote(usage: { server: number; others: number }): string {
  return `apiserver CPU ${Math.round(usage.server)}%, other processes ${Math.round(usage.others)}%`;
}

function recordLoad(ctx: BenchContext, what: string, r: LoadResult, usage: { server: number; others: number }): void {
  ctx.record(`load ${what}`, (r.ok * 1000) / r.elapsedMs, '/s', {
    note: `${r.ok.toLocaleString('en-US')} in ${(r.elapsedMs / 1000).toFixed(1)} s, ${cpuNote(usage)}`,
  });
  ctx.record(`load ${what} p99`, r.latencies.percentile(99), 'ms');
  if (r.errors > 0) ctx.record(`load ${what} failures`, r.errors, '', { note: r.errorSamples[0] });
}

/** Records the data dir's disk, and against the live data; returns the bytes allocated. */
async function recordDisk(ctx: BenchContext, server: Apiserver, label: string, live: number, note: string): Promise<number> {
  const disk = await dirSize(join(server.dataDir, 'db'));
  ctx.record(`${label}: disk (du)`, disk.allocated / MiB, 'MiB', { note: `apparent ${formatBytes(disk.apparent)}` });
  ctx.record(`${label}: disk / live data`, disk.allocated / live, 'x', { target: { op: '<', value: 2 }, note });
  return disk.allocated;
}

function recordMemory(ctx: BenchContext, server: Apiserver, label: string): void {
  const mem = memoryOf(server.pid);
  ctx.record(`${label}: apiserver RSS`, mem.rss / MiB, 'MiB', { target: { op: '<', value: (1.5 * GiB) / MiB } });
  ctx.record(`${label}: apiserver peak RSS (VmHWM)`, mem.hwm / MiB, 'MiB');
}

/** SIGTERM, start again on the same dir, and time spawn -> a watch delivering a new write. */
async function measureRestart(ctx: BenchContext, server: Apiserver, label = 'restart'): Promise<void> {
  const client = new LoadClient(server, 1);
  const fromRv = await currentRevision(client);
  client.close();
  const tStop = performance.now();
  await server.stop();
  ctx.record(`${label}: SIGTERM -> exit`, performance.now() - tStop, 'ms');

  const t0 = performance.now();
  let restartError: { err: unknown } | undefined;
  const restarting = server.restart().catch((err: unknown) => {
    restartError = { err };
  });
  let watch: WatchStream | undefined;
  let acceptedMs = NaN;
  while (!watch) {
    if (restartError) throw restartError.err;
    if (performance.now() - t0 > 120_000) throw new Error('the restarted apiserver did not accept a watch within 120 s');
    const w = new WatchStream(server, '/api/v1/pods');
    try {
      await w.open(fromRv);
      watch = w;
      acceptedMs = performance.now() - t0;
    } catch {
      w.close();
      await sleep(10);
    }
  }
  const probe = 'restart-probe';
  const got = new Promise<number>((resolve) => {
    watch.onEvent = (_type, _rv, name, at) => {
      if (name === probe) resolve(at);
    };
  });
  const probeClient = new LoadClient(server, 1);
  try {
    await probeClient.expectOk('POST', '/api/v1/namespaces/default/pods', JSON.stringify(podFixture(probe, 'default')));
    const at = await Promise.race([got, sleep(30_000).then(() => NaN)]);
    ctx.record(`${label}: spawn -> watch accepted`, acceptedMs, 'ms');
    ctx.record(
      `${label}: spawn -> first watch event of a new write`,
      at - t0,
      'ms',
      label === 'restart' ? { target: { op: '<', value: 3000 } } : {},
    );
  } finally {
    watch.close();
    probeClient.close();
  }
  await restarting;
  if (restartError) throw restartError.err;
  // CPU is steadier than wall time on a shared machine (GC threads included); server.pid is the new process only now.
  ctx.record(`${label}: apiserver CPU, spawn to ready and first event`, cpuSecondsOf(server.pid) * 1000, 'ms');
}

/** The progress reporting closedLoop takes, under `label`. */
type Progress = (label: string) => Parameters<typeof closedLoop>[0]['progress'];

/** The Namespaces, `pods` Pods and `nodes` Nodes, as fast as CONCURRENCY clients can; `cpu` measures each. */
async function loadObjects(client: LoadClient, pods: number, nodes: number, progress: Progress, cpu: CpuMeter) {
  for (let i = 0; i < NAMESPACES; i++)
    await client.expectOk('POST', '/api/v1/namespaces', JSON.stringify(namespaceFixture(podNamespace(i))));
  cpu.start();
  const podLoad = await closedLoop({
    concurrency: CONCURRENCY,
    total: pods,
    op: (i) =>
      client.expectOk('POST', podPath(i), podBody(podName(i), podNamespace(i), nodeName(Math.floor(i / PODS_PER_NODE)))).then(() => {}),
    progress: progress('loading Pods'),
  });
  const podCpu = cpu.read();
  cpu.start();
  const nodeLoad = await closedLoop({
    concurrency: CONCURRENCY,
    total: nodes,
    op: (i) => client.expectOk('POST', '/api/v1/nodes', JSON.stringify(nodeFixture(nodeName(i), i))).then(() => {}),
    progress: progress('loading Nodes'),
  });
  return { podLoad, podCpu, nodeLoad, nodeCpu: cpu.read() };
}

/** The churn: 20% of the Pods relabelled twice, then 10% deleted and created again; each recorded under `label`. */
async function churn(
  ctx: BenchContext,
  client: LoadClient,
  pods: number,
  progress: Progress,
  cpu: CpuMeter,
  label = 'churn',
): Promise<void> {
  const relabel = Math.floor(pods / 5);
  ctx.progress(`${label}: relabelling ${relabel.toLocaleString('en-US')} Pods twice`);
  cpu.start();
  const updates = await closedLoop({
    concurrency: CONCURRENCY,
    total: relabel * 2,
    op: (seq) => {
      const i = (seq % relabel) * 5;
      const patch = JSON.stringify({ metadata: { labels: { churn: String(seq < relabel ? 1 : 2) } } });
      return client.expectOk('PATCH', `${podPath(i)}/${podName(i)}`, patch, 'application/merge-patch+json').then(() => {});
    },
    progress: progress('relabelling'),
  });
  ctx.record(`${label}: label updates`, (updates.ok * 1000) / updates.elapsedMs, '/s', { note: cpuNote(cpu.read()) });
  if (updates.errors > 0) ctx.record(`${label}: failed updates`, updates.errors, '', { note: updates.errorSamples[0] });

  const recreate = Math.floor(pods / 10);
  ctx.progress(`${label}: deleting and creating again ${recreate.toLocaleString('en-US')} Pods`);
  cpu.start();
  const recreates = await closedLoop({
    concurrency: CONCURRENCY,
    total: recreate,
    op: async (seq) => {
      const i = seq * 10 + 1;
      await client.expectOk('DELETE', `${podPath(i)}/${podName(i)}?gracePeriodSeconds=0`);
      await client.expectOk('POST', podPath(i), podBody(podName(i), podNamespace(i), nodeName(Math.floor(i / PODS_PER_NODE))));
    },
    progress: progress('delete+create'),
  });
  ctx.record(`${label}: delete+create pairs`, (recreates.ok * 1000) / recreates.elapsedMs, '/s', { note: cpuNote(cpu.read()) });
  if (recreates.errors > 0) ctx.record(`${label}: failed delete+create`, recreates.errors, '', { note: recreates.errorSamples[0] });
}

/** Waits two compaction intervals and a little, for the change log to be compacted; returns the seconds waited. */
async function waitForCompaction(ctx: BenchContext, server: Apiserver, compactionS: number): Promise<number> {
  const waitS = 2 * compactionS + 2;
  ctx.progress(`waiting ${waitS} s for the change log to be compacted`);
  for (let left = waitS; left > 0; left -= 5) {
    await sleep(Math.min(5, left) * 1000);
    if (left > 5) ctx.progress(`  ${left - 5} s left, db ${formatBytes((await dirSize(join(server.dataDir, 'db'))).allocated)}`);
  }
  return waitS;
}

export const scale: Benchmark = {
  name: 'scale',
  description: '150,000 Pods and 5,000 Nodes: load rate, paged list, RSS, disk, restart, churn',
  async run(ctx: BenchContext) {
    const pods = ctx.size(150_000, 15_000);
    const nodes = ctx.size(5_000, 500);
    const compactionS = ctx.size(30, 5);
    ctx.progress('baseline: restarting an apiserver with an empty data dir');
    await withApiserver([], (server) => measureRestart(ctx, server, 'empty-dir restart (baseline)'));
    let historyDisk = NaN;
    await withApiserver(['--compaction-interval', String(compactionS)], async (server) => {
      let client = new LoadClient(server, CONCURRENCY);
      try {
        const cpuNow = cpuTicker(() => server.pid);
        const rss = () => `, apiserver RSS ${formatBytes(memoryOf(server.pid).rss)}${cpuNow()}`;
        const progress = (label: string) => ({ label, progress: ctx.progress, everyMs: ctx.size(5000, 1000), extra: rss });

        ctx.progress(
          `loading ${pods.toLocaleString('en-US')} Pods and ${nodes.toLocaleString('en-US')} Nodes with ${CONCURRENCY} clients (change-log compaction every ${compactionS} s)`,
        );
        const cpu = new CpuMeter(() => server.pid);
        const { podLoad, podCpu, nodeLoad, nodeCpu } = await loadObjects(client, pods, nodes, progress, cpu);
        recordLoad(ctx, 'Pods', podLoad, podCpu);
        recordLoad(ctx, 'Nodes', nodeLoad, nodeCpu);

        ctx.progress(`paged list of every Pod, ${PAGE} per page`);
        const listCpu = cpuSecondsOf(server.pid);
        const list = await pagedList(client, '/api/v1/pods');
        const listCpuMs = (cpuSecondsOf(server.pid) - listCpu) * 1000;
        ctx.record('paged list of all Pods', list.ms, 'ms', {
          target: { op: '<', value: 3000 },
          note: `${list.items.toLocaleString('en-US')} items in ${list.pages} pages`,
        });
        ctx.record('list page p50', list.pageMs.percentile(50), 'ms', { note: `slowest ${list.pageMs.max().toFixed(1)} ms` });
        ctx.record('list page: apiserver CPU', listCpuMs / list.pages, 'ms', {
          note: `${Math.round(listCpuMs).toLocaleString('en-US')} ms for the whole list`,
        });
        const nodeList = await pagedList(client, '/api/v1/nodes');
        ctx.record('paged list of all Nodes', nodeList.ms, 'ms', { note: `${nodeList.items.toLocaleString('en-US')} items` });
        let live = list.bytes + nodeList.bytes;
        ctx.record('after load: live data', live / MiB, 'MiB', { note: 'sum of Pod and Node JSON sizes' });
        recordMemory(ctx, server, 'after load');
        await recordDisk(ctx, server, 'after load', live, 'change log not yet compacted');

        ctx.progress('restarting the apiserver on the same data dir');
        client.close();
        await measureRestart(ctx, server);
        recordMemory(ctx, server, 'after restart');
        client = new LoadClient(server, CONCURRENCY);

        await churn(ctx, client, pods, progress, cpu);

        const after = await pagedList(client, '/api/v1/pods');
        ctx.record('after churn: paged list of all Pods', after.ms, 'ms', { note: `${after.items.toLocaleString('en-US')} items` });
        live = after.bytes + nodeList.bytes;
        ctx.record('after churn: live data', live / MiB, 'MiB');
        recordMemory(ctx, server, 'after churn');
        await recordDisk(ctx, server, 'after churn', live, 'right after');

        const waitS = await waitForCompaction(ctx, server, compactionS);
        historyDisk = await recordDisk(ctx, server, 'after compaction', live, `${waitS} s later`);
      } finally {
        client.close();
      }
    });

    // Issue 18: what keeping every revision (the apiserver's default) costs on disk, against the
    // same load and churn with --history off, whose store once compacted holds only the live objects.
    await withApiserver(['--compaction-interval', String(compactionS), '--history', 'off'], async (server) => {
      const client = new LoadClient(server, CONCURRENCY);
      try {
        const progress = (label: string) => ({ label: `history off: ${label}`, progress: ctx.progress, everyMs: ctx.size(5000, 1000) });
        ctx.progress('history off: the same load and churn');
        await loadObjects(client, pods, nodes, progress, new CpuMeter(() => server.pid));
        await churn(ctx, client, pods, progress, new CpuMeter(() => server.pid), 'history off: churn');
        // Next to the same figure with every revision kept: what history holds in memory, if anything.
        recordMemory(ctx, server, 'history off, after churn');
        await waitForCompaction(ctx, server, compactionS);
        const off = (await dirSize(join(server.dataDir, 'db'))).allocated;
        ctx.record('history off, after compaction: disk (du)', off / MiB, 'MiB');
        ctx.record('every revision kept / history off: disk after churn and compaction', historyDisk / off, 'x', {
          target: { op: '<', value: 2 },
        });
      } finally {
        client.close();
      }
    });
  },
};
