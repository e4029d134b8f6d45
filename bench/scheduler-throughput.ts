// scheduler-throughput: how fast the scheduler binds 10,000 pending Pods
// onto 100 and onto 5,000 Nodes with the default plugins, and with required
// pod anti-affinity by hostname (groups as large as the node count, so every
// Pod fits); then the p99 from Pod creation to binding while Pods arrive at
// a steady rate. The scheduler runs in this process against a real apiserver.
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { findResource } from '../shared/api/resources.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { resolveConfig } from '../scheduler/config.ts';
import { Scheduler } from '../scheduler/scheduler.ts';
import { makeNode, makePod, type TestPod } from '../scheduler/testing/fixtures.ts';
import { Samples } from './load.ts';
import { withApiserver } from './server.ts';
import type { BenchContext, Benchmark } from './report.ts';

const pods = findResource('', 'v1', 'pods')!;
const nodes = findResource('', 'v1', 'nodes')!;

async function pool(n: number, concurrency: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

function benchPod(i: number, nodeCount: number, anti: boolean): TestPod {
  if (!anti) return makePod(`p-${i}`, { cpu: '10m', memory: '16Mi' });
  const group = `g-${Math.floor(i / nodeCount)}`;
  return makePod(`p-${i}`, {
    cpu: '10m',
    memory: '16Mi',
    labels: { group },
    affinity: {
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { group } }, topologyKey: 'kubernetes.io/hostname' },
        ],
      },
    },
  });
}

/** One scenario: N nodes, P pending Pods, then a steady-rate latency phase. */
async function scenario(
  ctx: BenchContext,
  label: string,
  nodeCount: number,
  podCount: number,
  anti: boolean,
  latencyPods: number,
  rate: number,
): Promise<void> {
  await withApiserver([], async (server) => {
    const client = new KubeClient(server.clientConfig);
    const log = pino({ level: 'warn' });
    try {
      await pool(nodeCount, 50, (i) => client.create(nodes, undefined, makeNode(`node-${i}`, { cpu: '64', memory: '256Gi', pods: '500' })));
      await pool(podCount, 100, (i) => client.create(pods, 'default', benchPod(i, nodeCount, anti)));
      ctx.progress(`${label}: ${nodeCount} nodes and ${podCount} pending pods created`);
      let bound = 0;
      let allBound!: () => void;
      const done = new Promise<void>((r) => (allBound = r));
      const createdAt = new Map<string, number>();
      const latency = new Samples();
      const scheduler = new Scheduler({
        client,
        config: resolveConfig(undefined),
        log,
        onBound: (pod) => {
          const t = createdAt.get(pod.metadata!.name!);
          if (t !== undefined) latency.add(performance.now() - t);
          if (++bound === podCount + latencyPods) allBound();
          else if (bound === podCount) firstPhase();
        },
      });
      let firstPhase!: () => void;
      const phase1 = new Promise<void>((r) => (firstPhase = r));
      scheduler.startInformers();
      await Promise.all(scheduler.informers.map((i) => i.waitForSync()));
      const t0 = performance.now();
      await scheduler.run();
      await phase1;
      const seconds = (performance.now() - t0) / 1000;
      const target = nodeCount <= 100 ? 1000 : 500;
      ctx.record(
        `${label}: binds`,
        podCount / seconds,
        '/s',
        anti ? { note: 'required anti-affinity by hostname' } : { target: { op: '>=', value: target } },
      );
      // Steady arrivals: creation-to-binding latency.
      const interval = 1000 / rate;
      const start = performance.now();
      await pool(latencyPods, 50, async (i) => {
        const due = start + i * interval;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const name = `p-${podCount + i}`;
        createdAt.set(name, performance.now());
        await client.create(pods, 'default', {
          ...benchPod(podCount + i, nodeCount, anti),
          metadata: { ...benchPod(podCount + i, nodeCount, anti).metadata, name },
        });
      });
      await done;
      ctx.record(`${label}: creation to binding p50`, latency.percentile(50), 'ms', { note: `${latencyPods} pods at ${rate}/s` });
      ctx.record(`${label}: creation to binding p99`, latency.percentile(99), 'ms');
      await scheduler.stop();
    } finally {
      client.close();
    }
  });
}

/** The benchmark, for bench/run.ts. */
export const schedulerThroughput: Benchmark = {
  name: 'scheduler',
  description: 'scheduler binds/s for 10,000 pending Pods on 100 and 5,000 nodes (default plugins, anti-affinity), creation-to-binding p99',
  async run(ctx) {
    const pods = ctx.size(10_000, 1_000);
    const big = ctx.size(5_000, 500);
    const latencyPods = ctx.size(2_000, 200);
    await scenario(ctx, '100 nodes, default', 100, pods, false, latencyPods, 200);
    await scenario(ctx, `${big} nodes, default`, big, pods, false, latencyPods, 200);
    await scenario(ctx, '100 nodes, anti-affinity', 100, pods, true, latencyPods, 200);
    await scenario(ctx, `${big} nodes, anti-affinity`, big, pods, true, latencyPods, 200);
  },
};
