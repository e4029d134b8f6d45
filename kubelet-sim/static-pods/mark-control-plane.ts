// kubeadm's mark-control-plane phase: once the control-plane node's kubelet
// has registered it (with the NoSchedule taint, kubelet's
// --register-with-taints), an admin labels it with kube's role label, which
// NodeRestriction does not let a kubelet set on itself. `ksim up` runs it
// with the admin kubeconfig, as kubeadm init does with admin.conf.
import type { Node, Taint } from 'kubernetes-types/core/v1.js';
import { StatusError } from '../../shared/api/errors.ts';
import { findResource } from '../../shared/api/resources.ts';
import { KubeClient } from '../../shared/client/kube-client.ts';
import { loadKubeconfig } from '../../shared/client/kubeconfig.ts';
import { CONTROL_PLANE_LABELS, CONTROL_PLANE_TAINT } from './control-plane.ts';

const nodes = findResource('', 'v1', 'nodes')!;

/** The merge patch that marks `node` as kubeadm does; undefined when it is marked already. */
export function markPatch(node: Node): { metadata?: { labels: Record<string, string> }; spec?: { taints: Taint[] } } | undefined {
  const labels = node.metadata?.labels ?? {};
  const taints = node.spec?.taints ?? [];
  const missingLabels = Object.entries(CONTROL_PLANE_LABELS).filter(([k, v]) => labels[k] !== v);
  const hasTaint = taints.some((t) => t.key === CONTROL_PLANE_TAINT.key && t.effect === CONTROL_PLANE_TAINT.effect);
  if (!missingLabels.length && hasTaint) return undefined;
  return {
    ...(missingLabels.length ? { metadata: { labels: Object.fromEntries(missingLabels) } } : {}),
    ...(hasTaint ? {} : { spec: { taints: [...taints, CONTROL_PLANE_TAINT] } }),
  };
}

/** Waits (up to `timeoutMs`) for Node `name` to be registered, then marks it; resolves with an error message or undefined. */
export async function markControlPlane(kubeconfig: string, name: string, timeoutMs = 120_000): Promise<string | undefined> {
  const client = new KubeClient(loadKubeconfig(kubeconfig), { userAgent: 'kubeadm/v1.35.0 (linux/amd64) ksim' });
  const deadline = Date.now() + timeoutMs;
  let last = '';
  try {
    while (Date.now() < deadline) {
      try {
        const node = await client.get<Node>(nodes, undefined, name);
        const patch = markPatch(node);
        if (!patch) return undefined;
        // The taint list replaces the registered one whole: the resourceVersion makes a concurrent change a conflict, retried.
        await client.patch(nodes, undefined, name, 'merge', {
          ...patch,
          metadata: { ...patch.metadata, resourceVersion: node.metadata?.resourceVersion },
        });
      } catch (err) {
        last = (err as Error).message;
        if (!(err instanceof StatusError) || (err.code !== 404 && err.code !== 409)) last = `marking node ${name}: ${last}`;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    return last || `node ${name} was not registered within ${timeoutMs / 1000}s`;
  } finally {
    client.close();
  }
}
