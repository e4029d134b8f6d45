// history.ksim.io in discovery: the group and its listable resources,
// `changes` and `requests` (the request traces, request-trace/). The per-object paths (RESOURCE.GROUP/NAME and its views) are
// not listed, as an aggregated API's non-resource paths are not: they are
// authorized by RBAC as requests for those paths all the same.
import { HISTORY_GROUP, HISTORY_VERSION } from '../../shared/api/history-types.ts';
import { servedGroup } from '../served-group-discovery.ts';

/** The group's discovery documents. */
export const historyDiscovery = servedGroup(HISTORY_GROUP, HISTORY_VERSION, [
  { name: 'changes', kind: 'Change', namespaced: false, verbs: ['list', 'watch'] },
  { name: 'requests', kind: 'RequestTrace', namespaced: false, verbs: ['get', 'list'] },
]);
