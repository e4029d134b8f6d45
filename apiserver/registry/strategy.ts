// Per-kind write rules (kube's RESTCreateStrategy / RESTUpdateStrategy /
// RESTDeleteStrategy): how names are validated, whether generation is
// tracked, what status a new object starts with, how deletion behaves.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { Namespace, Service } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { kindRules, patchServiceAllocatedValues, prepareDaemonSetUpdate, prepareJobCreate } from './kinds/index.ts';
import { prepareCSRCreate } from './kinds/certificates.ts';
import { extensionStrategy } from '../crd/crd-strategy.ts';
import type { Hook, Strategy } from './strategy-types.ts';

export type { Strategy } from './strategy-types.ts';

function chain(a?: Hook, b?: Hook): Hook | undefined {
  if (!a || !b) return a ?? b;
  return (obj) => {
    a(obj);
    b(obj);
  };
}

const base: Strategy = {
  nameRule: 'subdomain',
  tracksGeneration: false,
  allowCreateOnUpdate: false,
  returnDeletedObject: false,
};

const workload: Partial<Strategy> = { tracksGeneration: true, initialStatus: () => ({}) };

const overrides: Record<string, Partial<Strategy>> = {
  '/namespaces': {
    nameRule: 'label',
    returnDeletedObject: true,
    initialStatus: () => ({ phase: 'Active' }),
    defaults: (obj) => {
      const ns = obj as Namespace;
      ns.spec ??= {};
      ns.spec.finalizers ??= ['kubernetes'];
      // As kube's SetDefaults_Namespace: only a named Namespace gets the label (a create generates the name first).
      const meta = obj.metadata;
      if (meta.name) meta.labels = { ...meta.labels, 'kubernetes.io/metadata.name': meta.name };
    },
  },
  '/pods': {
    tracksGeneration: true,
    returnDeletedObject: true,
    initialStatus: () => ({ phase: 'Pending' }),
  },
  '/services': {
    nameRule: 'dns1035',
    returnDeletedObject: true,
    initialStatus: () => ({ loadBalancer: {} }),
    prepareUpdate: (next, old) => patchServiceAllocatedValues(next as Service, old as Service),
  },
  '/endpoints': { allowCreateOnUpdate: true },
  '/events': { allowCreateOnUpdate: true },
  'events.k8s.io/events': { allowCreateOnUpdate: true },
  'apps/deployments': workload,
  'apps/replicasets': workload,
  '/replicationcontrollers': workload,
  'apps/daemonsets': { ...workload, prepareUpdate: (next, old) => prepareDaemonSetUpdate(next as DaemonSet, old as DaemonSet) },
  'apps/statefulsets': { ...workload, nameRule: 'label' },
  'batch/jobs': { ...workload, prepareCreate: (job, uid) => prepareJobCreate(job as Job, uid) },
  'batch/cronjobs': workload,
  'autoscaling/horizontalpodautoscalers': { tracksGeneration: true, initialStatus: () => ({ desiredReplicas: 0 }) },
  'policy/poddisruptionbudgets': workload,
  // kube names these by path segment (the core group's APIService is "v1.").
  'apiregistration.k8s.io/apiservices': { nameRule: 'path-segment' },
  'flowcontrol.apiserver.k8s.io/flowschemas': { nameRule: 'path-segment', tracksGeneration: true },
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': { nameRule: 'path-segment', tracksGeneration: true },
  'rbac.authorization.k8s.io/roles': { nameRule: 'path-segment' },
  'rbac.authorization.k8s.io/rolebindings': { nameRule: 'path-segment' },
  'rbac.authorization.k8s.io/clusterroles': { nameRule: 'path-segment' },
  'rbac.authorization.k8s.io/clusterrolebindings': { nameRule: 'path-segment' },
  // The requestor is the server's to say; a CSR's spec is immutable: an
  // update of the object keeps the stored one (kube's csrStrategy).
  'certificates.k8s.io/certificatesigningrequests': {
    nameRule: 'path-segment',
    initialStatus: () => ({}),
    prepareCreate: (csr, _uid, requestor) => prepareCSRCreate(csr as CertificateSigningRequest, requestor),
    prepareUpdate: (csr, old) => (csr.spec = old.spec),
  },
  '/resourcequotas': { initialStatus: () => ({}) },
  'admissionregistration.k8s.io/validatingadmissionpolicies': { tracksGeneration: true, initialStatus: () => ({}) },
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': { tracksGeneration: true },
  '/persistentvolumes': { initialStatus: () => ({ phase: 'Pending' }) },
  '/persistentvolumeclaims': { initialStatus: () => ({ phase: 'Pending' }) },
  'networking.k8s.io/networkpolicies': { tracksGeneration: true },
  'networking.k8s.io/ingresses': { tracksGeneration: true, initialStatus: () => ({ loadBalancer: {} }) },
};

const cache = new Map<ResourceType, Strategy>();

/** The write rules for `rt`. */
export function strategyFor(rt: ResourceType): Strategy {
  // CRDs and custom resources (apiserver/crd/): a custom resource's rules follow its CRD, so they are not cached here.
  const extension = extensionStrategy(rt);
  if (extension) return extension;
  let s = cache.get(rt);
  if (!s) {
    const key = `${rt.group}/${rt.plural}`;
    const own = overrides[key] ?? {};
    const rule = kindRules[key] ?? {};
    s = { ...base, ...own, defaults: chain(own.defaults, rule.defaults), validate: rule.validate };
    cache.set(rt, s);
  }
  return s;
}
