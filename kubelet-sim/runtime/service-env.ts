// The Service environment variables kubelet gives a container (kube's
// pkg/kubelet/envvars): NAME_SERVICE_HOST, NAME_SERVICE_PORT, one
// NAME_SERVICE_PORT_<PORTNAME> per named port and the Docker-link
// NAME_PORT_<port>_<PROTO>{,_PROTO,_PORT,_ADDR} variables, for every Service
// with a cluster IP in the Pod's namespace that exists when the container
// starts (enableServiceLinks, on by default), and always for the `kubernetes`
// Service of the default namespace.
import type { Pod, Service } from 'kubernetes-types/core/v1.js';

/** The `kubernetes` Service as the apiserver makes it, for when no informer has it yet. */
export const KUBERNETES_SERVICE: Service = {
  metadata: { name: 'kubernetes', namespace: 'default' },
  spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP' }] },
};

const envName = (s: string) => s.replace(/-/g, '_').toUpperCase();

const hasClusterIP = (s: Service) => !!s.spec?.clusterIP && s.spec.clusterIP !== 'None' && !!s.spec.ports?.length;

/** One Service's variables, in kubelet's order. */
export function serviceVars(s: Service): [string, string][] {
  if (!hasClusterIP(s)) return [];
  const prefix = envName(s.metadata?.name ?? '');
  const ip = s.spec!.clusterIP!;
  const ports = s.spec!.ports!;
  const out: [string, string][] = [
    [`${prefix}_SERVICE_HOST`, ip],
    [`${prefix}_SERVICE_PORT`, String(ports[0].port)],
  ];
  for (const p of ports) if (p.name) out.push([`${prefix}_SERVICE_PORT_${envName(p.name)}`, String(p.port)]);
  const hostPort = ip.includes(':') ? `[${ip}]:` : `${ip}:`;
  ports.forEach((p, i) => {
    const proto = p.protocol || 'TCP';
    const url = `${proto.toLowerCase()}://${hostPort}${p.port}`;
    // Docker special-cases the first port.
    if (i === 0) out.push([`${prefix}_PORT`, url]);
    const pp = `${prefix}_PORT_${p.port}_${proto.toUpperCase()}`;
    out.push([pp, url], [`${pp}_PROTO`, proto.toLowerCase()], [`${pp}_PORT`, String(p.port)], [`${pp}_ADDR`, ip]);
  });
  return out;
}

/**
 * The variables of the Services a container of `pod` sees (kubelet's getServiceEnvVarMap):
 * the Pod's namespace's when enableServiceLinks is not false, and the default namespace's
 * `kubernetes` Service always; a Service of the Pod's own namespace wins a name clash.
 */
export function serviceEnv(pod: Pod, inNamespace: Service[], kubernetes: Service | undefined): Map<string, string> {
  const ns = pod.metadata?.namespace ?? 'default';
  const links = pod.spec?.enableServiceLinks ?? true;
  const chosen = new Map<string, Service>();
  const master = kubernetes ?? KUBERNETES_SERVICE;
  if (hasClusterIP(master)) chosen.set('kubernetes', master);
  if (links)
    for (const s of [...inNamespace].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))) {
      if (s.metadata?.namespace !== ns || !hasClusterIP(s)) continue;
      chosen.set(s.metadata?.name ?? '', s);
    }
  const out = new Map<string, string>();
  for (const s of chosen.values()) for (const [k, v] of serviceVars(s)) out.set(k, v);
  return out;
}
