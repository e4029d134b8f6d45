// metrics.k8s.io in discovery, as the aggregator shows metrics-server's
// APIService: the group after every built-in one (its groupPriorityMinimum is
// 100), v1beta1 with nodes and pods, get and list, no singular names (its
// storage returns ""), in the legacy documents and the aggregated one.
export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';
const GROUP_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`;

/** The resources metrics-server serves. */
export const METRICS_RESOURCES = [
  { name: 'nodes', kind: 'NodeMetrics', namespaced: false },
  { name: 'pods', kind: 'PodMetrics', namespaced: true },
] as const;

const VERBS = ['get', 'list'];

const versionEntry = { groupVersion: GROUP_VERSION, version: METRICS_VERSION };

/** The group's entry in /apis (APIGroupList.groups). */
export function metricsGroupEntry(): object {
  return { name: METRICS_GROUP, versions: [versionEntry], preferredVersion: versionEntry };
}

/** /apis/metrics.k8s.io. */
export function metricsApiGroup(): object {
  return { kind: 'APIGroup', apiVersion: 'v1', ...metricsGroupEntry() };
}

/** /apis/metrics.k8s.io/v1beta1. */
export function metricsResourceList(): object {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: GROUP_VERSION,
    resources: METRICS_RESOURCES.map((r) => ({ name: r.name, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: VERBS })),
  };
}

/** The group's item in the aggregated /apis document (APIGroupDiscovery). */
export function metricsGroupDiscovery(): object {
  return {
    metadata: { name: METRICS_GROUP, creationTimestamp: null },
    versions: [
      {
        version: METRICS_VERSION,
        resources: METRICS_RESOURCES.map((r) => ({
          resource: r.name,
          responseKind: { group: METRICS_GROUP, version: METRICS_VERSION, kind: r.kind },
          scope: r.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: '',
          verbs: VERBS,
        })),
        freshness: 'Current',
      },
    ],
  };
}
