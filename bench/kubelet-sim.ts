// kubelet-sim: one kubelet-sim process with 5,000 nodes against a real
// apiserver (no scheduler, no controller-manager): time until every node is
// registered and Ready, heartbeat cost (lease renewals/s, CPU of both
// processes, user and system, and per renewal), kubelet-sim RSS per 1,000
// nodes, then 10,000 Pods pinned to 1,000 of those nodes: the time until
// every one is Running, the status writes each Pod cost, the API writes/s the
// apiserver took meanwhile and both processes' CPU per Pod.
// Run alone: node --import tsx bench/kubelet-sim.ts [--quick]
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { Informer } from '../shared/informer/informer.ts';
import { api, repoRoot, spawnTracked, type Apiserver, type TrackedProcess } from '../test/helpers/index.ts';
import { eachLimited } from '../kubelet-sim/node/node-fleet.ts';
import { cpuTimesOf, memoryOf } from './proc.ts';
import { componentNodeFlags } from '../cli/up.ts';
import { withApiserver } from './server.ts';
import type { BenchContext, Benchmark } from './report.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = 1024 * 1024;

/** A metric's sum from kubelet-sim's plain-http port, or from the apiserver (over https, as its admin: /metrics needs credentials). */
async function metric(from: number | Apiserver, name: string | RegExp): Promise<number> {
  const text =
    typeof from === 'number'
      ? await (await fetch(`http://127.0.0.1:${from}/metrics`)).text()
      : (await api(from).request('GET', '/metrics', undefined, { accept: 'text/plain' })).text;
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !(typeof name === 'string' ? line.startsWith(name) : name.test(line))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Writes the apiserver has answered, by its request counter; and the Event creates among them. */
const API_WRITES = /^apiserver_request_total\{[^}]*verb="(create|update|patch|delete)"/;
const EVENT_CREATES = /^apiserver_request_total\{(?=[^}]*verb="create")(?=[^}]*resource="events")/;

const cores = (a: { user: number; system: number }, b: { user: number; system: number }, secs: number) => ({
  user: (b.user - a.user) / secs,
  system: (b.system - a.system) / secs,
  total: (b.user + b.system - a.user - a.system) / secs,
});

/** See the file comment. */
export const kubeletSim: Benchmark = {
  name: 'kubelet-sim',
  description: '5,000 simulated nodes Ready, heartbeat CPU, RSS per 1,000 nodes, 10,000 pinned Pods Running',
  async run(ctx: BenchContext) {
    const nodeCount = ctx.size(5000, 500);
    const podCount = ctx.size(10_000, 1000);
    const podNodes = ctx.size(1000, 100);
    const heartbeatSeconds = ctx.size(30, 10);
    await withApiserver([], async (server) => {
      // Its own identity, as `ksim up` starts it.
      const kubeconfig = server.kubeconfigOf('kubeletSim');
      let out = '';
      const t0 = performance.now();
      const sim: TrackedProcess = await spawnTracked(
        process.execPath,
        [
          ...componentNodeFlags('kubelet-sim'),
          join(repoRoot, 'kubelet-sim', 'bin.mjs'),
          '--kubeconfig',
          kubeconfig,
          '--nodes',
          String(nodeCount),
          '--port',
          '0',
        ],
        {
          cwd: repoRoot,
          env: { ...process.env, KSIM_LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      sim.child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
      sim.child.stderr!.resume();
      try {
        while (!/serving on [\d.]+:(\d+)/.test(out)) await sleep(20);
        const port = Number(/serving on [\d.]+:(\d+)/.exec(out)![1]);
        while (
          !(await fetch(`http://127.0.0.1:${port}/readyz`).then(
            (r) => r.ok,
            () => false,
          ))
        )
          await sleep(50);
        const client = new KubeClient(server.clientConfig);
        const nodes = findResource('', 'v1', 'nodes')!;
        let ready = 0;
        let cont: string | undefined;
        do {
          const page = await client.list<Node>(nodes, { limit: 1000, continue: cont });
          ready += page.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
          cont = page.metadata?.continue || undefined;
        } while (cont);
        const readyMs = performance.now() - t0;
        ctx.record(`${nodeCount} nodes registered and Ready`, +(readyMs / 1000).toFixed(2), 's', {
          target: { op: '<', value: 30 },
          note: `from spawn; ${ready} Ready in the API`,
        });
        ctx.progress(`${ready} nodes Ready after ${(readyMs / 1000).toFixed(1)} s; measuring heartbeats for ${heartbeatSeconds} s`);

        await sleep(3000);
        const leaseMetric = 'ksim_kubelet_sim_api_requests_total{kind="lease",result="ok"';
        const statusMetric = 'ksim_kubelet_sim_api_requests_total{kind="status",result="ok"';
        const leases0 = await metric(port, leaseMetric);
        const statuses0 = await metric(port, statusMetric);
        const simCpu0 = cpuTimesOf(sim.pid);
        const apiCpu0 = cpuTimesOf(server.pid);
        const h0 = performance.now();
        await sleep(heartbeatSeconds * 1000);
        const secs = (performance.now() - h0) / 1000;
        const simCpu = cores(simCpu0, cpuTimesOf(sim.pid), secs);
        const apiCpu = cores(apiCpu0, cpuTimesOf(server.pid), secs);
        const leases = (await metric(port, leaseMetric)) - leases0;
        const statuses = (await metric(port, statusMetric)) - statuses0;
        const split = (c: typeof simCpu) => `${c.total.toFixed(3)} (${c.user.toFixed(3)} user + ${c.system.toFixed(3)} system)`;
        ctx.record('lease renewals', +(leases / secs).toFixed(1), '/s', {
          note: `${nodeCount} nodes, every 10 s; node status posts ${(statuses / secs).toFixed(1)}/s (only on a change, or every 5 min)`,
        });
        ctx.record('heartbeat CPU, kubelet-sim + apiserver', +(simCpu.total + apiCpu.total).toFixed(3), 'cores', {
          target: { op: '<', value: 0.25 },
          note: `kubelet-sim ${split(simCpu)}, apiserver ${split(apiCpu)}`,
        });
        if (leases > 0) {
          ctx.record('CPU per lease renewal, kubelet-sim', Math.round(((simCpu.total * secs) / leases) * 1e6), 'us');
          ctx.record('CPU per lease renewal, apiserver', Math.round(((apiCpu.total * secs) / leases) * 1e6), 'us', {
            note: 'one PUT of a Lease',
          });
        }
        const rss = memoryOf(sim.pid).rss;
        ctx.record('kubelet-sim RSS per 1,000 nodes', +((rss / MiB) * (1000 / nodeCount)).toFixed(1), 'MiB', {
          note: `${(rss / MiB).toFixed(0)} MiB for ${nodeCount} nodes`,
        });

        ctx.progress(`creating ${podCount} Pods pinned to ${podNodes} nodes`);
        const pods = findResource('', 'v1', 'pods')!;
        // No controller-manager runs here to make the namespace's default ServiceAccount, whose token every Pod mounts.
        await client
          .create(findResource('', 'v1', 'serviceaccounts')!, 'default', { metadata: { name: 'default' } })
          .catch((err: unknown) => {
            if ((err as { code?: number }).code !== 409) throw err;
          });
        const informer = new Informer<Pod>(client, pods, { namespace: 'default' });
        let running = 0;
        let allRunning: () => void = () => {};
        const done = new Promise<void>((r) => (allRunning = r));
        const seen = new Set<string>();
        const check = (p: Pod) => {
          if (p.status?.phase === 'Running' && !seen.has(p.metadata!.name!)) {
            seen.add(p.metadata!.name!);
            if (++running === podCount) allRunning();
          }
        };
        informer.on({ add: check, update: (_o, p) => check(p) });
        informer.start();
        await informer.waitForSync();
        const podStatusMetric = 'ksim_kubelet_sim_api_requests_total{kind="pod-status",result="ok"';
        const podStatus0 = await metric(port, podStatusMetric);
        const writes0 = await metric(server, API_WRITES);
        const events0 = await metric(server, EVENT_CREATES);
        const simPods0 = cpuTimesOf(sim.pid);
        const apiPods0 = cpuTimesOf(server.pid);
        const p0 = performance.now();
        const idx = Array.from({ length: podCount }, (_, i) => i);
        await eachLimited(idx, 100, async (i) => {
          await client.create(pods, 'default', {
            metadata: { name: `bench-${i}`, labels: { app: 'bench' } },
            spec: { nodeName: `node-${i % podNodes}`, containers: [{ name: 'app', image: 'nginx:1.27' }] },
          });
        });
        const createdMs = performance.now() - p0;
        await done;
        const runMs = performance.now() - p0;
        const podSecs = runMs / 1000;
        const simPods = cores(simPods0, cpuTimesOf(sim.pid), podSecs);
        const apiPods = cores(apiPods0, cpuTimesOf(server.pid), podSecs);
        const podStatus = (await metric(port, podStatusMetric)) - podStatus0;
        const writes = (await metric(server, API_WRITES)) - writes0;
        const events = (await metric(server, EVENT_CREATES)) - events0;
        informer.stop();
        ctx.record(`${podCount} pinned Pods Running`, +podSecs.toFixed(2), 's', {
          target: { op: '<', value: 20 },
          note: `creates took ${(createdMs / 1000).toFixed(1)} s; speed 1 (about 2.7 s of simulated pull/create/start per Pod)`,
        });
        ctx.record('Pod status writes per Pod', +(podStatus / podCount).toFixed(2), '', {
          note: 'kubelet writes one as it starts the Pod and one once it runs; fewer when a write waits long enough for the next change',
        });
        ctx.record('API writes meanwhile', Math.round(writes / podSecs), '/s', {
          note: `${writes} writes: the Pod creates, status writes, leases, node status, and ${events} Events (written on a few connections of their own, behind the status writes)`,
        });
        ctx.record('CPU per Pod, kubelet-sim', +(((simPods.total * podSecs) / podCount) * 1000).toFixed(2), 'ms', {
          note: `${simPods.total.toFixed(2)} cores during the phase, heartbeats included`,
        });
        ctx.record('CPU per Pod, apiserver', +(((apiPods.total * podSecs) / podCount) * 1000).toFixed(2), 'ms', {
          note: `${apiPods.total.toFixed(2)} cores during the phase`,
        });
        ctx.record('kubelet-sim RSS with the Pods', +(memoryOf(sim.pid).rss / MiB).toFixed(0), 'MiB', {
          note: `${nodeCount} nodes, ${podCount} Pods`,
        });
        client.close();
      } finally {
        await sim.stop();
      }
    });
  },
};

// Standalone run.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
  const ctx: BenchContext = {
    quick,
    size: (full, q) => (quick ? q : full),
    record: (name, value, unit, extra) =>
      process.stdout.write(
        `${name}: ${value} ${unit}${extra?.target ? ` (target ${extra.target.op} ${extra.target.value})` : ''}${extra?.note ? ` — ${extra.note}` : ''}\n`,
      ),
    progress: (m) => process.stdout.write(`  ${m}\n`),
    shared: new Map(),
  };
  await kubeletSim.run(ctx);
  process.exit(0);
}
