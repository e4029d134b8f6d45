// The strategic merge patch metadata of the built-in types, as data: the
// patchStrategy / patchMergeKey struct tags of k8s.io/api (core/v1, apps/v1,
// batch/v1, policy/v1) and metav1.ObjectMeta, arranged as a graph of types so
// that PodSpec's rules apply wherever a PodSpec appears (a Pod's spec, a
// workload's spec.template.spec, a CronJob's spec.jobTemplate.spec.template.spec).
// A field absent from the table has no tags: its maps merge, its lists are
// replaced whole.

/** A patchStrategy tag value. */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

/** One field's tags, and the type of the field (or of its list elements) when that type has tagged fields. */
export interface FieldSpec {
  readonly strategy?: PatchStrategy;
  readonly mergeKey?: string;
  readonly type?: string;
}

/** What the merge engine asks about one field. */
export interface MergeRule {
  readonly strategy?: PatchStrategy;
  readonly mergeKey?: string;
}

/**
 * The merge rules of one kind: given the field names from the object root to
 * a field (list elements add no name: "spec.template.spec.containers.env" is
 * ['spec','template','spec','containers','env']), the field's rule, or
 * undefined when it has none.
 */
export type MergeSchema = (path: readonly string[]) => MergeRule | undefined;

const byName = (type?: string): FieldSpec => ({ strategy: 'merge', mergeKey: 'name', ...(type ? { type } : {}) });
const byType: FieldSpec = { strategy: 'merge', mergeKey: 'type' };
const conditions = { conditions: byType };
const withMeta = (fields: Record<string, FieldSpec>): Record<string, FieldSpec> => ({ metadata: { type: 'ObjectMeta' }, ...fields });

/** Tagged fields by Go type name. Only types that lead to a tag are listed. */
export const TYPES: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>> = {
  // k8s.io/apimachinery/pkg/apis/meta/v1
  ObjectMeta: {
    ownerReferences: { strategy: 'merge', mergeKey: 'uid' },
    finalizers: { strategy: 'merge' },
  },
  // core/v1
  PodTemplateSpec: withMeta({ spec: { type: 'PodSpec' } }),
  PodSpec: {
    volumes: { strategy: 'merge,retainKeys', mergeKey: 'name' },
    initContainers: byName('Container'),
    containers: byName('Container'),
    ephemeralContainers: byName('EphemeralContainer'),
    imagePullSecrets: byName(),
    hostAliases: { strategy: 'merge', mergeKey: 'ip' },
    topologySpreadConstraints: { strategy: 'merge', mergeKey: 'topologyKey' },
    schedulingGates: byName(),
    resourceClaims: { strategy: 'merge,retainKeys', mergeKey: 'name' },
    // tolerations, readinessGates, os, affinity...: no tags (lists replaced).
  },
  Container: {
    ports: { strategy: 'merge', mergeKey: 'containerPort' },
    env: byName(),
    volumeMounts: { strategy: 'merge', mergeKey: 'mountPath' },
    volumeDevices: { strategy: 'merge', mergeKey: 'devicePath' },
  },
  // EphemeralContainerCommon, inlined into EphemeralContainer.
  EphemeralContainer: {
    ports: { strategy: 'merge', mergeKey: 'containerPort' },
    env: byName(),
    volumeMounts: { strategy: 'merge', mergeKey: 'mountPath' },
    volumeDevices: { strategy: 'merge', mergeKey: 'devicePath' },
  },
  PodStatus: {
    conditions: byType,
    hostIPs: { strategy: 'merge', mergeKey: 'ip' },
    podIPs: { strategy: 'merge', mergeKey: 'ip' },
    resourceClaimStatuses: { strategy: 'merge,retainKeys', mergeKey: 'name' },
    // containerStatuses and friends: no tags.
  },
  Pod: withMeta({ spec: { type: 'PodSpec' }, status: { type: 'PodStatus' } }),
  PodTemplate: withMeta({ template: { type: 'PodTemplateSpec' } }),
  ReplicationController: withMeta({ spec: { type: 'ReplicationControllerSpec' }, status: { type: 'ConditionsStatus' } }),
  ReplicationControllerSpec: { template: { type: 'PodTemplateSpec' } },
  Service: withMeta({ spec: { type: 'ServiceSpec' }, status: { type: 'ConditionsStatus' } }),
  ServiceSpec: { ports: { strategy: 'merge', mergeKey: 'port' } },
  Node: withMeta({ spec: { type: 'NodeSpec' }, status: { type: 'NodeStatus' } }),
  NodeSpec: { podCIDRs: { strategy: 'merge' } }, // taints: no tags.
  NodeStatus: { conditions: byType, addresses: byType },
  Namespace: withMeta({ status: { type: 'ConditionsStatus' } }),
  ServiceAccount: withMeta({ secrets: byName() }), // imagePullSecrets: no tags here.
  PersistentVolumeClaim: withMeta({ status: { type: 'ConditionsStatus' } }),
  ComponentStatus: withMeta(conditions),
  // Any status whose only tagged field is conditions keyed by type
  // (ServiceStatus, NamespaceStatus, PersistentVolumeClaimStatus,
  // ReplicationControllerStatus and the workload statuses below).
  ConditionsStatus: conditions,
  // apps/v1
  Deployment: withMeta({ spec: { type: 'DeploymentSpec' }, status: { type: 'ConditionsStatus' } }),
  DeploymentSpec: { template: { type: 'PodTemplateSpec' }, strategy: { strategy: 'retainKeys' } },
  ReplicaSet: withMeta({ spec: { type: 'WorkloadSpec' }, status: { type: 'ConditionsStatus' } }),
  DaemonSet: withMeta({ spec: { type: 'WorkloadSpec' }, status: { type: 'ConditionsStatus' } }),
  StatefulSet: withMeta({ spec: { type: 'WorkloadSpec' }, status: { type: 'ConditionsStatus' } }), // volumeClaimTemplates: no tags.
  // ReplicaSetSpec, DaemonSetSpec, StatefulSetSpec: only template leads to tags.
  WorkloadSpec: { template: { type: 'PodTemplateSpec' } },
  // batch/v1
  Job: withMeta({ spec: { type: 'JobSpec' }, status: { type: 'ConditionsStatus' } }),
  JobSpec: { template: { type: 'PodTemplateSpec' } },
  CronJob: withMeta({ spec: { type: 'CronJobSpec' } }),
  CronJobSpec: { jobTemplate: { type: 'JobTemplateSpec' } },
  JobTemplateSpec: withMeta({ spec: { type: 'JobSpec' } }),
  // policy/v1
  PodDisruptionBudget: withMeta({ spec: { type: 'PodDisruptionBudgetSpec' }, status: { type: 'ConditionsStatus' } }),
  PodDisruptionBudgetSpec: { selector: { strategy: 'replace' } },
  // Every other built-in kind: only its ObjectMeta has tags.
  Object: withMeta({}),
};

/** Root type of each kind that has rules of its own; other built-in kinds use 'Object'. */
const KIND_TYPES: Readonly<Record<string, string>> = {
  Pod: 'Pod',
  PodTemplate: 'PodTemplate',
  ReplicationController: 'ReplicationController',
  Service: 'Service',
  Node: 'Node',
  Namespace: 'Namespace',
  ServiceAccount: 'ServiceAccount',
  PersistentVolumeClaim: 'PersistentVolumeClaim',
  ComponentStatus: 'ComponentStatus',
  Deployment: 'Deployment',
  ReplicaSet: 'ReplicaSet',
  DaemonSet: 'DaemonSet',
  StatefulSet: 'StatefulSet',
  Job: 'Job',
  CronJob: 'CronJob',
  PodDisruptionBudget: 'PodDisruptionBudget',
};

/** Built-in kinds whose only tagged fields are in metadata. */
const METADATA_ONLY_KINDS = new Set([
  'ConfigMap',
  'Secret',
  'Endpoints',
  'Event',
  'ResourceQuota',
  'LimitRange',
  'PersistentVolume',
  'Lease',
  'Role',
  'RoleBinding',
  'ClusterRole',
  'ClusterRoleBinding',
  'CertificateSigningRequest',
  'Scale',
  'Binding',
  'Eviction',
  'PriorityClass',
  'StorageClass',
  'EndpointSlice',
  'Ingress',
  'NetworkPolicy',
  'ControllerRevision',
]);

const own = <V>(table: Readonly<Record<string, V>>, key: string): V | undefined =>
  Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;

/** The rule for the field at `path` below a value of Go type `rootType`; undefined when untagged. */
export function lookupMergeRule(rootType: string, path: readonly string[]): MergeRule | undefined {
  let type: string | undefined = rootType;
  let spec: FieldSpec | undefined;
  for (const name of path) {
    const fields: Readonly<Record<string, FieldSpec>> | undefined = type === undefined ? undefined : own(TYPES, type);
    spec = fields && own(fields, name);
    if (!spec) return undefined;
    type = spec.type;
  }
  if (!spec || (spec.strategy === undefined && spec.mergeKey === undefined)) return undefined;
  return { strategy: spec.strategy, mergeKey: spec.mergeKey };
}

/**
 * The merge schema of a built-in kind, or undefined for a kind kube has no
 * Go type for (custom resources: kube answers a strategic merge patch on
 * those with 415 Unsupported Media Type; that decision is the apiserver's).
 */
export function mergeSchemaFor(kind: string): MergeSchema | undefined {
  const root = own(KIND_TYPES, kind) ?? (METADATA_ONLY_KINDS.has(kind) ? 'Object' : undefined);
  if (root === undefined) return undefined;
  return (path) => lookupMergeRule(root, path);
}
