// kube's bootstrap RBAC policy as data: the ClusterRoles, ClusterRoleBindings,
// Roles and RoleBindings kube-apiserver creates at start (rules as in
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy and its testdata YAML),
// limited to the controllers ksim runs, plus kubeadm's kubeadm:cluster-admins
// binding and ksim's own kubelet-sim role. Every object carries kube's
// bootstrapping label and the autoupdate annotation that lets the reconciler
// add what a later version of this file grants.
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import { RESOURCES } from '../../../shared/api/resources.ts';
import { HISTORY_GROUP } from '../../../shared/api/history-types.ts';
import { HISTORY_VIEWS, resourceSegment } from '../../history-api/object-ref.ts';

export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const READ = ['get', 'list', 'watch'];
const READ_WRITE = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];

/** A resource rule; verbs, API groups and resources as kube's NewRule(...).Groups(...).Resources(...). */
function rule(verbs: string[], groups: string[], resources: string[], names?: string[]): PolicyRule {
  // kube's rule builder keeps each list as a sorted set.
  const r: PolicyRule = { verbs: [...verbs].sort(), apiGroups: [...groups].sort(), resources: [...resources].sort() };
  if (names) r.resourceNames = [...names].sort();
  return r;
}

function urls(verbs: string[], paths: string[]): PolicyRule {
  return { verbs: [...verbs].sort(), nonResourceURLs: [...paths].sort() };
}

const eventsRule = () => rule(['create', 'update', 'patch'], ['', 'events.k8s.io'], ['events']);

function meta(name: string, labels: Record<string, string> = {}, namespace?: string) {
  const m: { name: string; namespace?: string; labels: Record<string, string>; annotations: Record<string, string> } = {
    name,
    labels: { ...BOOTSTRAP_LABELS, ...labels },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
  if (namespace) m.namespace = namespace;
  return m;
}

function clusterRole(name: string, rules: PolicyRule[], labels?: Record<string, string>, aggregateFrom?: string): ClusterRole {
  const cr: ClusterRole = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: meta(name, labels), rules };
  if (aggregateFrom) {
    cr.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [aggregateFrom]: 'true' } }] };
    delete cr.rules;
  }
  return cr;
}

const user = (name: string): Subject => ({ apiGroup: RBAC_GROUP, kind: 'User', name });
const group = (name: string): Subject => ({ apiGroup: RBAC_GROUP, kind: 'Group', name });
const sa = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

function clusterBinding(name: string, subjects: Subject[], role = name, labels?: Record<string, string>): ClusterRoleBinding {
  const b: ClusterRoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: meta(name, labels),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
  };
  if (subjects.length) b.subjects = subjects;
  return b;
}

const AGG_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
const AGG_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
const AGG_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

/** The system:node role's rules, which the Node authorizer also applies to what it does not subdivide (kube's NodeRules). */
export const NODE_RULES: PolicyRule[] = [
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews', 'localsubjectaccessreviews']),
  rule(READ, [''], ['services']),
  rule(['create', 'get', 'list', 'watch'], [''], ['nodes']),
  rule(['update', 'patch'], [''], ['nodes/status']),
  rule(['update', 'patch'], [''], ['nodes']),
  rule(['create', 'update', 'patch'], [''], ['events']),
  rule(READ, [''], ['pods']),
  rule(['create', 'delete'], [''], ['pods']),
  rule(['update', 'patch'], [''], ['pods/status']),
  rule(['create'], [''], ['pods/eviction']),
  rule(READ, [''], ['secrets', 'configmaps']),
  rule(['get'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
  rule(['get'], [''], ['endpoints']),
  rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['coordination.k8s.io'], ['leases']),
  rule(['get'], ['storage.k8s.io'], ['volumeattachments']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(['get', 'update', 'patch'], [''], ['persistentvolumeclaims/status']),
  rule(READ, ['storage.k8s.io'], ['csidrivers']),
  rule(['get', 'create', 'update', 'patch', 'delete'], ['storage.k8s.io'], ['csinodes']),
  rule(READ, ['node.k8s.io'], ['runtimeclasses']),
];

/** The user the web UI authenticates as (its own client certificate). */
export const UI_USER = 'system:ksim:ui';

/**
 * The history API's resources ("deployments.apps", and each with its views)
 * for every built-in kind but Secrets: a Secret's history holds the Secret.
 */
function historyOfAllButSecrets(): string[] {
  return RESOURCES.filter((rt) => !(rt.group === '' && rt.plural === 'secrets')).flatMap((rt) => {
    const segment = resourceSegment(rt);
    return [segment, ...HISTORY_VIEWS.map((v) => `${segment}/${v}`)];
  });
}

/** The user kubelet-sim authenticates as (its own client certificate). */
export const KUBELET_SIM_USER = 'system:ksim:kubelet-sim';

const CLUSTER_ROLES: ClusterRole[] = [
  clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), urls(['*'], ['*'])]),
  clusterRole('system:discovery', [
    urls(
      ['get'],
      ['/livez', '/readyz', '/healthz', '/version', '/version/', '/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*'],
    ),
  ]),
  clusterRole('system:monitoring', [
    urls(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*']),
  ]),
  clusterRole('system:basic-user', [
    rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']),
    rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
  ]),
  clusterRole('system:public-info-viewer', [urls(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])]),
  clusterRole('admin', [], {}, AGG_ADMIN),
  clusterRole('edit', [], { [AGG_ADMIN]: 'true' }, AGG_EDIT),
  clusterRole('view', [], { [AGG_EDIT]: 'true' }, AGG_VIEW),
  clusterRole(
    'system:aggregate-to-admin',
    [rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(READ_WRITE, [RBAC_GROUP], ['roles', 'rolebindings'])],
    { [AGG_ADMIN]: 'true' },
  ),
  clusterRole(
    'system:aggregate-to-edit',
    [
      rule(READ, [''], ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
      rule(['impersonate'], [''], ['serviceaccounts']),
      rule(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
      rule(['create'], [''], ['pods/eviction']),
      rule(
        WRITE,
        [''],
        [
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'serviceaccounts',
          'services',
          'services/proxy',
          'persistentvolumeclaims',
          'configmaps',
          'secrets',
          'events',
        ],
      ),
      rule(['create'], [''], ['serviceaccounts/token']),
      rule(
        WRITE,
        ['apps'],
        [
          'statefulsets',
          'statefulsets/scale',
          'daemonsets',
          'deployments',
          'deployments/scale',
          'deployments/rollback',
          'replicasets',
          'replicasets/scale',
        ],
      ),
      rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
      rule(WRITE, ['batch'], ['jobs', 'cronjobs']),
      rule(
        WRITE,
        ['extensions'],
        [
          'daemonsets',
          'deployments',
          'deployments/scale',
          'deployments/rollback',
          'ingresses',
          'replicasets',
          'replicasets/scale',
          'replicationcontrollers/scale',
          'networkpolicies',
        ],
      ),
      rule(WRITE, ['policy'], ['poddisruptionbudgets']),
      rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
      rule(READ_WRITE, ['coordination.k8s.io'], ['leases']),
    ],
    { [AGG_EDIT]: 'true' },
  ),
  clusterRole(
    'system:aggregate-to-view',
    [
      rule(
        READ,
        [''],
        [
          'pods',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'serviceaccounts',
          'services',
          'services/status',
          'endpoints',
          'persistentvolumeclaims',
          'persistentvolumeclaims/status',
          'configmaps',
        ],
      ),
      rule(
        READ,
        [''],
        [
          'limitranges',
          'resourcequotas',
          'bindings',
          'events',
          'pods/status',
          'resourcequotas/status',
          'namespaces/status',
          'replicationcontrollers/status',
          'pods/log',
        ],
      ),
      rule(READ, [''], ['namespaces']),
      rule(READ, ['discovery.k8s.io'], ['endpointslices']),
      rule(
        READ,
        ['apps'],
        [
          'controllerrevisions',
          'statefulsets',
          'statefulsets/status',
          'statefulsets/scale',
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/status',
          'deployments/scale',
          'replicasets',
          'replicasets/status',
          'replicasets/scale',
        ],
      ),
      rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
      rule(READ, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
      rule(
        READ,
        ['extensions'],
        [
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'ingresses',
          'ingresses/status',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'replicationcontrollers/scale',
          'networkpolicies',
        ],
      ),
      rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
      rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
    ],
    { [AGG_VIEW]: 'true' },
  ),
  clusterRole('system:auth-delegator', [
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
  ]),
  clusterRole('system:kubelet-api-admin', [
    rule(READ, [''], ['nodes']),
    rule(['proxy'], [''], ['nodes']),
    rule(['*'], [''], ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log']),
  ]),
  clusterRole('system:node', NODE_RULES),
  // Not kube's: metrics-server's manifest installs it, so that view, edit and admin read the metrics API ksim serves.
  clusterRole('system:aggregated-metrics-reader', [rule(['get', 'list', 'watch'], ['metrics.k8s.io'], ['pods', 'nodes'])], {
    [AGG_VIEW]: 'true',
    [AGG_EDIT]: 'true',
    [AGG_ADMIN]: 'true',
  }),
  clusterRole('system:node-proxier', [
    rule(['list', 'watch'], [''], ['services', 'endpoints']),
    rule(READ, [''], ['nodes']),
    eventsRule(),
    rule(['list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
  ]),
  clusterRole('system:kube-controller-manager', [
    eventsRule(),
    rule(['create'], ['coordination.k8s.io'], ['leases']),
    rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-controller-manager']),
    rule(['create'], [''], ['secrets', 'serviceaccounts']),
    rule(['delete'], [''], ['secrets']),
    rule(['get'], [''], ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
    rule(['update'], [''], ['secrets', 'serviceaccounts']),
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    rule(['list', 'watch'], ['*'], ['*']),
    rule(['create'], [''], ['serviceaccounts/token']),
  ]),
  clusterRole('system:kube-scheduler', [
    eventsRule(),
    rule(['create'], ['coordination.k8s.io'], ['leases']),
    rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], ['kube-scheduler']),
    rule(READ, [''], ['nodes']),
    rule(['get', 'list', 'watch', 'delete'], [''], ['pods']),
    rule(['create'], [''], ['pods/binding', 'bindings']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(READ, [''], ['services', 'replicationcontrollers']),
    rule(READ, ['apps', 'extensions'], ['replicasets']),
    rule(READ, ['apps'], ['statefulsets']),
    rule(READ, ['policy'], ['poddisruptionbudgets']),
    rule(READ, [''], ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    rule(READ, ['storage.k8s.io'], ['csinodes']),
    rule(READ, [''], ['namespaces']),
    rule(READ, ['storage.k8s.io'], ['csidrivers']),
    rule(READ, ['storage.k8s.io'], ['csistoragecapacities']),
  ]),
  clusterRole('system:volume-scheduler', [
    rule(['get', 'list', 'watch', 'update', 'patch'], [''], ['persistentvolumes']),
    rule(READ, ['storage.k8s.io'], ['storageclasses']),
    rule(['get', 'list', 'watch', 'update', 'patch'], [''], ['persistentvolumeclaims']),
  ]),
  clusterRole('system:node-bootstrapper', [
    rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  ]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
    rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/nodeclient']),
  ]),
  clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
    rule(['create'], ['certificates.k8s.io'], ['certificatesigningrequests/selfnodeclient']),
  ]),
  clusterRole('system:certificates.k8s.io:legacy-unknown-approver', [
    rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/legacy-unknown']),
  ]),
  clusterRole('system:certificates.k8s.io:kubelet-serving-approver', [
    rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kubelet-serving']),
  ]),
  clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', [
    rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client']),
  ]),
  clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [
    rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
  ]),
  clusterRole('system:service-account-issuer-discovery', [urls(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])]),
  // ksim's own (see KSIM_BINDINGS).
  clusterRole(KUBELET_SIM_USER, [
    rule(['impersonate'], [''], ['users']),
    rule(['impersonate'], [''], ['groups'], ['system:nodes', 'system:authenticated']),
    // The process's own informers, one watch each shared by all its nodes (every node's own
    // requests go as that node): the pods bound to any node, and what containers read.
    rule(['get', 'list', 'watch'], [''], ['pods', 'configmaps', 'secrets', 'services', 'endpoints']),
    // The claims and volumes its Pods mount (kube's kubelet gets them through the Node authorizer's graph).
    rule(['get', 'list', 'watch'], [''], ['persistentvolumeclaims', 'persistentvolumes']),
    // The simulated CNI's policies (calico-node's and cilium's roles read these) and ksim's ingress-nginx
    // (ingress-nginx's ClusterRole: its Ingresses and classes, and their status).
    rule(['get', 'list', 'watch'], [''], ['namespaces']),
    rule(['get', 'list', 'watch'], ['networking.k8s.io'], ['networkpolicies', 'ingresses', 'ingressclasses']),
    rule(['update'], ['networking.k8s.io'], ['ingresses/status']),
    // ingress-nginx's events about the Ingresses it syncs (its ClusterRole has the same rule).
    rule(['create', 'patch'], ['', 'events.k8s.io'], ['events']),
  ]),
  clusterRole(UI_USER, [
    // Every write as it happens, and the history of every object but Secrets.
    rule(['list', 'watch'], [HISTORY_GROUP], ['changes']),
    // The request traces: RBAC is asked for get of one, and the traces then want list.
    rule(['get', 'list'], [HISTORY_GROUP], ['requests']),
    rule(['get'], [HISTORY_GROUP], [...new Set(historyOfAllButSecrets())]),
    // The ownership graph's objects.
    rule(['get', 'list', 'watch'], [''], ['pods', 'nodes', 'services', 'configmaps', 'persistentvolumeclaims']),
    rule(['get', 'list', 'watch'], ['apps'], ['deployments', 'replicasets']),
    rule(['get', 'list', 'watch'], ['discovery.k8s.io'], ['endpointslices']),
    // The Events view: every Event's revisions with their bodies, also after they expired.
    rule(['get', 'list', 'watch'], ['', 'events.k8s.io'], ['events']),
  ]),
];

/** kube's controller roles (system:controller:NAME, bound to ServiceAccount kube-system/NAME) for the controllers ksim runs. */
const CONTROLLER_ROLES: Record<string, PolicyRule[]> = {
  'certificate-controller': [
    rule(['get', 'list', 'watch', 'delete'], ['certificates.k8s.io'], ['certificatesigningrequests']),
    rule(['update'], ['certificates.k8s.io'], ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
    rule(['approve'], ['certificates.k8s.io'], ['signers'], ['kubernetes.io/kube-apiserver-client-kubelet']),
    rule(
      ['sign'],
      ['certificates.k8s.io'],
      ['signers'],
      [
        'kubernetes.io/kube-apiserver-client',
        'kubernetes.io/kube-apiserver-client-kubelet',
        'kubernetes.io/kubelet-serving',
        'kubernetes.io/legacy-unknown',
      ],
    ),
    rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    eventsRule(),
  ],
  'clusterrole-aggregation-controller': [rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], [RBAC_GROUP], ['clusterroles'])],
  'cronjob-controller': [
    rule(['get', 'list', 'watch', 'update'], ['batch'], ['cronjobs']),
    rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], ['batch'], ['jobs']),
    rule(['update'], ['batch'], ['cronjobs/status']),
    rule(['update'], ['batch'], ['cronjobs/finalizers']),
    rule(['list', 'watch', 'delete'], [''], ['pods']),
    eventsRule(),
  ],
  'daemon-set-controller': [
    rule(READ, ['extensions', 'apps'], ['daemonsets']),
    rule(['update'], ['extensions', 'apps'], ['daemonsets/status']),
    rule(['update'], ['extensions', 'apps'], ['daemonsets/finalizers']),
    rule(['list', 'watch'], [''], ['nodes']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
    rule(['create'], [''], ['pods/binding']),
    rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], ['apps'], ['controllerrevisions']),
    eventsRule(),
  ],
  'deployment-controller': [
    rule(['get', 'list', 'watch', 'update'], ['apps', 'extensions'], ['deployments']),
    rule(['update'], ['apps', 'extensions'], ['deployments/status']),
    rule(['update'], ['apps', 'extensions'], ['deployments/finalizers']),
    rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], ['apps', 'extensions'], ['replicasets']),
    rule(['get', 'list', 'watch', 'update'], [''], ['pods']),
    eventsRule(),
  ],
  'disruption-controller': [
    rule(READ, ['apps', 'extensions'], ['deployments']),
    rule(READ, ['apps', 'extensions'], ['replicasets']),
    rule(READ, [''], ['replicationcontrollers']),
    rule(READ, ['policy'], ['poddisruptionbudgets']),
    rule(READ, ['apps'], ['statefulsets']),
    rule(['update'], ['policy'], ['poddisruptionbudgets/status']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['get'], ['*'], ['*/scale']),
    eventsRule(),
  ],
  'endpoint-controller': [
    rule(READ, [''], ['services', 'pods']),
    rule(['get', 'list', 'watch', 'create', 'update', 'delete'], [''], ['endpoints']),
    rule(['create'], [''], ['endpoints/restricted']),
    eventsRule(),
  ],
  'endpointslice-controller': [
    rule(READ, [''], ['services', 'pods', 'nodes']),
    rule(['update'], [''], ['services/finalizers']),
    rule(['get', 'list', 'watch', 'create', 'update', 'delete'], ['discovery.k8s.io'], ['endpointslices']),
    eventsRule(),
  ],
  'expand-controller': [
    rule(['get', 'list', 'watch', 'update', 'patch'], [''], ['persistentvolumes']),
    rule(['update', 'patch'], [''], ['persistentvolumeclaims/status']),
    rule(READ, [''], ['persistentvolumeclaims']),
    eventsRule(),
  ],
  'generic-garbage-collector': [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], ['*'], ['*']), eventsRule()],
  'horizontal-pod-autoscaler': [
    rule(READ, ['autoscaling'], ['horizontalpodautoscalers']),
    rule(['update'], ['autoscaling'], ['horizontalpodautoscalers/status']),
    rule(['get', 'update'], ['*'], ['*/scale']),
    rule(['list', 'watch'], [''], ['pods']),
    rule(['list', 'watch'], ['metrics.k8s.io'], ['pods']),
    rule(READ, ['custom.metrics.k8s.io'], ['*']),
    rule(READ, ['external.metrics.k8s.io'], ['*']),
    eventsRule(),
  ],
  'job-controller': [
    rule(['get', 'list', 'watch', 'update', 'patch'], ['batch'], ['jobs']),
    rule(['update'], ['batch'], ['jobs/status']),
    rule(['update'], ['batch'], ['jobs/finalizers']),
    rule(['list', 'watch', 'create', 'delete', 'patch'], [''], ['pods']),
    eventsRule(),
  ],
  'namespace-controller': [
    rule(['get', 'list', 'watch', 'delete'], [''], ['namespaces']),
    rule(['update'], [''], ['namespaces/finalize', 'namespaces/status']),
    rule(['get', 'list', 'watch', 'delete', 'deletecollection'], ['*'], ['*']),
  ],
  'node-controller': [
    rule(['get', 'list', 'watch', 'update', 'delete', 'patch'], [''], ['nodes']),
    rule(['patch', 'update'], [''], ['nodes/status']),
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['list', 'watch', 'get', 'delete'], [''], ['pods']),
    eventsRule(),
  ],
  'persistent-volume-binder': [
    rule(['get', 'list', 'watch', 'update', 'create', 'delete'], [''], ['persistentvolumes']),
    rule(['update'], [''], ['persistentvolumes/status']),
    rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
    rule(['update'], [''], ['persistentvolumeclaims/status']),
    rule(['list', 'watch', 'get', 'create', 'delete'], [''], ['pods']),
    rule(READ, ['storage.k8s.io'], ['storageclasses']),
    rule(['list', 'watch'], [''], ['nodes']),
    eventsRule(),
    rule(['watch'], [''], ['events']),
    rule(['get'], [''], ['services']),
  ],
  'pod-garbage-collector': [
    rule(['list', 'watch', 'delete'], [''], ['pods']),
    rule(READ, [''], ['nodes']),
    rule(['patch'], [''], ['pods/status']),
  ],
  'replicaset-controller': [
    rule(['get', 'list', 'watch', 'update'], ['apps', 'extensions'], ['replicasets']),
    rule(['update'], ['apps', 'extensions'], ['replicasets/status']),
    rule(['update'], ['apps', 'extensions'], ['replicasets/finalizers']),
    rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
    eventsRule(),
  ],
  'replication-controller': [
    rule(['get', 'list', 'watch', 'update'], [''], ['replicationcontrollers']),
    rule(['update'], [''], ['replicationcontrollers/status']),
    rule(['update'], [''], ['replicationcontrollers/finalizers']),
    rule(['list', 'watch', 'patch', 'create', 'delete'], [''], ['pods']),
    eventsRule(),
  ],
  'resourcequota-controller': [rule(['list', 'watch'], ['*'], ['*']), rule(['update'], [''], ['resourcequotas/status']), eventsRule()],
  'root-ca-cert-publisher': [rule(['create', 'update'], [''], ['configmaps']), eventsRule()],
  'service-account-controller': [rule(['create'], [''], ['serviceaccounts']), eventsRule()],
  'statefulset-controller': [
    rule(['list', 'watch'], [''], ['pods']),
    rule(READ, ['apps'], ['statefulsets']),
    rule(['update'], ['apps'], ['statefulsets/status']),
    rule(['update'], ['apps'], ['statefulsets/finalizers']),
    rule(['get', 'create', 'delete', 'update', 'patch'], [''], ['pods']),
    rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], ['apps'], ['controllerrevisions']),
    rule(['get', 'create', 'list', 'watch'], [''], ['persistentvolumeclaims']),
    rule(['update', 'delete'], [''], ['persistentvolumeclaims']),
    rule(['update'], [''], ['pods/finalizers']),
    eventsRule(),
  ],
  'pvc-protection-controller': [
    rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumeclaims']),
    rule(['list', 'watch', 'get'], [''], ['pods']),
    eventsRule(),
  ],
  'pv-protection-controller': [rule(['get', 'list', 'watch', 'update'], [''], ['persistentvolumes']), eventsRule()],
  'ttl-after-finished-controller': [rule(['get', 'list', 'watch', 'delete'], ['batch'], ['jobs']), eventsRule()],
  'validatingadmissionpolicy-status-controller': [
    rule(READ, ['admissionregistration.k8s.io'], ['validatingadmissionpolicies']),
    rule(['get', 'patch', 'update'], ['admissionregistration.k8s.io'], ['validatingadmissionpolicies/status']),
    eventsRule(),
  ],
  // kube 1.29+ (SeparateTaintEvictionController): the taint-based eviction runs as its own controller.
  'taint-eviction-controller': [
    rule(['patch', 'update'], [''], ['pods/status']),
    rule(['list', 'watch', 'get', 'delete'], [''], ['pods']),
    eventsRule(),
  ],
};

/** Every bootstrap ClusterRole. */
export const BOOTSTRAP_CLUSTER_ROLES: readonly ClusterRole[] = [
  ...CLUSTER_ROLES,
  ...Object.entries(CONTROLLER_ROLES).map(([name, rules]) => clusterRole(`system:controller:${name}`, rules)),
];

/** Every bootstrap ClusterRoleBinding. */
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly ClusterRoleBinding[] = [
  clusterBinding('cluster-admin', [group('system:masters')]),
  clusterBinding('system:monitoring', [group('system:monitoring')]),
  clusterBinding('system:discovery', [group('system:authenticated')]),
  clusterBinding('system:basic-user', [group('system:authenticated')]),
  clusterBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
  clusterBinding('system:node-proxier', [user('system:kube-proxy')]),
  clusterBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
  clusterBinding('system:kube-scheduler', [user('system:kube-scheduler')]),
  clusterBinding('system:volume-scheduler', [user('system:kube-scheduler')]),
  // kube keeps this binding without subjects: the Node authorizer grants nodes what they need.
  clusterBinding('system:node', []),
  clusterBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
  ...Object.keys(CONTROLLER_ROLES).map((name) => clusterBinding(`system:controller:${name}`, [sa('kube-system', name)])),
  // kubeadm's: the admin kubeconfig (O=kubeadm:cluster-admins) and the apiserver's
  // kube-apiserver-kubelet-client certificate (kubeadm issues it with the same
  // organization since 1.29) are cluster admins through this group, not system:masters.
  // kubeadm writes it without kube's bootstrapping label and annotation.
  {
    ...clusterBinding('kubeadm:cluster-admins', [group('kubeadm:cluster-admins')], 'cluster-admin'),
    metadata: { name: 'kubeadm:cluster-admins' },
  },
  // ksim's design: one kubelet-sim process runs thousands of nodes, so it does not
  // hold a certificate per node. It authenticates as itself and impersonates
  // system:node:NAME (with the system:nodes and system:authenticated groups) on
  // each request, so the Node authorizer and NodeRestriction see the node's own
  // name. Nodes come and go at runtime, hence any user name.
  clusterBinding(KUBELET_SIM_USER, [user(KUBELET_SIM_USER)]),
  clusterBinding(UI_USER, [user(UI_USER)]),
];

function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(name, {}, namespace), rules };
}

function roleBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: meta(name, {}, namespace),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: roleName },
    subjects,
  };
}

const LEADER_LOCKING = [
  rule(['create', 'get', 'list', 'update', 'watch'], ['coordination.k8s.io'], ['leases']),
  rule(['create', 'get', 'list', 'update', 'watch'], ['coordination.k8s.io'], ['leasecandidates']),
];

/** kube's namespaced bootstrap Roles (the leader-locking and authentication-reader ones). */
export const BOOTSTRAP_ROLES: readonly Role[] = [
  role('kube-system', 'extension-apiserver-authentication-reader', [
    rule(READ, [''], ['configmaps'], ['extension-apiserver-authentication']),
  ]),
  role('kube-system', 'system::leader-locking-kube-controller-manager', LEADER_LOCKING),
  role('kube-system', 'system::leader-locking-kube-scheduler', LEADER_LOCKING),
];

export const BOOTSTRAP_ROLE_BINDINGS: readonly RoleBinding[] = [
  roleBinding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [
    user('system:kube-controller-manager'),
    user('system:kube-scheduler'),
  ]),
  roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [
    user('system:kube-controller-manager'),
    sa('kube-system', 'kube-controller-manager'),
    sa('kube-system', 'leader-election-controller'),
  ]),
  roleBinding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [
    user('system:kube-scheduler'),
    sa('kube-system', 'kube-scheduler'),
  ]),
];
