// A whole control plane (apiserver, controller-manager, scheduler, one
// kubelet-sim with 20 nodes, zero start-up delays): a 100-replica Parallel
// StatefulSet with a volumeClaimTemplate, from create to every replica Ready,
// and how many of its claims are Bound by then (the provisioner's share).
// Records the controller-manager's CPU time.
import { performance } from 'node:perf_hooks';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim } from 'kubernetes-types/core/v1.js';
import { findResource } from '../shared/api/resources.ts';

import { cpuSecondsOf } from './proc.ts';
import { withCluster } from './components.ts';
import type { Benchmark } from './report.ts';

const statefulsets = findResource('apps', 'v1', 'statefulsets')!;
const pvcs = findResource('', 'v1', 'persistentvolumeclaims')!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function statefulSet(name: string, replicas: number): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      serviceName: name,
      replicas,
      podManagementPolicy: 'Parallel',
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'db',
              image: 'nginx:1.27',
              resources: { requests: { cpu: '10m', memory: '16Mi' } },
              volumeMounts: [{ name: 'data', mountPath: '/data' }],
            },
          ],
        },
      },
      volumeClaimTemplates: [
        { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      ],
    },
  };
}

/** See the file comment. */
export const statefulSetBench: Benchmark = {
  name: 'statefulsets',
  description: '100-replica Parallel StatefulSet with PVCs on 20 simulated nodes, create to all Ready',
  async run(ctx) {
    const replicas = ctx.size(100, 20);
    const nodes = ctx.size(20, 5);
    await withCluster('bench-sts', nodes, async (client, cm) => {
      const cpu0 = cpuSecondsOf(cm);
      const t0 = performance.now();
      await client.create(statefulsets, 'default', statefulSet('db', replicas));
      let done = false;
      let last = 0;
      while (performance.now() - t0 < 180_000) {
        const s = (await client.get<StatefulSet>(statefulsets, 'default', 'db')).status;
        if ((s?.readyReplicas ?? 0) === replicas) {
          done = true;
          break;
        }
        if (performance.now() - last > 3000) {
          ctx.progress(`db: ${s?.replicas ?? 0} created, ${s?.readyReplicas ?? 0} ready of ${replicas}`);
          last = performance.now();
        }
        await sleep(100);
      }
      const elapsed = Math.round(performance.now() - t0);
      ctx.record(`create -> ${replicas} replicas Ready (Parallel, one PVC each)`, done ? elapsed : 'timed out', 'ms');
      const claims = (await client.list<PersistentVolumeClaim>(pvcs, { namespace: 'default' })).items;
      ctx.record(
        'claims made / Bound when all Ready',
        `${claims.length} / ${claims.filter((c) => c.status?.phase === 'Bound').length}`,
        '',
      );
      ctx.record('controller-manager CPU time', Math.round((cpuSecondsOf(cm) - cpu0) * 1000), 'ms');
    });
  },
};
