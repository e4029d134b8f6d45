// A whole control plane (apiserver, controller-manager, scheduler, one
// kubelet-sim with 1,000 nodes and no simulated start-up delays): a
// DaemonSet from create to a Pod available on every node, then rolled to a
// new image (maxUnavailable 10%) until every node runs the new Pod. Records
// the controller-manager's CPU time and RSS.
import { performance } from 'node:perf_hooks';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import { findResource } from '../shared/api/resources.ts';
import type { KubeClient } from '../shared/client/kube-client.ts';
import { cpuSecondsOf, memoryOf } from './proc.ts';
import { withCluster } from './components.ts';
import type { BenchContext, Benchmark } from './report.ts';

const daemonsets = findResource('apps', 'v1', 'daemonsets')!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function daemonSet(image: string): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: { containers: [{ name: 'agent', image, resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
      },
    },
  };
}

/** Waits until the DaemonSet reports `nodes` updated and available Pods for `generation`. */
async function rolledOut(client: KubeClient, nodes: number, generation: number, timeoutMs: number, ctx: BenchContext): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  let last = 0;
  while (performance.now() < end) {
    const s = (await client.get<DaemonSet>(daemonsets, 'default', 'agent')).status;
    if (
      (s?.observedGeneration ?? 0) >= generation &&
      s?.desiredNumberScheduled === nodes &&
      s.updatedNumberScheduled === nodes &&
      s.numberAvailable === nodes
    )
      return true;
    if (performance.now() - last > 3000) {
      ctx.progress(`${s?.updatedNumberScheduled ?? 0} updated, ${s?.numberAvailable ?? 0} available of ${s?.desiredNumberScheduled ?? 0}`);
      last = performance.now();
    }
    await sleep(100);
  }
  return false;
}

/** See the file comment. */
export const daemonSetBench: Benchmark = {
  name: 'daemonsets',
  description: 'a DaemonSet on 1,000 simulated nodes: create to every Pod available, then a rolling image update (maxUnavailable 10%)',
  async run(ctx) {
    const nodes = ctx.size(1000, 100);
    await withCluster('bench-ds', nodes, async (client, cm) => {
      const cpu0 = cpuSecondsOf(cm);
      const t0 = performance.now();
      await client.create(daemonsets, 'default', daemonSet('nginx:1.27'));
      const up = await rolledOut(client, nodes, 1, 300_000, ctx);
      ctx.record(`create -> a daemon Pod available on each of ${nodes} nodes`, up ? Math.round(performance.now() - t0) : 'timed out', 'ms');
      const t1 = performance.now();
      await client.patch(daemonsets, 'default', 'agent', 'strategic', {
        spec: { template: { spec: { containers: [{ name: 'agent', image: 'nginx:1.28' }] } } },
      });
      const rolled = await rolledOut(client, nodes, 2, 600_000, ctx);
      ctx.record(
        `rolling image update over ${nodes} nodes (maxUnavailable 10%)`,
        rolled ? Math.round(performance.now() - t1) : 'timed out',
        'ms',
      );
      ctx.record('controller-manager CPU time', Math.round((cpuSecondsOf(cm) - cpu0) * 1000), 'ms');
      ctx.record('controller-manager RSS', Math.round(memoryOf(cm).rss / 1024 / 1024), 'MiB');
    });
  },
};
