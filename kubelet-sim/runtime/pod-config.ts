// What a container sees of its Pod's configuration: environment variables
// (env, envFrom, downward API, ConfigMap and Secret keys, $(VAR) expansion)
// and volume contents, computed as kubelet does, with kubelet's exact error
// messages when a referenced ConfigMap, Secret or key is missing.
import type { Container, Pod, ServiceAccountTokenProjection } from 'kubernetes-types/core/v1.js';
import { serviceEnv } from './service-env.ts';

/** Reads ConfigMaps and Secrets (from informer caches). */
export interface ConfigSource {
  configMap(namespace: string, name: string): { data?: Record<string, string>; binaryData?: Record<string, string> } | undefined;
  secret(namespace: string, name: string): { data?: Record<string, string>; stringData?: Record<string, string> } | undefined;
  /** The cluster CA (PEM) this process trusts, for ca.crt until the kube-root-ca.crt ConfigMap is published. */
  rootCa?(): string | undefined;
}

/** The token of a serviceAccountToken projection in volume `volume`; throws a MountError when there is none. */
export type TokenSource = (volume: string, source: ServiceAccountTokenProjection) => string;

/** A missing ConfigMap, Secret or key: the container waits with CreateContainerConfigError. */
export class ConfigError extends Error {}

const decode = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

function cmData(cm: ReturnType<ConfigSource['configMap']>): Record<string, string> {
  const out: Record<string, string> = { ...(cm?.data ?? {}) };
  for (const [k, v] of Object.entries(cm?.binaryData ?? {})) out[k] = decode(v);
  return out;
}

function secretData(s: ReturnType<ConfigSource['secret']>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(s?.data ?? {})) out[k] = decode(v);
  return out;
}

/** `$(VAR)` expansion as kubelet does for env values, command and args; `$$(VAR)` escapes. */
export function expandRefs(s: string, vars: Map<string, string>): string {
  return s.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (m: string, name: string) => (m === '$$' ? '$' : (vars.get(name) ?? m)));
}

/** Resolves a downward API fieldRef. */
export function fieldRefValue(pod: Pod, fieldPath: string): string {
  const m = pod.metadata ?? {};
  const sel = /^metadata\.(labels|annotations)\['(.*)'\]$/.exec(fieldPath);
  if (sel) return (sel[1] === 'labels' ? m.labels : m.annotations)?.[sel[2]] ?? '';
  switch (fieldPath) {
    case 'metadata.name':
      return m.name ?? '';
    case 'metadata.namespace':
      return m.namespace ?? '';
    case 'metadata.uid':
      return m.uid ?? '';
    case 'metadata.labels':
      return formatMap(m.labels);
    case 'metadata.annotations':
      return formatMap(m.annotations);
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP':
      return pod.status?.hostIP ?? '';
    case 'status.hostIPs':
      return (pod.status?.hostIPs ?? []).map((x) => x.ip).join(',');
    case 'status.podIP':
      return pod.status?.podIP ?? '';
    case 'status.podIPs':
      return (pod.status?.podIPs ?? []).map((x) => x.ip).join(',');
    default:
      return '';
  }
}

/** The downward API's file format for labels and annotations: sorted `key="value"` lines. */
function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify(m![k])}`)
    .join('\n');
}

function resourceValue(container: Container | undefined, resource: string, divisor?: string): string {
  const [kind, name] = resource.split('.');
  const res = container?.resources;
  const list = kind === 'limits' ? res?.limits : kind === 'requests' ? res?.requests : undefined;
  const q: string | undefined = list?.[name];
  if (q === undefined) return name === 'cpu' ? '4' : name === 'memory' ? String(16 * 1024 ** 3) : '0';
  if (name === 'cpu') {
    const milli = q.endsWith('m') ? Number(q.slice(0, -1)) : Number(q) * 1000;
    return String(Math.ceil(milli / (divisor === '1m' ? 1 : 1000)));
  }
  return String(Math.round(parseQuantity(q)));
}

/** Parses a Kubernetes quantity (128Mi, 1G, 500m) into a number. */
export function parseQuantity(q: string | number | undefined): number {
  if (q === undefined) return NaN;
  if (typeof q === 'number') return q;
  const m = /^([0-9.]+)([a-zA-Z]*)$/.exec(q);
  if (!m) return NaN;
  const mult: Record<string, number> = {
    '': 1,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
  };
  return Number(m[1]) * (mult[m[2]] ?? NaN);
}

/** The environment of `container`, in kubelet's order; throws ConfigError when a required reference is missing. */
export function containerEnv(
  pod: Pod,
  container: Container,
  src: ConfigSource,
  extra: {
    hostname: string;
    /** The Service variables (service-env.ts); default: the kubernetes Service's. */
    services?: Map<string, string>;
    /** The user's home directory, as runc sets HOME (default /root). */
    home?: string;
  },
): Map<string, string> {
  const services = extra.services ?? serviceEnv(pod, [], undefined);
  const ns = pod.metadata?.namespace ?? 'default';
  const env = new Map<string, string>();
  env.set('PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
  env.set('HOSTNAME', extra.hostname);
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.configMapRef) {
      const cm = src.configMap(ns, from.configMapRef.name ?? '');
      if (!cm) {
        if (from.configMapRef.optional) continue;
        throw new ConfigError(`configmap "${from.configMapRef.name}" not found`);
      }
      for (const [k, v] of Object.entries(cmData(cm))) env.set(prefix + k, v);
    }
    if (from.secretRef) {
      const s = src.secret(ns, from.secretRef.name ?? '');
      if (!s) {
        if (from.secretRef.optional) continue;
        throw new ConfigError(`secret "${from.secretRef.name}" not found`);
      }
      for (const [k, v] of Object.entries(secretData(s))) env.set(prefix + k, v);
    }
  }
  for (const e of container.env ?? []) {
    if (e.valueFrom === undefined) {
      // $(VAR) sees the variables declared so far, then the Services' (kubelet's MappingFuncFor(tmpEnv, serviceEnv)).
      env.set(e.name, expandRefs(e.value ?? '', new Map([...services, ...env])));
      continue;
    }
    const vf = e.valueFrom;
    if (vf.fieldRef) env.set(e.name, fieldRefValue(pod, vf.fieldRef.fieldPath));
    else if (vf.resourceFieldRef) {
      const c = pod.spec?.containers.find((x) => x.name === (vf.resourceFieldRef!.containerName || container.name)) ?? container;
      env.set(e.name, resourceValue(c, vf.resourceFieldRef.resource, vf.resourceFieldRef.divisor));
    } else if (vf.configMapKeyRef) {
      const r = vf.configMapKeyRef;
      const cm = src.configMap(ns, r.name ?? '');
      if (!cm) {
        if (r.optional) continue;
        throw new ConfigError(`configmap "${r.name}" not found`);
      }
      const v = cmData(cm)[r.key];
      if (v === undefined) {
        if (r.optional) continue;
        throw new ConfigError(`couldn't find key ${r.key} in ConfigMap ${ns}/${r.name}`);
      }
      env.set(e.name, v);
    } else if (vf.secretKeyRef) {
      const r = vf.secretKeyRef;
      const s = src.secret(ns, r.name ?? '');
      if (!s) {
        if (r.optional) continue;
        throw new ConfigError(`secret "${r.name}" not found`);
      }
      const v = secretData(s)[r.key];
      if (v === undefined) {
        if (r.optional) continue;
        throw new ConfigError(`couldn't find key ${r.key} in Secret ${ns}/${r.name}`);
      }
      env.set(e.name, v);
    }
  }
  // The Service variables the container does not declare itself come last.
  for (const [k, v] of services) if (!env.has(k)) env.set(k, v);
  // runc sets HOME from the user's /etc/passwd entry when the container does not declare it.
  if (!env.has('HOME')) env.set('HOME', extra.home ?? '/root');
  return env;
}

/** A volume source that cannot be set up yet: the Pod stays ContainerCreating with a FailedMount event. */
export class MountError extends Error {}

type Files = Record<string, string>;

function keyed(data: Files, items: { key: string; path: string }[] | undefined, what: string, optional: boolean | undefined): Files {
  if (!items?.length) return { ...data };
  const out: Files = {};
  for (const it of items) {
    if (data[it.key] === undefined) {
      if (optional) continue;
      throw new MountError(`configmap references non-existent config key: ${it.key}`.replace('configmap', what));
    }
    out[it.path] = data[it.key];
  }
  return out;
}

/** The files of one Pod volume, or undefined for volume kinds with no simulated content (hostPath, PVCs: empty). */
export function volumeFiles(pod: Pod, volumeName: string, src: ConfigSource, token: TokenSource): Files | undefined {
  const ns = pod.metadata?.namespace ?? 'default';
  const v = pod.spec?.volumes?.find((x) => x.name === volumeName);
  if (!v) return undefined;
  if (v.configMap) {
    const cm = src.configMap(ns, v.configMap.name ?? '');
    if (!cm) {
      if (v.configMap.optional) return {};
      throw new MountError(`MountVolume.SetUp failed for volume "${v.name}" : configmap "${v.configMap.name}" not found`);
    }
    return keyed(cmData(cm), v.configMap.items, 'configmap', v.configMap.optional);
  }
  if (v.secret) {
    const s = src.secret(ns, v.secret.secretName ?? '');
    if (!s) {
      if (v.secret.optional) return {};
      throw new MountError(`MountVolume.SetUp failed for volume "${v.name}" : secret "${v.secret.secretName}" not found`);
    }
    return keyed(secretData(s), v.secret.items, 'secret', v.secret.optional);
  }
  if (v.downwardAPI) {
    const out: Files = {};
    for (const it of v.downwardAPI.items ?? []) {
      if (it.fieldRef) out[it.path] = fieldRefValue(pod, it.fieldRef.fieldPath);
      else if (it.resourceFieldRef)
        out[it.path] = resourceValue(
          pod.spec?.containers.find((c) => c.name === it.resourceFieldRef!.containerName),
          it.resourceFieldRef.resource,
        );
    }
    return out;
  }
  if (v.projected) {
    const out: Files = {};
    for (const s of v.projected.sources ?? []) {
      if (s.configMap) {
        const cm = src.configMap(ns, s.configMap.name ?? '');
        // kube-root-ca.crt is published by the controller-manager; until it is, the CA this process trusts
        // (or, on plain http, a placeholder) keeps Pods starting.
        if (!cm && s.configMap.name === 'kube-root-ca.crt')
          out['ca.crt'] = src.rootCa?.() ?? '-----BEGIN CERTIFICATE-----\n(ksim simulated CA)\n-----END CERTIFICATE-----\n';
        else if (!cm) {
          if (!s.configMap.optional)
            throw new MountError(`MountVolume.SetUp failed for volume "${v.name}" : configmap "${s.configMap.name}" not found`);
        } else Object.assign(out, keyed(cmData(cm), s.configMap.items, 'configmap', s.configMap.optional));
      }
      if (s.secret) {
        const sec = src.secret(ns, s.secret.name ?? '');
        if (!sec) {
          if (!s.secret.optional)
            throw new MountError(`MountVolume.SetUp failed for volume "${v.name}" : secret "${s.secret.name}" not found`);
        } else Object.assign(out, keyed(secretData(sec), s.secret.items, 'secret', s.secret.optional));
      }
      if (s.downwardAPI)
        for (const it of s.downwardAPI.items ?? []) if (it.fieldRef) out[it.path] = fieldRefValue(pod, it.fieldRef.fieldPath);
      if (s.serviceAccountToken) out[s.serviceAccountToken.path] = token(v.name, s.serviceAccountToken);
    }
    return out;
  }
  return {};
}
