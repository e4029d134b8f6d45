// Per-kind write rules (kube's RESTCreateStrategy / RESTUpdateStrategy /
// RESTDeleteStrategy): how names are validated, whether generation is
// tracked, what status a new object starts with, how deletion behaves.
import type { FieldError } from '../../shared/api/errors.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { NameRule } from './names.ts';
import { kindRules, patchServiceAllocatedValues, prepareDaemonSetUpdate, prepareJobCreate } from './kinds/index.ts';
import { prepareCSRCreate } from './kinds/certificates.ts';

function chain(a?: (obj: any) => void, b?: (obj: any) => void): ((obj: any) => void) | undefined {
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
  initialStatus?: (obj: any) => unknown;
  /** Kind-specific defaults, applied on create and update. */
  defaults?: (obj: any) => void;
  /** Kind-specific validation; `old` is set on update. */
  validate?: (obj: any, old?: any) => FieldError[];
  /** Create-only preparation that needs the new uid (a Job's generated selector). */
  prepareCreate?: (obj: any, uid: string) => void;
  /** Update-only preparation before validation (keep allocated values, bump template generations). */
  prepareUpdate?: (obj: any, old: any) => void;
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
    defaults: (ns) => {
      ns.spec ??= {};
      ns.spec.finalizers ??= ['kubernetes'];
      // As kube's SetDefaults_Namespace: only a named Namespace gets the label (a create generates the name first).
      if (ns.metadata.name) ns.metadata.labels = { ...ns.metadata.labels, 'kubernetes.io/metadata.name': ns.metadata.name };
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
    prepareUpdate: patchServiceAllocatedValues,
  },
  '/endpoints': { allowCreateOnUpdate: true },
  '/events': { allowCreateOnUpdate: true },
  'events.k8s.io/events': { allowCreateOnUpdate: true },
  'apps/deployments': workload,
  'apps/replicasets': workload,
  'apps/daemonsets': { ...workload, prepareUpdate: prepareDaemonSetUpdate },
  'apps/statefulsets': { ...workload, nameRule: 'label' },
  'batch/jobs': { ...workload, prepareCreate: prepareJobCreate },
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
    prepareCreate: prepareCSRCreate,
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
    s = { ...base, ...own, defaults: chain(own.defaults, rule.defaults), validate: rule.validate as Strategy['validate'] };
    cache.set(rt, s);
  }
  return s;
}
