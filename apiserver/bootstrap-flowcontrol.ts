// Objects kube-apiserver writes for itself that `kubectl get` lists on a
// fresh cluster: the API Priority and Fairness configuration (the mandatory
// and suggested FlowSchemas and PriorityLevelConfigurations, from the facts
// of kube's apiserver/pkg/apis/flowcontrol/bootstrap) with the status
// condition kube's APF controller sets, and the local APIServices the
// aggregator registers for every built-in group-version, and the default
// ServiceCIDR ("kubernetes", the range Service cluster IPs come from). ksim does no APF
// queuing and no aggregation: these objects are served as kube has them,
// nothing acts on them.
import { apiGroups } from '../shared/api/resources.ts';
import { DEFAULT_SERVICE_RANGES } from './admission/service-allocation.ts';

/** Stores an object unless one of its name exists (bootstrap.ts's ensure). */
export type Ensure = (group: string, plural: string, namespace: string, obj: any) => Promise<void>;

const FC = 'flowcontrol.apiserver.k8s.io';
const FC_VERSION = `${FC}/v1`;
/** kube marks the objects it keeps up to date with this annotation. */
const AUTOUPDATE = { 'apf.kubernetes.io/autoupdate-spec': 'true' };

type Subject =
  | { kind: 'Group'; group: { name: string } }
  | { kind: 'User'; user: { name: string } }
  | { kind: 'ServiceAccount'; serviceAccount: { namespace: string; name: string } };

const group = (name: string): Subject => ({ kind: 'Group', group: { name } });
const user = (name: string): Subject => ({ kind: 'User', user: { name } });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', serviceAccount: { namespace, name } });

const everyone = [group('system:unauthenticated'), group('system:authenticated')];

interface ResourceRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

const resourceRule = (
  verbs: string[],
  apiGroups: string[],
  resources: string[],
  namespaces: string[],
  clusterScope: boolean,
): ResourceRule => ({
  verbs,
  apiGroups,
  resources,
  ...(clusterScope ? { clusterScope } : {}),
  ...(namespaces.length ? { namespaces } : {}),
});

/** Every resource and every non-resource URL. */
const ALL = {
  resourceRules: [resourceRule(['*'], ['*'], ['*'], ['*'], true)],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
};

interface FlowSchemaFact {
  name: string;
  level: string;
  precedence: number;
  distinguisher?: 'ByUser' | 'ByNamespace';
  subjects: Subject[];
  rules: { resourceRules?: ResourceRule[]; nonResourceRules?: { verbs: string[]; nonResourceURLs: string[] }[] };
}

/** The FlowSchemas in kube's bootstrap configuration (mandatory: exempt, catch-all; the rest suggested). */
export const BOOTSTRAP_FLOW_SCHEMAS: FlowSchemaFact[] = [
  { name: 'exempt', level: 'exempt', precedence: 1, subjects: [group('system:masters')], rules: ALL },
  {
    name: 'probes',
    level: 'exempt',
    precedence: 2,
    subjects: everyone,
    rules: { nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] },
  },
  {
    name: 'system-leader-election',
    level: 'leader-election',
    precedence: 100,
    distinguisher: 'ByUser',
    subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler'), serviceAccount('kube-system', '*')],
    rules: { resourceRules: [resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], ['*'], false)] },
  },
  {
    name: 'endpoint-controller',
    level: 'workload-high',
    precedence: 150,
    distinguisher: 'ByUser',
    subjects: [user('system:kube-controller-manager'), serviceAccount('kube-system', 'endpoint-controller')],
    rules: { resourceRules: [resourceRule(['get', 'create', 'update'], [''], ['endpoints'], ['*'], false)] },
  },
  {
    name: 'workload-leader-election',
    level: 'leader-election',
    precedence: 200,
    distinguisher: 'ByUser',
    subjects: [serviceAccount('kube-system', '*')],
    rules: { resourceRules: [resourceRule(['get', 'create', 'update'], ['coordination.k8s.io'], ['leases'], ['*'], false)] },
  },
  {
    name: 'system-node-high',
    level: 'node-high',
    precedence: 400,
    distinguisher: 'ByUser',
    subjects: [group('system:nodes')],
    rules: {
      resourceRules: [
        resourceRule(['*'], [''], ['nodes', 'nodes/status'], [], true),
        resourceRule(['*'], ['coordination.k8s.io'], ['leases'], ['*'], false),
      ],
    },
  },
  { name: 'system-nodes', level: 'system', precedence: 500, distinguisher: 'ByUser', subjects: [group('system:nodes')], rules: ALL },
  {
    name: 'kube-controller-manager',
    level: 'workload-high',
    precedence: 800,
    distinguisher: 'ByNamespace',
    subjects: [user('system:kube-controller-manager')],
    rules: ALL,
  },
  {
    name: 'kube-scheduler',
    level: 'workload-high',
    precedence: 800,
    distinguisher: 'ByNamespace',
    subjects: [user('system:kube-scheduler')],
    rules: ALL,
  },
  {
    name: 'kube-system-service-accounts',
    level: 'workload-high',
    precedence: 900,
    distinguisher: 'ByNamespace',
    subjects: [serviceAccount('kube-system', '*')],
    rules: ALL,
  },
  {
    name: 'service-accounts',
    level: 'workload-low',
    precedence: 9000,
    distinguisher: 'ByUser',
    subjects: [group('system:serviceaccounts')],
    rules: ALL,
  },
  { name: 'global-default', level: 'global-default', precedence: 9900, distinguisher: 'ByUser', subjects: everyone, rules: ALL },
  { name: 'catch-all', level: 'catch-all', precedence: 10000, distinguisher: 'ByUser', subjects: everyone, rules: ALL },
];

interface PriorityLevelFact {
  name: string;
  exempt?: true;
  shares: number;
  lendablePercent: number;
  /** Queuing parameters; absent: requests over the limit are rejected. */
  queuing?: { queues: number; handSize: number; queueLengthLimit: number };
}

/** The PriorityLevelConfigurations in kube's bootstrap configuration (mandatory: exempt, catch-all). */
export const BOOTSTRAP_PRIORITY_LEVELS: PriorityLevelFact[] = [
  { name: 'exempt', exempt: true, shares: 0, lendablePercent: 0 },
  { name: 'node-high', shares: 40, lendablePercent: 25, queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } },
  { name: 'system', shares: 30, lendablePercent: 33, queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } },
  { name: 'leader-election', shares: 10, lendablePercent: 0, queuing: { queues: 16, handSize: 4, queueLengthLimit: 50 } },
  { name: 'workload-high', shares: 40, lendablePercent: 50, queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
  { name: 'workload-low', shares: 100, lendablePercent: 90, queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
  { name: 'global-default', shares: 20, lendablePercent: 50, queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
  { name: 'catch-all', shares: 5, lendablePercent: 0 },
];

/** A PriorityLevelConfiguration object from its facts. */
export function priorityLevelObject(f: PriorityLevelFact): object {
  const spec = f.exempt
    ? { type: 'Exempt', exempt: { nominalConcurrencyShares: f.shares, lendablePercent: f.lendablePercent } }
    : {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: f.shares,
          lendablePercent: f.lendablePercent,
          limitResponse: f.queuing ? { type: 'Queue', queuing: { ...f.queuing } } : { type: 'Reject' },
        },
      };
  return {
    apiVersion: FC_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name: f.name, annotations: { ...AUTOUPDATE } },
    spec,
    status: {},
  };
}

/**
 * A FlowSchema object from its facts, with the Dangling condition kube's APF
 * controller sets: False, since every bootstrap schema's level exists.
 */
export function flowSchemaObject(f: FlowSchemaFact, now: Date): object {
  const time = now.toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: FC_VERSION,
    kind: 'FlowSchema',
    metadata: { name: f.name, annotations: { ...AUTOUPDATE } },
    spec: {
      priorityLevelConfiguration: { name: f.level },
      matchingPrecedence: f.precedence,
      ...(f.distinguisher ? { distinguisherMethod: { type: f.distinguisher } } : {}),
      rules: [{ subjects: f.subjects, ...f.rules }],
    },
    status: {
      conditions: [
        {
          type: 'Dangling',
          status: 'False',
          lastTransitionTime: time,
          reason: 'Found',
          message: `This FlowSchema references the PriorityLevelConfiguration object named "${f.level}" and it exists`,
        },
      ],
    },
  };
}

/**
 * kube's priorities of the built-in group-versions (the aggregator's
 * apiVersionPriorities): [groupPriorityMinimum, versionPriority].
 */
const API_PRIORITIES: Record<string, [number, number]> = {
  '/v1': [18000, 1],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  'resource.k8s.io/v1': [16200, 15],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
  'apiregistration.k8s.io/v1': [18000, 15],
  // metrics-server's own APIService asks for these; ksim's apiserver serves the group itself (apiserver/metrics-api).
  'metrics.k8s.io/v1beta1': [100, 100],
};

/** The local APIService kube's aggregator registers for one built-in group-version. */
export function localAPIServiceObject(groupName: string, version: string, now: Date): object {
  const [groupPriorityMinimum, versionPriority] = API_PRIORITIES[`${groupName}/${version}`] ?? [1000, 15];
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.${groupName}`, labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } },
    spec: { ...(groupName ? { group: groupName } : {}), version, groupPriorityMinimum, versionPriority },
    status: {
      conditions: [
        {
          type: 'Available',
          status: 'True',
          lastTransitionTime: now.toISOString().replace(/\.\d+Z$/, 'Z'),
          reason: 'Local',
          message: 'Local APIServices are always available',
        },
      ],
    },
  };
}

/** The ServiceCIDR kube-apiserver creates for its --service-cluster-ip-range, Ready. */
export function defaultServiceCIDRObject(now: Date): object {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name: 'kubernetes', finalizers: ['networking.k8s.io/service-cidr-finalizer'] },
    spec: { cidrs: [DEFAULT_SERVICE_RANGES.serviceCIDR] },
    status: {
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          lastTransitionTime: now.toISOString().replace(/\.\d+Z$/, 'Z'),
          reason: '',
          message: 'Kubernetes Service CIDR is ready',
        },
      ],
    },
  };
}

/** Creates the APF configuration, the local APIServices and the default ServiceCIDR that are missing. */
export async function ensureFlowControlAndAPIServices(ensure: Ensure, now: Date): Promise<void> {
  for (const pl of BOOTSTRAP_PRIORITY_LEVELS) await ensure(FC, 'prioritylevelconfigurations', '', priorityLevelObject(pl));
  for (const fs of BOOTSTRAP_FLOW_SCHEMAS) await ensure(FC, 'flowschemas', '', flowSchemaObject(fs, now));
  await ensure('networking.k8s.io', 'servicecidrs', '', defaultServiceCIDRObject(now));
  // kube names the core group's "v1." (a path segment, as the apiservices strategy names them).
  for (const { group: g, versions } of apiGroups()) {
    for (const v of versions) {
      if (API_PRIORITIES[`${g}/${v}`]) await ensure('apiregistration.k8s.io', 'apiservices', '', localAPIServiceObject(g, v, now));
    }
  }
  // metrics.k8s.io is served by the apiserver itself rather than by a metrics-server behind a Service: Local too.
  await ensure('apiregistration.k8s.io', 'apiservices', '', localAPIServiceObject('metrics.k8s.io', 'v1beta1', now));
}
