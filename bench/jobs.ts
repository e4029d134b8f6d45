// A whole control plane (apiserver, controller-manager, scheduler, one
// kubelet-sim with 100 nodes, simulated start-up delays zero): a Job of
// 1,000 completions with parallelism 100, from create to its Complete
// condition, each Pod a container that exits at once. Records the time, the
// completions per second, and the controller-manager's CPU time and RSS.
import { performance } from 'node:perf_hooks';
import type { Job } from 'kubernetes-types/batch/v1.js';
import { findResource } from '../shared/api/resources.ts';
import type { KubeClient } from '../shared/client/kube-client.ts';
import { cpuSecondsOf, memoryOf } from './proc.ts';
import { withCluster } from './components.ts';
import type { BenchContext, Benchmark } from './report.ts';

const jobs = findResource('batch', 'v1', 'jobs')!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function job(name: string, completions: number, parallelism: number): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      completions,
      parallelism,
      backoffLimit: 6,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'work', image: 'busybox:1.36', command: ['true'], resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
        },
      },
    },
  };
}

async function waitComplete(client: KubeClient, name: string, timeoutMs: number, ctx: BenchContext): Promise<Job | undefined> {
  const end = performance.now() + timeoutMs;
  let last = 0;
  while (performance.now() < end) {
    const j = await client.get<Job>(jobs, 'default', name);
    const s = j.status ?? {};
    if (s.conditions?.some((c) => c.type === 'Complete' && c.status === 'True')) return j;
    if (s.conditions?.some((c) => c.type === 'Failed' && c.status === 'True')) return undefined;
    if (performance.now() - last > 3000) {
      ctx.progress(`${name}: ${s.succeeded ?? 0} succeeded, ${s.active ?? 0} active, ${s.failed ?? 0} failed`);
      last = performance.now();
    }
    await sleep(100);
  }
  return undefined;
}

/** See the file comment. */
export const jobsBench: Benchmark = {
  name: 'jobs',
  description: 'a 1,000-completion Job with parallelism 100 on 100 simulated nodes, create -> Complete',
  async run(ctx) {
    const completions = ctx.size(1000, 100);
    const parallelism = ctx.size(100, 20);
    const nodes = ctx.size(100, 20);
    await withCluster('bench-jobs', nodes, async (client, cm) => {
      const cpu0 = cpuSecondsOf(cm);
      const t0 = performance.now();
      await client.create(jobs, 'default', job('batch', completions, parallelism));
      const done = await waitComplete(client, 'batch', 300_000, ctx);
      const ms = Math.round(performance.now() - t0);
      ctx.record(
        `${completions} completions, parallelism ${parallelism}, ${nodes} nodes: create -> Complete`,
        done ? ms : 'timed out',
        'ms',
        {
          note: done ? `succeeded ${done.status?.succeeded}, failed ${done.status?.failed ?? 0}` : undefined,
        },
      );
      if (done) ctx.record('completions per second', Math.round((completions / ms) * 1000 * 10) / 10, 'pods/s');
      ctx.record('controller-manager CPU time', Math.round((cpuSecondsOf(cm) - cpu0) * 1000), 'ms');
      ctx.record('controller-manager RSS', Math.round(memoryOf(cm).rss / 1024 / 1024), 'MiB');
    });
  },
};
