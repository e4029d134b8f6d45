// The resource table: one row per served kind. Storage keys, routing,
// discovery, short names, categories and field selectors all come from here.
import { valueAt } from './object.ts';
import { STANDARD_VERBS, type FieldGetter, type ResourceType, type Subresource } from './resource-type.ts';

interface Row {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  subresources?: Subresource[];
  selectableFields?: Record<string, FieldGetter>;
  verbs?: string[];
  /** Another resource's storage, when this is a second API for its objects. */
  storedAs?: { group: string; plural: string };
}

function row(r: Row): ResourceType {
  return {
    group: r.group,
    version: r.version,
    kind: r.kind,
    listKind: `${r.kind}List`,
    plural: r.plural,
    singular: r.kind.toLowerCase(),
    namespaced: r.namespaced,
    shortNames: r.shortNames ?? [],
    categories: r.categories ?? [],
    subresources: r.subresources ?? [],
    selectableFields: r.selectableFields ?? {},
    storagePrefix: r.storedAs
      ? `/registry/${r.storedAs.group || 'core'}/${r.storedAs.plural}`
      : `/registry/${r.group || 'core'}/${r.plural}`,
    verbs: r.verbs ?? STANDARD_VERBS,
  };
}

// Selectable fields are typed scalars (the apiserver rejects anything else on decode); JSON only for the impossible rest.
const str = (v: unknown): string | undefined => {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
};

const podFields: Record<string, FieldGetter> = {
  'spec.nodeName': (o) => str(valueAt(o, 'spec', 'nodeName')),
  'spec.restartPolicy': (o) => str(valueAt(o, 'spec', 'restartPolicy')),
  'spec.schedulerName': (o) => str(valueAt(o, 'spec', 'schedulerName')),
  'spec.serviceAccountName': (o) => str(valueAt(o, 'spec', 'serviceAccountName')),
  'spec.hostNetwork': (o) => String(valueAt(o, 'spec', 'hostNetwork') === true),
  'status.phase': (o) => str(valueAt(o, 'status', 'phase')),
  'status.podIP': (o) => str(valueAt(o, 'status', 'podIP')),
  'status.nominatedNodeName': (o) => str(valueAt(o, 'status', 'nominatedNodeName')),
};

const coreEventFields: Record<string, FieldGetter> = {
  'involvedObject.kind': (o) => str(valueAt(o, 'involvedObject', 'kind')),
  'involvedObject.namespace': (o) => str(valueAt(o, 'involvedObject', 'namespace')),
  'involvedObject.name': (o) => str(valueAt(o, 'involvedObject', 'name')),
  'involvedObject.uid': (o) => str(valueAt(o, 'involvedObject', 'uid')),
  'involvedObject.apiVersion': (o) => str(valueAt(o, 'involvedObject', 'apiVersion')),
  'involvedObject.resourceVersion': (o) => str(valueAt(o, 'involvedObject', 'resourceVersion')),
  'involvedObject.fieldPath': (o) => str(valueAt(o, 'involvedObject', 'fieldPath')),
  reason: (o) => str(valueAt(o, 'reason')),
  reportingComponent: (o) => str(valueAt(o, 'reportingComponent')),
  source: (o) => str(valueAt(o, 'source', 'component')),
  type: (o) => str(valueAt(o, 'type')),
};

const eventsV1Fields: Record<string, FieldGetter> = {
  'regarding.kind': (o) => str(valueAt(o, 'regarding', 'kind')),
  'regarding.namespace': (o) => str(valueAt(o, 'regarding', 'namespace')),
  'regarding.name': (o) => str(valueAt(o, 'regarding', 'name')),
  'regarding.uid': (o) => str(valueAt(o, 'regarding', 'uid')),
  'regarding.apiVersion': (o) => str(valueAt(o, 'regarding', 'apiVersion')),
  'regarding.resourceVersion': (o) => str(valueAt(o, 'regarding', 'resourceVersion')),
  'regarding.fieldPath': (o) => str(valueAt(o, 'regarding', 'fieldPath')),
  reason: (o) => str(valueAt(o, 'reason')),
  reportingController: (o) => str(valueAt(o, 'reportingController')),
  type: (o) => str(valueAt(o, 'type')),
};

/** Every resource the apiserver serves, in discovery order. */
export const RESOURCES: readonly ResourceType[] = [
  row({
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    shortNames: ['ns'],
    subresources: ['status'],
    selectableFields: { 'status.phase': (o) => str(valueAt(o, 'status', 'phase')) },
  }),
  row({
    group: '',
    version: 'v1',
    kind: 'Pod',
    plural: 'pods',
    namespaced: true,
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status', 'binding', 'eviction', 'log', 'exec', 'attach', 'portforward', 'proxy', 'ephemeralcontainers'],
    selectableFields: podFields,
  }),
  row({
    group: '',
    version: 'v1',
    kind: 'Node',
    plural: 'nodes',
    namespaced: false,
    shortNames: ['no'],
    subresources: ['status', 'proxy'],
    selectableFields: { 'spec.unschedulable': (o) => String(valueAt(o, 'spec', 'unschedulable') === true) },
  }),
  row({
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    namespaced: true,
    shortNames: ['svc'],
    categories: ['all'],
    subresources: ['status', 'proxy'],
    selectableFields: {
      'spec.clusterIP': (o) => str(valueAt(o, 'spec', 'clusterIP')),
      'spec.type': (o) => str(valueAt(o, 'spec', 'type')),
    },
  }),
  row({ group: '', version: 'v1', kind: 'Endpoints', plural: 'endpoints', namespaced: true, shortNames: ['ep'] }),
  row({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, shortNames: ['cm'] }),
  row({
    group: '',
    version: 'v1',
    kind: 'Secret',
    plural: 'secrets',
    namespaced: true,
    selectableFields: { type: (o) => str(valueAt(o, 'type')) },
  }),
  row({
    group: '',
    version: 'v1',
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    namespaced: true,
    shortNames: ['sa'],
    subresources: ['token'],
  }),
  row({
    group: '',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    selectableFields: coreEventFields,
  }),
  row({
    group: '',
    version: 'v1',
    kind: 'ResourceQuota',
    plural: 'resourcequotas',
    namespaced: true,
    shortNames: ['quota'],
    subresources: ['status'],
  }),
  row({ group: '', version: 'v1', kind: 'LimitRange', plural: 'limitranges', namespaced: true, shortNames: ['limits'] }),
  row({
    group: '',
    version: 'v1',
    kind: 'PersistentVolume',
    plural: 'persistentvolumes',
    namespaced: false,
    shortNames: ['pv'],
    subresources: ['status'],
  }),
  row({
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    namespaced: true,
    shortNames: ['pvc'],
    subresources: ['status'],
  }),
  row({
    group: '',
    version: 'v1',
    kind: 'ReplicationController',
    plural: 'replicationcontrollers',
    namespaced: true,
    shortNames: ['rc'],
    categories: ['all'],
    subresources: ['status', 'scale'],
    selectableFields: { 'status.replicas': (o) => str(valueAt(o, 'status', 'replicas') ?? 0) },
  }),
  row({
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  row({
    group: 'apps',
    version: 'v1',
    kind: 'ReplicaSet',
    plural: 'replicasets',
    namespaced: true,
    shortNames: ['rs'],
    categories: ['all'],
    subresources: ['status', 'scale'],
    selectableFields: { 'status.replicas': (o) => str(valueAt(o, 'status', 'replicas') ?? 0) },
  }),
  row({
    group: 'apps',
    version: 'v1',
    kind: 'DaemonSet',
    plural: 'daemonsets',
    namespaced: true,
    shortNames: ['ds'],
    categories: ['all'],
    subresources: ['status'],
  }),
  row({
    group: 'apps',
    version: 'v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    namespaced: true,
    shortNames: ['sts'],
    categories: ['all'],
    subresources: ['status', 'scale'],
  }),
  // v2 is the storage version; v1 serves the same objects converted (apiserver/registry/kinds/hpa-conversion.ts).
  row({
    group: 'autoscaling',
    version: 'v2',
    kind: 'HorizontalPodAutoscaler',
    plural: 'horizontalpodautoscalers',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ['all'],
    subresources: ['status'],
  }),
  row({
    group: 'autoscaling',
    version: 'v1',
    kind: 'HorizontalPodAutoscaler',
    plural: 'horizontalpodautoscalers',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ['all'],
    subresources: ['status'],
    storedAs: { group: 'autoscaling', plural: 'horizontalpodautoscalers' },
  }),
  row({
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    plural: 'jobs',
    namespaced: true,
    categories: ['all'],
    subresources: ['status'],
    selectableFields: { 'status.successful': (o) => str(valueAt(o, 'status', 'succeeded') ?? 0) },
  }),
  row({
    group: 'batch',
    version: 'v1',
    kind: 'CronJob',
    plural: 'cronjobs',
    namespaced: true,
    shortNames: ['cj'],
    categories: ['all'],
    subresources: ['status'],
  }),
  row({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true }),
  // One storage with core/v1 Events, as in kube: the same objects through a second API.
  row({
    group: 'events.k8s.io',
    version: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    shortNames: ['ev'],
    selectableFields: eventsV1Fields,
    storedAs: { group: '', plural: 'events' },
  }),
  row({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', plural: 'roles', namespaced: true }),
  row({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', plural: 'rolebindings', namespaced: true }),
  row({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', plural: 'clusterroles', namespaced: false }),
  row({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false }),
  row({
    group: 'certificates.k8s.io',
    version: 'v1',
    kind: 'CertificateSigningRequest',
    plural: 'certificatesigningrequests',
    namespaced: false,
    shortNames: ['csr'],
    subresources: ['status', 'approval'],
    selectableFields: { 'spec.signerName': (o) => str(valueAt(o, 'spec', 'signerName')) },
  }),
  row({ group: 'apps', version: 'v1', kind: 'ControllerRevision', plural: 'controllerrevisions', namespaced: true }),
  row({
    group: 'discovery.k8s.io',
    version: 'v1',
    kind: 'EndpointSlice',
    plural: 'endpointslices',
    namespaced: true,
    selectableFields: {},
  }),
  row({
    group: 'scheduling.k8s.io',
    version: 'v1',
    kind: 'PriorityClass',
    plural: 'priorityclasses',
    namespaced: false,
    shortNames: ['pc'],
  }),
  row({
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectReview',
    plural: 'selfsubjectreviews',
    namespaced: false,
    verbs: ['create'],
  }),
  row({
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'TokenReview',
    plural: 'tokenreviews',
    namespaced: false,
    verbs: ['create'],
  }),
  row({
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SubjectAccessReview',
    plural: 'subjectaccessreviews',
    namespaced: false,
    verbs: ['create'],
  }),
  row({
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'LocalSubjectAccessReview',
    plural: 'localsubjectaccessreviews',
    namespaced: true,
    verbs: ['create'],
  }),
  row({
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectAccessReview',
    plural: 'selfsubjectaccessreviews',
    namespaced: false,
    verbs: ['create'],
  }),
  row({
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectRulesReview',
    plural: 'selfsubjectrulesreviews',
    namespaced: false,
    verbs: ['create'],
  }),
  row({ group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', plural: 'storageclasses', namespaced: false, shortNames: ['sc'] }),
  row({
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'NetworkPolicy',
    plural: 'networkpolicies',
    namespaced: true,
    shortNames: ['netpol'],
  }),
  row({
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'Ingress',
    plural: 'ingresses',
    namespaced: true,
    shortNames: ['ing'],
    subresources: ['status'],
  }),
  row({ group: 'networking.k8s.io', version: 'v1', kind: 'IngressClass', plural: 'ingressclasses', namespaced: false }),
  row({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingAdmissionPolicy',
    plural: 'validatingadmissionpolicies',
    namespaced: false,
    subresources: ['status'],
  }),
  row({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    plural: 'validatingadmissionpolicybindings',
    namespaced: false,
  }),
  // Kinds kubectl, helm and cluster-info dump list (apiserver/registry/kinds/tool-kinds.ts, bootstrap-flowcontrol.ts).
  row({ group: '', version: 'v1', kind: 'PodTemplate', plural: 'podtemplates', namespaced: true }),
  row({
    group: '',
    version: 'v1',
    kind: 'ComponentStatus',
    plural: 'componentstatuses',
    namespaced: false,
    shortNames: ['cs'],
    verbs: ['get', 'list'],
  }),
  row({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'ValidatingWebhookConfiguration',
    plural: 'validatingwebhookconfigurations',
    namespaced: false,
    categories: ['api-extensions'],
  }),
  row({
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    kind: 'MutatingWebhookConfiguration',
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
    categories: ['api-extensions'],
  }),
  row({
    group: 'apiregistration.k8s.io',
    version: 'v1',
    kind: 'APIService',
    plural: 'apiservices',
    namespaced: false,
    categories: ['api-extensions'],
    subresources: ['status'],
  }),
  row({
    group: 'flowcontrol.apiserver.k8s.io',
    version: 'v1',
    kind: 'FlowSchema',
    plural: 'flowschemas',
    namespaced: false,
    subresources: ['status'],
  }),
  row({
    group: 'flowcontrol.apiserver.k8s.io',
    version: 'v1',
    kind: 'PriorityLevelConfiguration',
    plural: 'prioritylevelconfigurations',
    namespaced: false,
    subresources: ['status'],
  }),
  row({ group: 'node.k8s.io', version: 'v1', kind: 'RuntimeClass', plural: 'runtimeclasses', namespaced: false }),
  row({ group: 'storage.k8s.io', version: 'v1', kind: 'CSIDriver', plural: 'csidrivers', namespaced: false }),
  row({ group: 'storage.k8s.io', version: 'v1', kind: 'CSINode', plural: 'csinodes', namespaced: false }),
  row({ group: 'storage.k8s.io', version: 'v1', kind: 'CSIStorageCapacity', plural: 'csistoragecapacities', namespaced: true }),
  row({
    group: 'storage.k8s.io',
    version: 'v1',
    kind: 'VolumeAttachment',
    plural: 'volumeattachments',
    namespaced: false,
    subresources: ['status'],
  }),
  row({
    group: 'storage.k8s.io',
    version: 'v1',
    kind: 'VolumeAttributesClass',
    plural: 'volumeattributesclasses',
    namespaced: false,
    shortNames: ['vac'],
  }),
  row({ group: 'networking.k8s.io', version: 'v1', kind: 'IPAddress', plural: 'ipaddresses', namespaced: false, shortNames: ['ip'] }),
  row({
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'ServiceCIDR',
    plural: 'servicecidrs',
    namespaced: false,
    subresources: ['status'],
  }),
  row({ group: 'resource.k8s.io', version: 'v1', kind: 'DeviceClass', plural: 'deviceclasses', namespaced: false }),
  row({
    group: 'resource.k8s.io',
    version: 'v1',
    kind: 'ResourceClaim',
    plural: 'resourceclaims',
    namespaced: true,
    subresources: ['status'],
  }),
  row({ group: 'resource.k8s.io', version: 'v1', kind: 'ResourceClaimTemplate', plural: 'resourceclaimtemplates', namespaced: true }),
  row({ group: 'resource.k8s.io', version: 'v1', kind: 'ResourceSlice', plural: 'resourceslices', namespaced: false }),
  row({
    group: 'policy',
    version: 'v1',
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    namespaced: true,
    shortNames: ['pdb'],
    subresources: ['status'],
  }),
  row({
    group: 'apiextensions.k8s.io',
    version: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: ['status'],
  }),
];

/**
 * Resources defined by API objects rather than by this table: the custom
 * resources of Established CustomResourceDefinitions, set by the
 * apiserver's CRD controller (apiserver/crd/) as they come and go. Every
 * lookup below sees them after the table's rows.
 */
let dynamicResources: readonly ResourceType[] = [];
let dynamicByPath = new Map<string, ResourceType>();
let dynamicGeneration = 0;

/** Replaces the dynamic resources (the served versions of every Established CRD). */
export function setDynamicResources(rts: readonly ResourceType[]): void {
  dynamicResources = rts;
  dynamicByPath = new Map(rts.map((rt) => [`${rt.group}/${rt.version}/${rt.plural}`, rt]));
  dynamicGeneration++;
}

/** A number that changes whenever the dynamic resources do (for caches of derived documents). */
export function dynamicResourcesGeneration(): number {
  return dynamicGeneration;
}

/** The table's resources, then the dynamic ones: what the apiserver serves now. */
export function allResources(): readonly ResourceType[] {
  return dynamicResources.length === 0 ? RESOURCES : [...RESOURCES, ...dynamicResources];
}

/** Whether `rt` is a dynamic (custom) resource. */
export function isDynamicResource(rt: Pick<ResourceType, 'group' | 'version' | 'plural'>): boolean {
  return dynamicByPath.get(`${rt.group}/${rt.version}/${rt.plural}`) !== undefined && !byPath.has(`${rt.group}/${rt.version}/${rt.plural}`);
}

/** The API groups in discovery order, each with its versions. */
export function apiGroups(): { group: string; versions: string[] }[] {
  const groups = new Map<string, Set<string>>();
  for (const rt of allResources()) {
    if (!groups.has(rt.group)) groups.set(rt.group, new Set());
    groups.get(rt.group)!.add(rt.version);
  }
  return [...groups].map(([group, versions]) => ({ group, versions: [...versions] }));
}

const byPath = new Map<string, ResourceType>(RESOURCES.map((rt) => [`${rt.group}/${rt.version}/${rt.plural}`, rt]));

/** Looks a resource up by group, version and plural name. */
export function findResource(group: string, version: string, plural: string): ResourceType | undefined {
  const key = `${group}/${version}/${plural}`;
  return byPath.get(key) ?? dynamicByPath.get(key);
}

/** Looks a resource up by group and kind (any served version). */
export function findResourceByKind(group: string, kind: string): ResourceType | undefined {
  return (
    RESOURCES.find((rt) => rt.group === group && rt.kind === kind) ?? dynamicResources.find((rt) => rt.group === group && rt.kind === kind)
  );
}
