// Per-kind write rules (kube's RESTCreateStrategy / RESTUpdateStrategy /
// RESTDeleteStrategy): how names are validated, whether generation is
// tracked, what status a new object starts with, how deletion behaves.
import type { UserInfo } from '../auth/user-info.ts';
import type { FieldError } from '../../shared/api/errors.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { NameRule } from './names.ts';
import type { KubeObject } from './object.ts';
import type { Namespace, Service } from 'kubernetes-types/core/v1.js';
import type { DaemonSet } from 'kubernetes-types/apps/v1.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { kindRules, patchServiceAllocatedValues, prepareDaemonSetUpdate, prepareJobCreate } from './kinds/index.ts';
import { prepareCSRCreate } from './kinds/certificates.ts';

type Hook = (obj: KubeObject) => void;

function chain(a?: Hook, b?: Hook): Hook | undefined {
  if (!a || !b) return a ?? b;
  return (obj) => {
    a(obj);
    b(obj);
  };
}

/** The write rules of one kind. */
export interface Strategy {
  nameRule: NameRule;
  /** metadata.generation starts at 1 and moves when spec changes. */
  tracksGeneration: boolean;
  /** PUT of a missing object creates it. */
  allowCreateOnUpdate: boolean;
  /** DELETE answers with the object instead of a Success Status. */
  returnDeletedObject: boolean;
  /** The status a newly created object starts with (the client's status is dropped). */
  initialStatus?: (obj: KubeObject) => unknown;
  /** Kind-specific defaults, applied on create and update. */
  defaults?: Hook;
  /** Kind-specific validation; `old` is set on update. */
  validate?: (obj: KubeObject, old?: KubeObject) => FieldError[];
  /** Create-only preparation that needs the new uid (a Job's generated selector). */
  prepareCreate?: (obj: KubeObject, uid: string, requestor?: UserInfo) => void;
  /** Update-only preparation before validation (keep allocated values, bump template generations). */
  prepareUpdate?: (obj: KubeObject, old: KubeObject) => void;
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
  'apps/daemonsets': { ...workload, prepareUpdate: (next, old) => prepareDaemonSetUpdate(next as DaemonSet, old as DaemonSet) },
  'apps/statefulsets': { ...workload, nameRule: 'label' },
  'batch/jobs': { ...workload, prepareCreate: (job, uid) => prepareJobCreate(job as Job, uid) },
  'batch/cronjobs': workload,
  'policy/poddisruptionbudgets': workload,
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
};

const cache = new Map<ResourceType, Strategy>();

/** The write rules for `rt`. */
export function strategyFor(rt: ResourceType): Strategy {
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
