// The apiserver's admission chain, in kube-apiserver's plugin order
// (options.AllOrderedPlugins), limited to the plugins ksim has:
// NamespaceLifecycle, LimitRanger, ServiceAccount, NodeRestriction,
// PodSecurity, Priority, DefaultTolerationSeconds, then the caller's extra
// plugins (RBAC escalation checks and the like), ServiceAllocation (the
// Service registry's IP and port allocation), ValidatingAdmissionPolicy
// and ResourceQuota last (kube runs ValidatingAdmissionPolicy just before
// ResourceQuota). The webhooks are not built. The storage and ingress
// defaulting plugins (DefaultStorageClass, StorageObjectInUseProtection,
// PersistentVolumeClaimResize, DefaultIngressClass) run after the Pod ones.
import type { Authorizer } from '../auth/authorizer-types.ts';
import type { ServiceAccount, Service } from 'kubernetes-types/core/v1.js';
import type { Store } from '../storage/store.ts';
import { KUBERNETES_SERVICE_IP } from '../bootstrap.ts';
import { NamespacedObjects } from './common.ts';
import { defaultIngressClass } from './default-ingress-class.ts';
import { defaultStorageClass, persistentVolumeClaimResize, storageObjectInUseProtection } from './default-storage-class.ts';
import { certificateSubjectRestriction } from './certificate-subject-restriction.ts';
import { limitRanger } from './limit-ranger.ts';
import { namespaceLifecycle } from './namespace-lifecycle.ts';
import { nodeRestriction } from './node-restriction.ts';
import { objectAdmissionPlugins } from './pod-defaults.ts';
import { podSecurity } from './pod-security.ts';
import { storePriorityClasses } from './priority-classes.ts';
import { resourceQuota } from './resource-quota.ts';
import { DEFAULT_SERVICE_RANGES, serviceAllocation } from './service-allocation.ts';
import type { ServiceAccountView } from './service-account.ts';
import { AdmissionChain, type AdmissionPlugin } from './types.ts';
import { validatingAdmissionPolicy } from './validating-admission-policy/plugin.ts';
import type { RequestTraces } from '../request-trace/ring.ts';
import { traceOfRequest, tracedPlugin } from '../request-trace/admission.ts';

export const SERVICE_ACCOUNTS_BUCKET = '/registry/core/serviceaccounts';

/** The store's ServiceAccounts, as the ServiceAccount plugin reads them. */
export function storeServiceAccounts(store: Store): ServiceAccountView {
  const accounts = new NamespacedObjects<ServiceAccount>(store, SERVICE_ACCOUNTS_BUCKET);
  return { get: (ns, name) => accounts.list(ns).find((sa) => sa.metadata?.name === name) };
}

/** The ServiceAccounts of `namespace` as JSON texts (what a create worker is sent with a Pod). */
export function serviceAccountTexts(store: Store, namespace: string): string[] {
  const prefix = `${SERVICE_ACCOUNTS_BUCKET}/${namespace}/`;
  return store.list({ bucket: SERVICE_ACCOUNTS_BUCKET, keyPrefix: prefix }).items;
}

/** The plugins --disable-admission-plugins may name (ServiceAllocation and RBAC's escalation check are kube's registry, not admission). */
export const OPTIONAL_ADMISSION_PLUGINS = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'CertificateSubjectRestriction',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'DefaultIngressClass',
  'ValidatingAdmissionPolicy',
  'ResourceQuota',
] as const;

/** What the chain is built with besides the store. */
export interface AdmissionChainOptions {
  /** Plugins that run after the built-in mutating ones (RBAC's escalation check). */
  extra?: AdmissionPlugin[];
  /** Plugins left out (--disable-admission-plugins). */
  disabled?: ReadonlySet<string>;
  /** The apiserver's authorizer, for ValidatingAdmissionPolicy's `authorizer` variable (default: Node,RBAC over the store). */
  authorizer?: Authorizer;
  /** The request traces: each plugin's hooks add steps to a traced request's trace. */
  traces?: RequestTraces;
}

/** The chain, seeded with what the store already holds. */
export function buildAdmissionChain(store: Store, opts: AdmissionChainOptions = {}): AdmissionChain {
  const extra = opts.extra ?? [];
  const disabled = opts.disabled ?? new Set<string>();
  const services = store
    .list({ bucket: '/registry/core/services', keyPrefix: '/registry/core/services/' })
    .items.map((j) => JSON.parse(j) as Service);
  const [serviceAccount, ...podDefaults] = objectAdmissionPlugins(storePriorityClasses(store), storeServiceAccounts(store));
  const plugins = [
    namespaceLifecycle(store),
    limitRanger(store),
    serviceAccount,
    nodeRestriction,
    certificateSubjectRestriction,
    podSecurity(store),
    ...podDefaults,
    defaultStorageClass(store),
    storageObjectInUseProtection(),
    persistentVolumeClaimResize(store),
    defaultIngressClass(store),
    ...extra,
    serviceAllocation(DEFAULT_SERVICE_RANGES, [...services, { spec: { clusterIPs: [KUBERNETES_SERVICE_IP] } }]),
    validatingAdmissionPolicy(store, { authorizer: opts.authorizer }),
    resourceQuota(store),
  ];
  const enabled = plugins.filter((p) => !disabled.has(p.name));
  const traces = opts.traces;
  return new AdmissionChain(traces ? enabled.map((p) => tracedPlugin(p, traceOfRequest(traces))) : enabled);
}
