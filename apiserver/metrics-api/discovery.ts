// metrics.k8s.io in discovery, as the aggregator shows metrics-server's
// APIService: the group after every built-in one (its groupPriorityMinimum is
// 100), v1beta1 with nodes and pods, get and list, no singular names (its
// storage returns ""), in the legacy documents and the aggregated one.
import { servedGroup } from '../served-group-discovery.ts';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';

/** The resources metrics-server serves. */
export const METRICS_RESOURCES = [
  { name: 'nodes', kind: 'NodeMetrics', namespaced: false, verbs: ['get', 'list'] },
  { name: 'pods', kind: 'PodMetrics', namespaced: true, verbs: ['get', 'list'] },
] as const;

/** The group's discovery documents. */
export const metricsDiscovery = servedGroup(METRICS_GROUP, METRICS_VERSION, METRICS_RESOURCES);
