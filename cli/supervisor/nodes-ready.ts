// The last step of `ksim up`'s progress display: nodes Ready n/N, counted by
// polling the Nodes with the admin's kubeconfig, until all are Ready.
import type { Node } from 'kubernetes-types/core/v1.js';
import { findResource } from '../../shared/api/resources.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import type { Progress } from './progress.ts';

const nodes = findResource('', 'v1', 'nodes')!;

/** Shows nodes Ready n/N until all `want` are, or `stopped()`; never throws. */
export async function showNodesReady(
  progress: Progress,
  client: KubeClient,
  want: number,
  stopped: () => boolean,
  timeoutMs = 60_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last = -1;
  while (!stopped()) {
    let ready = 0;
    try {
      const list = await client.list<Node>(nodes);
      ready = list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
    } catch {
      // the apiserver may be busy starting: try again
    }
    if (stopped()) return;
    if (ready >= want) {
      progress.done(`nodes Ready ${ready}/${want} (${progress.elapsed()})`);
      return;
    }
    if (ready !== last) progress.step(`nodes Ready ${ready}/${want}`);
    last = ready;
    if (Date.now() > end) {
      progress.done(`nodes Ready ${ready}/${want} after ${timeoutMs / 1000}s; still waiting`);
      return;
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}
