// The route of the three proxy subresources: which backend a proxy path
// names (proxy.ts has the forwarding), with the verbs kube serves on them.
import type http from 'node:http';
import { methodNotAllowed } from '../../../shared/api/errors.ts';
import type { ApiContext } from '../context.ts';
import { nodeProxyBackend } from './node-proxy.ts';
import { podProxyBackend } from './pod-proxy.ts';
import { matchProxyPath, serveProxy, type ProxyTarget } from './proxy.ts';
import { serviceProxyBackend } from './service-proxy.ts';

export { matchProxyPath };

/** The HTTP methods kube's proxy subresources serve (its connect verbs). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Serves a request matchProxyPath matched; resolves with the status sent. */
export function serveProxyRequest(
  ctx: ApiContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  target: ProxyTarget,
): Promise<number> {
  if (!METHODS.has(req.method ?? ''))
    throw methodNotAllowed((req.method ?? '').toLowerCase(), { group: '', resource: `${target.resource}/proxy` });
  const raw = req.url ?? '';
  const q = raw.indexOf('?');
  const rawQuery = q < 0 ? '' : raw.slice(q + 1);
  return serveProxy(ctx, req, res, target, rawQuery, () => {
    if (target.resource === 'pods') return podProxyBackend(ctx, target.namespace, target.id);
    if (target.resource === 'services') return serviceProxyBackend(ctx, target.namespace, target.id);
    return nodeProxyBackend(ctx, target.id);
  });
}
