// The seed corpus of the apiserver fuzz test: valid objects of several kinds,
// the namespaces they live in, and which of them are protected (stored before
// the run and compared byte for byte after it) or scratch (free to change).

/** A kind the fuzzer builds bodies for, with where it is served. */
export interface KindSpec {
  kind: string;
  apiVersion: string;
  /** Path prefix: /api/v1 or /apis/GROUP/VERSION. */
  prefix: string;
  plural: string;
  namespaced: boolean;
  /** Subresources kube serves for it (those the fuzzer aims at). */
  subresources: string[];
  /** A valid object of this kind. */
  make(namespace: string, name: string): any;
}

/** The namespace where fuzzed writes may succeed. */
export const SCRATCH_NS = 'fuzz-scratch';
/** Namespaces whose contents must be exactly as stored before the run. */
export const PROTECTED_NS = ['default', 'kube-system', 'fuzz-keep'] as const;
/** Name of the Node the protected Pod is bound to (so a binding is always refused). */
export const KEEP_NODE = 'keep-node';

const meta = (namespace: string, name: string, extra: object = {}) => ({
  name,
  ...(namespace ? { namespace } : {}),
  labels: { app: name, 'fuzz.ksim.dev/seed': 'yes' },
  ...extra,
});

const podSpec = (nodeName?: string) => ({
  ...(nodeName ? { nodeName } : {}),
  containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: 'b' }] }],
  restartPolicy: 'Always',
});

export const KINDS: KindSpec[] = [
  {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    prefix: '/api/v1',
    plural: 'configmaps',
    namespaced: true,
    subresources: [],
    make: (ns, name) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta(ns, name, { annotations: { note: 'seed' } }),
      data: { key: 'value', 'game.properties': 'lives=3\nenemies=aliens\n' },
    }),
  },
  {
    kind: 'Secret',
    apiVersion: 'v1',
    prefix: '/api/v1',
    plural: 'secrets',
    namespaced: true,
    subresources: [],
    make: (ns, name) => ({ apiVersion: 'v1', kind: 'Secret', metadata: meta(ns, name), type: 'Opaque', data: { password: 'c2VjcmV0' } }),
  },
  {
    kind: 'ServiceAccount',
    apiVersion: 'v1',
    prefix: '/api/v1',
    plural: 'serviceaccounts',
    namespaced: true,
    subresources: ['token'],
    make: (ns, name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(ns, name) }),
  },
  {
    kind: 'Service',
    apiVersion: 'v1',
    prefix: '/api/v1',
    plural: 'services',
    namespaced: true,
    subresources: ['status'],
    make: (ns, name) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(ns, name),
      spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
    }),
  },
  {
    kind: 'Pod',
    apiVersion: 'v1',
    prefix: '/api/v1',
    plural: 'pods',
    namespaced: true,
    subresources: ['status', 'binding', 'eviction', 'exec', 'attach'],
    // keep-pod is bound (so a binding must be refused); keep-unbound is not (so only a dry run may bind it).
    make: (ns, name) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta(ns, name),
      spec: podSpec(ns === SCRATCH_NS || name === 'keep-unbound' ? undefined : KEEP_NODE),
    }),
  },
  {
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    prefix: '/apis/apps/v1',
    plural: 'deployments',
    namespaced: true,
    subresources: ['status', 'scale'],
    make: (ns, name) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(ns, name),
      spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: podSpec() } },
    }),
  },
  {
    kind: 'Role',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    prefix: '/apis/rbac.authorization.k8s.io/v1',
    plural: 'roles',
    namespaced: true,
    subresources: [],
    make: (ns, name) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: meta(ns, name),
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
    }),
  },
  {
    kind: 'Lease',
    apiVersion: 'coordination.k8s.io/v1',
    prefix: '/apis/coordination.k8s.io/v1',
    plural: 'leases',
    namespaced: true,
    subresources: [],
    make: (ns, name) => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: meta(ns, name),
      spec: { holderIdentity: 'fuzz', leaseDurationSeconds: 15 },
    }),
  },
  {
    kind: 'Job',
    apiVersion: 'batch/v1',
    prefix: '/apis/batch/v1',
    plural: 'jobs',
    namespaced: true,
    subresources: ['status'],
    make: (ns, name) => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: meta(ns, name),
      spec: { template: { metadata: { labels: { job: name } }, spec: { ...podSpec(), restartPolicy: 'Never' } }, backoffLimit: 1 },
    }),
  },
  {
    kind: 'Namespace',
    apiVersion: 'v1',
    prefix: '/api/v1',
    plural: 'namespaces',
    namespaced: false,
    subresources: ['status', 'finalize'],
    make: (_ns, name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: meta('', name) }),
  },
  {
    kind: 'ClusterRole',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    prefix: '/apis/rbac.authorization.k8s.io/v1',
    plural: 'clusterroles',
    namespaced: false,
    subresources: [],
    make: (_ns, name) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: meta('', name),
      rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] }],
    }),
  },
  {
    kind: 'PriorityClass',
    apiVersion: 'scheduling.k8s.io/v1',
    prefix: '/apis/scheduling.k8s.io/v1',
    plural: 'priorityclasses',
    namespaced: false,
    subresources: [],
    make: (_ns, name) => ({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: meta('', name),
      value: 1000,
      description: 'fuzz',
    }),
  },
  {
    kind: 'Node',
    apiVersion: 'v1',
    prefix: '/api/v1',
    plural: 'nodes',
    namespaced: false,
    subresources: ['status'],
    make: (_ns, name) => ({ apiVersion: 'v1', kind: 'Node', metadata: meta('', name), spec: { podCIDR: '10.244.9.0/24' } }),
  },
];

export const kindByName = (kind: string): KindSpec => {
  const k = KINDS.find((x) => x.kind === kind);
  if (!k) throw new Error(`no kind ${kind} in the corpus`);
  return k;
};

/** One object stored before the run. */
export interface SeedObject {
  spec: KindSpec;
  namespace: string;
  name: string;
  /** True when it must be unchanged after the run (false: in the scratch namespace). */
  protected: boolean;
}

const nsKinds = ['ConfigMap', 'Secret', 'ServiceAccount', 'Service', 'Pod', 'Deployment', 'Role', 'Lease', 'Job'];

/** Names of the seeded objects of a kind in a namespace ('' for cluster-scoped). */
export function seedNames(kind: string, namespace: string): string[] {
  if (namespace === 'kube-system')
    return kind === 'Secret' ? ['hidden', 'keep-secret'] : ['ConfigMap', 'Lease'].includes(kind) ? [`keep-${kind.toLowerCase()}`] : [];
  return kind === 'Pod' ? ['keep-pod', 'keep-unbound'] : [`keep-${kind.toLowerCase()}`];
}

/** Every object to store before the run, protected ones and scratch ones, in creation order. */
export function seedObjects(): SeedObject[] {
  const out: SeedObject[] = [];
  out.push({ spec: kindByName('Namespace'), namespace: '', name: 'fuzz-keep', protected: true });
  out.push({ spec: kindByName('Namespace'), namespace: '', name: SCRATCH_NS, protected: true });
  out.push({ spec: kindByName('Node'), namespace: '', name: KEEP_NODE, protected: true });
  for (const kind of ['ClusterRole', 'PriorityClass'])
    out.push({ spec: kindByName(kind), namespace: '', name: `keep-${kind.toLowerCase()}`, protected: true });
  for (const ns of [...PROTECTED_NS, SCRATCH_NS]) {
    for (const kind of nsKinds) {
      for (const name of seedNames(kind, ns)) out.push({ spec: kindByName(kind), namespace: ns, name, protected: ns !== SCRATCH_NS });
    }
  }
  return out;
}

/** Names of protected cluster-scoped objects by plural (including bootstrap namespaces). */
export const PROTECTED_CLUSTER_NAMES: Record<string, string[]> = {
  namespaces: ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'fuzz-keep', SCRATCH_NS],
  nodes: [KEEP_NODE],
  clusterroles: ['keep-clusterrole'],
  priorityclasses: ['keep-priorityclass', 'system-cluster-critical', 'system-node-critical'],
};

/** Path of an object (or collection when name is '') on its canonical route. */
export function objectPath(spec: KindSpec, namespace: string, name: string): string {
  const ns = spec.namespaced ? `/namespaces/${namespace}` : '';
  return `${spec.prefix}${ns}/${spec.plural}${name ? `/${name}` : ''}`;
}
