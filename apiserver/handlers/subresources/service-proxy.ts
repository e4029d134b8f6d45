// services/proxy's backend, as kube's service ResourceLocation picks it: a
// port number is turned into the Service port's name (503 "no service port N
// found for service" when none has it), then a random ready address of the
// Endpoints subset that has a port of that name, checked to be a Pod that
// holds that IP; none is 503 "no endpoints available for service".
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import { notFound, StatusError } from '../../../shared/api/errors.ts';
import type { Store } from '../../storage/store.ts';
import type { ApiContext } from '../context.ts';
import { podBackend } from './pod-proxy.ts';
import { invalidRequest, splitSchemeNamePort, type Backend } from './proxy.ts';

function read<T>(store: Store, key: string): T | undefined {
  const e = store.get(key);
  return e ? (JSON.parse(e.json) as T) : undefined;
}

/** The Pod an endpoint address stands for, when it is one that holds that IP (kube's isValidAddress). */
function addressPod(
  store: Store,
  namespace: string,
  addr: { ip: string; targetRef?: { kind?: string; name?: string; namespace?: string } },
): Pod | undefined {
  const ref = addr.targetRef;
  if (!ref || ref.kind !== 'Pod' || !ref.name) return undefined;
  const pod = read<Pod>(store, `/registry/core/pods/${ref.namespace ?? namespace}/${ref.name}`);
  const ips = [pod?.status?.podIP, ...(pod?.status?.podIPs ?? []).map((p) => p.ip)];
  return pod && ips.includes(addr.ip) ? pod : undefined;
}

/** The chosen endpoint: its Pod and port; `random` is injectable for tests. */
export function pickEndpoint(store: Store, namespace: string, id: string, random: () => number = Math.random): { pod: Pod; port: number } {
  const parts = splitSchemeNamePort(id);
  if (!parts) throw invalidRequest('service', id);
  let portName = parts.port;
  if (/^-?\d+$/.test(portName)) {
    const svc = read<Service>(store, `/registry/core/services/${namespace}/${parts.name}`);
    if (!svc) throw notFound({ group: '', resource: 'services' }, parts.name);
    const found = (svc.spec?.ports ?? []).find((p) => p.port === Number(portName));
    if (!found) throw new StatusError(503, 'ServiceUnavailable', `no service port ${Number(portName)} found for service "${parts.name}"`);
    portName = found.name ?? '';
  }
  const eps = read<Endpoints>(store, `/registry/core/endpoints/${namespace}/${parts.name}`);
  if (!eps) throw notFound({ group: '', resource: 'endpoints' }, parts.name);
  const subsets = eps.subsets ?? [];
  if (subsets.length === 0) throw new StatusError(503, 'ServiceUnavailable', `no endpoints available for service "${parts.name}"`);
  const seed = Math.floor(random() * subsets.length);
  for (let i = 0; i < subsets.length; i++) {
    const ss = subsets[(seed + i) % subsets.length];
    const addrs = ss.addresses ?? [];
    if (addrs.length === 0) continue;
    for (const p of ss.ports ?? []) {
      if ((p.name ?? '') !== portName) continue;
      const start = Math.floor(random() * addrs.length);
      for (let t = 0; t < addrs.length; t++) {
        const pod = addressPod(store, namespace, addrs[(start + t) % addrs.length]);
        if (pod) return { pod, port: p.port };
      }
    }
  }
  throw new StatusError(503, 'ServiceUnavailable', `no endpoints available for service "${id}"`);
}

/** Resolves the backend of .../services/ID/proxy. */
export function serviceProxyBackend(ctx: ApiContext, namespace: string, id: string): Backend {
  const { pod, port } = pickEndpoint(ctx.store, namespace, id);
  return podBackend(ctx, pod, String(port));
}
