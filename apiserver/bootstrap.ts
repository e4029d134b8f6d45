// Objects every cluster has from its first start: the four system
// namespaces, the system PriorityClasses, and the `kubernetes` Service in
// `default` with its Endpoints pointing at this apiserver. Written through
// the store like any other object, only when missing (or, for the
// Endpoints, when the apiserver's port changed), so a restart changes nothing.
import { findResource } from '../shared/api/resources.ts';
import { objectKey } from './registry/keys.ts';
import { prepareCreate } from './registry/lifecycle.ts';
import { SYSTEM_PRIORITY_CLASSES } from './admission/pod-defaults.ts';
import { ensureAddons } from './bootstrap-addons.ts';
import { ensureFlowControlAndAPIServices } from './bootstrap-flowcontrol.ts';
import type { Store } from './storage/store.ts';
import type { StoredObject } from './storage/types.ts';
import { apiserverWrite } from './handlers/write-record.ts';

const BOOTSTRAP_WRITER = apiserverWrite('bootstrap', 'update');

/** The namespaces kube-apiserver creates itself. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** The first address of the service CIDR, which the `kubernetes` Service always gets. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';

interface BootstrapContext {
  store: Store;
  now: () => Date;
  newUid: () => string;
}

/** `ensure` with its context bound: what the addon and flow-control bootstraps are given. */
type EnsureFn = <T extends StoredObject & { apiVersion: string }>(
  group: string,
  plural: string,
  namespace: string,
  obj: T,
  replaceIf?: (cur: T) => boolean,
) => Promise<void>;

/** Stores `obj` unless an object of its name is there already and `replaceIf` (which reads it as `obj`'s kind) says to keep it. */
async function ensure<T extends StoredObject & { apiVersion: string }>(
  ctx: BootstrapContext,
  group: string,
  plural: string,
  namespace: string,
  obj: T,
  replaceIf?: (cur: T) => boolean,
): Promise<void> {
  const rt = findResource(group, group === '' ? 'v1' : obj.apiVersion.split('/')[1], plural)!;
  const key = objectKey(rt, namespace, obj.metadata.name!);
  const cur = ctx.store.get(key);
  if (cur && !replaceIf?.(JSON.parse(cur.json) as T)) return;
  if (namespace) obj.metadata.namespace = namespace;
  prepareCreate(rt, obj, ctx.now(), ctx.newUid());
  await ctx.store.txn(
    key,
    (existing) => {
      if (!existing) return obj;
      if (!replaceIf?.(existing as T)) return undefined;
      return { ...obj, metadata: { ...existing.metadata } };
    },
    { writer: BOOTSTRAP_WRITER },
  );
}

/**
 * Creates whatever bootstrap object is missing; `port` is where this apiserver
 * serves. Every write is issued at once (the store sequences them in call
 * order) and they are awaited together, so that the store commits them in one
 * synced batch: some forty fsyncs one after another were 0.1 s of a first start.
 */
export async function ensureBootstrapObjects(ctx: BootstrapContext, port: number): Promise<void> {
  const writes: Promise<void>[] = [];
  const write: EnsureFn = (group, plural, namespace, obj, replaceIf) => {
    const w = ensure(ctx, group, plural, namespace, obj, replaceIf);
    // Awaited with the others below; a failure meanwhile must not count as unhandled.
    w.catch(() => undefined);
    writes.push(w);
    return Promise.resolve();
  };
  for (const name of SYSTEM_NAMESPACES) {
    void write('', 'namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  for (const [name, value] of Object.entries(SYSTEM_PRIORITY_CLASSES)) {
    void write('scheduling.k8s.io', 'priorityclasses', '', {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name },
      value,
      preemptionPolicy: 'PreemptLowerPriority',
      description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
    });
  }
  // As kind clusters have it: local-path volumes on the node of the first consumer.
  void write('storage.k8s.io', 'storageclasses', '', {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'rancher.io/local-path',
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
  });
  // ksim's ingress-nginx (kubelet-sim/ingress/), as ingress-nginx's manifests install its class: the default one.
  void write('networking.k8s.io', 'ingressclasses', '', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: {
      name: 'nginx',
      labels: { 'app.kubernetes.io/name': 'ingress-nginx', 'app.kubernetes.io/component': 'controller' },
      annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' },
    },
    spec: { controller: 'k8s.io/ingress-nginx' },
  });
  // kubeadm's addon phase: CoreDNS and the kube-dns Service.
  await ensureAddons(write);
  // kube-apiserver's own: the APF bootstrap configuration and the local APIServices.
  await ensureFlowControlAndAPIServices(write, ctx.now());
  void write(
    '',
    'services',
    'default',
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kubernetes', labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: {
        type: 'ClusterIP',
        clusterIP: KUBERNETES_SERVICE_IP,
        clusterIPs: [KUBERNETES_SERVICE_IP],
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        internalTrafficPolicy: 'Cluster',
        sessionAffinity: 'None',
        ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }],
      },
    },
    (cur) => cur.spec?.ports?.[0]?.targetPort !== port,
  );
  void write(
    '',
    'endpoints',
    'default',
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'kubernetes', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port, protocol: 'TCP' }] }],
    },
    (cur) => cur.subsets?.[0]?.ports?.[0]?.port !== port,
  );
  await Promise.all(writes);
}
