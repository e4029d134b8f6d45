// A whole control plane (apiserver, controller-manager, scheduler, one
// kubelet-sim with 100 nodes): a 1,000-replica Deployment from apply to every
// replica available, with the simulated start-up delays set to zero and then
// with kube-like defaults, and a rolling image update of it. Records the
// controller-manager's CPU time and RSS.
import { performance } from 'node:perf_hooks';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { findResource } from '../shared/api/resources.ts';
import type { KubeClient } from '../shared/client/kube-client.ts';
import { cpuSecondsOf, memoryOf } from './proc.ts';
import { withCluster } from './components.ts';
import type { BenchContext, Benchmark } from './report.ts';

const deployments = findResource('apps', 'v1', 'deployments')!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function deployment(name: string, replicas: number, image: string): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image, resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
      },
    },
  };
}

/** Polls until `name` has observed `generation` and all `replicas` are updated and available; false after `timeoutMs`. */
export async function waitAvailable(
  client: KubeClient,
  name: string,
  replicas: number,
  generation: number,
  timeoutMs: number,
  ctx: BenchContext,
): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  let last = 0;
  while (performance.now() < end) {
    const d = await client.get<Deployment>(deployments, 'default', name);
    const s = d.status ?? {};
    if (
      (s.observedGeneration ?? 0) >= generation &&
      s.updatedReplicas === replicas &&
      s.availableReplicas === replicas &&
      (s.replicas ?? 0) === replicas
    )
      return true;
    if (performance.now() - last > 3000) {
      ctx.progress(`${name}: ${s.updatedReplicas ?? 0} updated, ${s.availableReplicas ?? 0} available of ${replicas}`);
      last = performance.now();
    }
    await sleep(100);
  }
  return false;
}

/** See the file comment. */
export const deploymentBench: Benchmark = {
  name: 'deployment',
  description: '1,000-replica Deployment on 100 simulated nodes (zero and default start-up delays) and a rolling update',
  async run(ctx) {
    const replicas = ctx.size(1000, 100);
    const nodes = ctx.size(100, 20);
    for (const timings of ['zero', 'default'] as const) {
      await withCluster(
        'bench-deploy',
        nodes,
        async (client, cm) => {
          const cpu0 = cpuSecondsOf(cm);
          const t0 = performance.now();
          await client.create(deployments, 'default', deployment('big', replicas, 'nginx:1.27'));
          const ok = await waitAvailable(client, 'big', replicas, 1, 180_000, ctx);
          const target = timings === 'zero' ? 5000 : 10_000;
          ctx.record(
            `${timings} start-up delays: apply -> ${replicas} replicas available`,
            ok ? Math.round(performance.now() - t0) : 'timed out',
            'ms',
            { target: { op: '<', value: target } },
          );
          if (timings === 'zero') {
            const t1 = performance.now();
            await client.patch(deployments, 'default', 'big', 'strategic', {
              spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } },
            });
            const rolled = await waitAvailable(client, 'big', replicas, 2, 180_000, ctx);
            ctx.record(`rolling image update of ${replicas} replicas`, rolled ? Math.round(performance.now() - t1) : 'timed out', 'ms', {
              target: { op: '<', value: 10_000 },
            });
          }
          ctx.record(`${timings}: controller-manager CPU time`, Math.round((cpuSecondsOf(cm) - cpu0) * 1000), 'ms');
          ctx.record(`${timings}: controller-manager RSS`, Math.round(memoryOf(cm).rss / 1024 / 1024), 'MiB');
        },
        timings,
      );
    }
  },
};
