// nodes/proxy's backend: the node's kubelet API (/healthz, /pods,
// /metrics/resource, /stats/summary, /containerLogs...), dialed with the
// apiserver's kubelet client certificate as kube-apiserver dials it. ksim's
// kubelet-sim serves several nodes on one port, so the node is named in the
// query (`node=NAME`, which a real kubelet ignores), as the metrics API does.
import type { ApiContext } from '../context.ts';
import { nodeKubeletBase } from './kubelet-proxy.ts';
import { invalidRequest, splitSchemeNamePort, type Backend } from './proxy.ts';

/** Resolves the backend of /api/v1/nodes/ID/proxy. */
export function nodeProxyBackend(ctx: ApiContext, id: string): Backend {
  const parts = splitSchemeNamePort(id);
  if (!parts) throw invalidRequest('node', id);
  const base = nodeKubeletBase(ctx.store, parts.name);
  return { kind: 'url', base, tls: base.startsWith('https:'), query: new URLSearchParams({ node: parts.name }) };
}
