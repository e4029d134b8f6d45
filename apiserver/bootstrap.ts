// Objects every cluster has from its first start: the four system
// namespaces, the system PriorityClasses, and the `kubernetes` Service in
// `default` with its Endpoints pointing at this apiserver. Written through
// the store like any other object, only when missing (or, for the
// Endpoints, when the apiserver's port changed), so a restart changes nothing.
import { findResource } from '../shared/api/resources.ts';
import { objectKey } from './registry/keys.ts';
import { prepareCreate } from './registry/lifecycle.ts';
import { SYSTEM_PRIORITY_CLASSES } from './admission/pod-defaults.ts';
import type { Store } from './storage/store.ts';
import type { StoredObject } from './storage/types.ts';

/** The namespaces kube-apiserver creates itself. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** The first address of the service CIDR, which the `kubernetes` Service always gets. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';

interface BootstrapContext {
  store: Store;
  now: () => Date;
  newUid: () => string;
}

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
  await ctx.store.txn(key, (existing) => {
    if (!existing) return obj;
    if (!replaceIf?.(existing as T)) return undefined;
    return { ...obj, metadata: { ...existing.metadata } };
  });
}

/** Creates whatever bootstrap object is missing; `port` is where this apiserver serves. */
export async function ensureBootstrapObjects(ctx: BootstrapContext, port: number): Promise<void> {
  for (const name of SYSTEM_NAMESPACES) {
    await ensure(ctx, '', 'namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  for (const [name, value] of Object.entries(SYSTEM_PRIORITY_CLASSES)) {
    await ensure(ctx, 'scheduling.k8s.io', 'priorityclasses', '', {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name },
      value,
      preemptionPolicy: 'PreemptLowerPriority',
      description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
    });
  }
  await ensure(
    ctx,
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
  await ensure(
    ctx,
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
}
