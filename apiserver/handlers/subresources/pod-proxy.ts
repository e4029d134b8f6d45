// pods/proxy's backend, as kube's pod ResourceLocation finds it: the Pod's
// IP and the port named in NAME:PORT, else the first container port the Pod
// declares, else 80; a Pod without an address yet is "address not allowed".
import type { Pod } from 'kubernetes-types/core/v1.js';
import { badRequest, StatusError } from '../../../shared/api/errors.ts';
import type { ApiContext } from '../context.ts';
import { storedPod } from './kubelet-proxy.ts';
import { dialPod } from './port-forward-dial.ts';
import { invalidRequest, splitSchemeNamePort, type Backend } from './proxy.ts';

/** The port a pods/proxy request goes to: the one named, else the first declared container port, else 80. */
export function podProxyPort(pod: Pod, port: string): string {
  if (port) return port;
  for (const c of pod.spec?.containers ?? []) if (c.ports?.length) return String(c.ports[0].containerPort);
  return '80';
}

/** Resolves the backend of .../pods/ID/proxy. */
export function podProxyBackend(ctx: ApiContext, namespace: string, id: string): Backend {
  const parts = splitSchemeNamePort(id);
  if (!parts) throw invalidRequest('pod', id);
  const pod = storedPod(ctx.store, namespace, parts.name);
  return podBackend(ctx, pod, podProxyPort(pod, parts.port));
}

/** A connection to `port` of a Pod, by its IP, for the proxies. */
export function podBackend(ctx: ApiContext, pod: Pod, port: string): Backend {
  const ip = pod.status?.podIP;
  if (!ip || !/^\d+\.\d+\.\d+\.\d+$/.test(ip) || ip.startsWith('127.') || ip === '0.0.0.0') throw badRequest('address not allowed');
  const host = `${ip}:${port}`;
  const n = Number(port);
  return {
    kind: 'pod',
    host,
    open: async () => {
      // A port that is not a number cannot be dialed: Go's dialer fails to parse it, as here.
      if (!Number.isInteger(n) || n < 1 || n > 65535)
        throw new StatusError(503, 'ServiceUnavailable', `error trying to reach service: dial tcp: address ${host}: invalid port`);
      return dialPod(ctx.store, pod, n, ctx.kubeletClientTls);
    },
  };
}
