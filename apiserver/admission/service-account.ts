// kube's ServiceAccount admission for Pods: spec.serviceAccountName defaults
// to "default", the ServiceAccount must exist, its imagePullSecrets are
// copied to a Pod that names none, and (unless the Pod or the ServiceAccount
// turns automountServiceAccountToken off) a projected kube-api-access-XXXXX
// volume with a bound token, the cluster CA and the namespace is mounted at
// /var/run/secrets/kubernetes.io/serviceaccount in every container.
//
// It reads ServiceAccounts through a view: the store on the main thread, a
// snapshot sent with the request on a create worker, so the common Pod
// create still runs off the main thread.
import type { Container, Pod, ServiceAccount, Volume } from 'kubernetes-types/core/v1.js';
import { randomInt } from 'node:crypto';
import type { AdmissionPlugin } from './types.ts';
import { admissionForbidden, isCore } from './common.ts';

/** Where the token volume is mounted (kube's DefaultAPITokenMountPath). */
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** The prefix of the token volume's name (kube's ServiceAccountVolumeName). */
export const TOKEN_VOLUME_PREFIX = 'kube-api-access-';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** utilrand.String's alphabet: no vowels, no look-alikes. */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** How the plugin finds a ServiceAccount; undefined when there is none. */
export interface ServiceAccountView {
  get(namespace: string, name: string): ServiceAccount | undefined;
}

/** A view over ServiceAccount JSON texts (what a create worker receives). */
export function serviceAccountSnapshot(texts: string[]): ServiceAccountView {
  const byKey = new Map<string, ServiceAccount>();
  for (const t of texts) {
    const sa = JSON.parse(t) as ServiceAccount;
    byKey.set(`${sa.metadata?.namespace}/${sa.metadata?.name}`, sa);
  }
  return { get: (ns, name) => byKey.get(`${ns}/${name}`) };
}

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/** The projected volume kube's admission adds (kube's TokenVolumeSource). */
export function tokenVolume(name: string): Volume {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

function shouldAutomount(sa: ServiceAccount | undefined, pod: Pod): boolean {
  const fromPod = pod.spec?.automountServiceAccountToken;
  if (fromPod !== undefined && fromPod !== null) return fromPod;
  const fromSa = sa?.automountServiceAccountToken;
  if (fromSa !== undefined && fromSa !== null) return fromSa;
  return true;
}

/** Mounts the token volume into every container that has nothing at the mount path; true when it changed the Pod. */
function mountToken(pod: Pod, suffix: () => string): boolean {
  const spec = pod.spec!;
  const existing = (spec.volumes ?? []).find((v) => v.name.startsWith(TOKEN_VOLUME_PREFIX));
  const volumeName = existing?.name ?? TOKEN_VOLUME_PREFIX + suffix();
  let needed = false;
  const mount = (c: Container) => {
    if (c.volumeMounts?.some((m) => m.mountPath === TOKEN_MOUNT_PATH)) return;
    (c.volumeMounts ??= []).push({ name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH });
    needed = true;
  };
  for (const c of spec.initContainers ?? []) mount(c);
  for (const c of spec.containers ?? []) mount(c);
  if (needed && !existing) (spec.volumes ??= []).push(tokenVolume(volumeName));
  return needed;
}

/** The ServiceAccount plugin; `suffix` makes the token volume's name (random, as kube's). */
export function serviceAccountAdmission(view: ServiceAccountView, suffix: () => string = randomSuffix): AdmissionPlugin {
  return {
    name: 'ServiceAccount',
    appliesTo: (rt) => isCore(rt, 'pods'),
    admit(op, rt, obj) {
      if (op !== 'CREATE' || !isCore(rt, 'pods')) return;
      const pod = obj as Pod;
      if (!pod.spec) return;
      // Mirror pods come from a kubelet's manifests: left as they are.
      if (pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return;
      const name = (pod.spec.serviceAccountName ||= pod.spec.serviceAccount || 'default');
      pod.spec.serviceAccount = name;
      const namespace = pod.metadata?.namespace ?? '';
      const sa = view.get(namespace, name);
      // kube waits up to about a second for "default", which the ServiceAccount controller creates
      // with the namespace; ksim's admission cannot wait, so a missing "default" is taken as a plain one.
      if (!sa && name !== 'default') {
        throw admissionForbidden(
          rt,
          pod.metadata?.name ?? '',
          `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`,
        );
      }
      let changed = false;
      if (shouldAutomount(sa, pod)) changed = mountToken(pod, suffix);
      if (!pod.spec.imagePullSecrets?.length && sa?.imagePullSecrets?.length) {
        pod.spec.imagePullSecrets = sa.imagePullSecrets.map((s) => ({ name: s.name }));
        changed = true;
      }
      return changed;
    },
  };
}
