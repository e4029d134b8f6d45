// history.ksim.io in discovery: the group and its one listable resource,
// `changes`. The per-object paths (RESOURCE.GROUP/NAME and its views) are
// not listed, as an aggregated API's non-resource paths are not: they are
// authorized by RBAC as requests for those paths all the same.
import { HISTORY_API_VERSION, HISTORY_GROUP, HISTORY_VERSION } from '../../shared/api/history-types.ts';

const versionEntry = { groupVersion: HISTORY_API_VERSION, version: HISTORY_VERSION };

/** The group's entry in /apis (APIGroupList.groups). */
export function historyGroupEntry(): object {
  return { name: HISTORY_GROUP, versions: [versionEntry], preferredVersion: versionEntry };
}

/** /apis/history.ksim.io. */
export function historyApiGroup(): object {
  return { kind: 'APIGroup', apiVersion: 'v1', ...historyGroupEntry() };
}

/** /apis/history.ksim.io/v1alpha1. */
export function historyResourceList(): object {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: HISTORY_API_VERSION,
    resources: [{ name: 'changes', singularName: '', namespaced: false, kind: 'ChangeList', verbs: ['list'] }],
  };
}

/** The group's item in the aggregated /apis document (APIGroupDiscovery). */
export function historyGroupDiscovery(): object {
  return {
    metadata: { name: HISTORY_GROUP, creationTimestamp: null },
    versions: [
      {
        version: HISTORY_VERSION,
        resources: [
          {
            resource: 'changes',
            responseKind: { group: HISTORY_GROUP, version: HISTORY_VERSION, kind: 'ChangeList' },
            scope: 'Cluster',
            singularResource: '',
            verbs: ['list'],
          },
        ],
        freshness: 'Current',
      },
    ],
  };
}
