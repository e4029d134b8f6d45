// kubectl top: `kubectl top pods -A` over 5,000 Running Pods on 100
// simulated nodes (one kubelet-sim, a real apiserver, Pods pinned to their
// nodes), the first run (cold: the metrics API scrapes every kubelet twice)
// and the runs after it, each re-scraping once its cache has aged.
// Run alone: node --import tsx bench/top.ts [--quick]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { eachLimited } from '../kubelet-sim/node/node-fleet.ts';
import { componentNodeFlags } from '../cli/up.ts';
import { kubectlBin, repoRoot, spawnTracked, tempDir, removeTempDir, type TrackedProcess } from '../test/helpers/index.ts';
import { cpuTimesOf } from './proc.ts';
import { withApiserver } from './server.ts';
import type { BenchContext, Benchmark } from './report.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function kubectl(args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(kubectlBin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr.slice(0, 400)}`));
      else resolve({ ms: performance.now() - started, stdout });
    });
  });
}

/** See the file comment. */
export const topBench: Benchmark = {
  name: 'top',
  description: 'kubectl top pods -A over 5,000 Pods on 100 nodes (metrics.k8s.io from the kubelets)',
  async run(ctx: BenchContext) {
    const nodeCount = ctx.size(100, 10);
    const podCount = ctx.size(5000, 500);
    await withApiserver([], async (server) => {
      const home = await tempDir('bench-top');
      let sim: TrackedProcess | undefined;
      const client = new KubeClient(server.clientConfig);
      try {
        let out = '';
        sim = await spawnTracked(
          process.execPath,
          [
            ...componentNodeFlags('kubelet-sim'),
            join(repoRoot, 'kubelet-sim', 'bin.mjs'),
            '--kubeconfig',
            server.kubeconfigOf('kubeletSim'),
            '--nodes',
            String(nodeCount),
            '--speed',
            '10',
            '--port',
            '0',
          ],
          { cwd: repoRoot, env: { ...process.env, KSIM_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        sim.child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
        sim.child.stderr!.resume();
        while (!/serving on [\d.]+:(\d+)/.test(out)) await sleep(20);
        const pods = findResource('', 'v1', 'pods')!;
        // No controller-manager runs here to make the namespace's default ServiceAccount, whose token every Pod mounts.
        await client
          .create(findResource('', 'v1', 'serviceaccounts')!, 'default', { metadata: { name: 'default' } })
          .catch((err: unknown) => {
            if ((err as { code?: number }).code !== 409) throw err;
          });
        ctx.progress(`creating ${podCount} Pods pinned to ${nodeCount} nodes`);
        const images = ['nginx:1.27', 'redis:7', 'busybox:1.36'];
        await eachLimited(
          Array.from({ length: podCount }, (_, i) => i),
          100,
          async (i) => {
            const image = images[i % images.length];
            await client.create(pods, 'default', {
              metadata: { name: `top-${i}`, labels: { app: 'top' } },
              spec: {
                nodeName: `node-${i % nodeCount}`,
                containers: [{ name: 'app', image, ...(image.startsWith('busybox') ? { command: ['sleep', '3600'] } : {}) }],
              },
            });
          },
        );
        for (;;) {
          const list = await client.list<Pod>(pods, { namespace: 'default', fieldSelector: 'status.phase=Running', limit: podCount });
          if (list.items.length >= podCount) break;
          await sleep(500);
        }
        ctx.progress(`${podCount} Pods Running; kubectl top pods -A`);
        const env = { ...process.env, HOME: home, KUBECONFIG: server.kubeconfig };
        const api0 = cpuTimesOf(server.pid);
        const sim0 = cpuTimesOf(sim.pid);
        const cold = await kubectl(['top', 'pods', '-A', '--no-headers'], env);
        const api1 = cpuTimesOf(server.pid);
        const sim1 = cpuTimesOf(sim.pid);
        const rows = cold.stdout.trim().split('\n').filter(Boolean).length;
        ctx.record('kubectl top pods -A, first run', Math.round(cold.ms), 'ms', {
          note: `${rows} rows; the metrics API scraped ${nodeCount} kubelets twice; CPU: apiserver ${((api1.user + api1.system - api0.user - api0.system) * 1000).toFixed(0)} ms, kubelet-sim ${((sim1.user + sim1.system - sim0.user - sim0.system) * 1000).toFixed(0)} ms`,
        });
        const warm: number[] = [];
        for (let i = 0; i < 3; i++) {
          await sleep(2100); // past the 2 s cache: each run scrapes once
          warm.push((await kubectl(['top', 'pods', '-A', '--no-headers'], env)).ms);
        }
        warm.sort((a, b) => a - b);
        ctx.record('kubectl top pods -A, later runs (median of 3)', Math.round(warm[1]), 'ms', {
          note: `each one scrape of ${nodeCount} kubelets; fastest ${Math.round(warm[0])} ms`,
        });
        const cached = await kubectl(['top', 'pods', '-A', '--no-headers'], env);
        const r0 = performance.now();
        await client.request('GET', '/apis/metrics.k8s.io/v1beta1/pods');
        ctx.record('GET /apis/metrics.k8s.io/v1beta1/pods, from the cache', Math.round(performance.now() - r0), 'ms', {
          note: `${podCount} PodMetrics through the shared client, no kubectl`,
        });
        ctx.record('kubectl top pods -A, from the cache', Math.round(cached.ms), 'ms', { note: 'within 2 s of the last scrape' });
      } finally {
        client.close();
        await sim?.stop();
        await removeTempDir(home);
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
    record: (name, value, unit, extra) => process.stdout.write(`${name}: ${value} ${unit}${extra?.note ? ` — ${extra.note}` : ''}\n`),
    progress: (m) => process.stdout.write(`  ${m}\n`),
    shared: new Map(),
  };
  await topBench.run(ctx);
  process.exit(0);
}
