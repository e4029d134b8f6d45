// The discovery documents of a group the apiserver serves beside its
// resource table (metrics.k8s.io, history.ksim.io), as the aggregator shows
// an APIService's group: one version, its resources with no singular names,
// in the legacy documents (/apis/GROUP, /apis/GROUP/VERSION, its entry in
// /apis) and in the aggregated one (APIGroupDiscovery).

/** One resource of the group. */
export interface ServedResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs: readonly string[];
}

/** The documents of one served group. */
export interface ServedGroup {
  /** The group's entry in /apis (APIGroupList.groups). */
  entry(): object;
  /** /apis/GROUP. */
  apiGroup(): object;
  /** /apis/GROUP/VERSION. */
  resourceList(): object;
  /** The group's item in the aggregated /apis document. */
  groupDiscovery(): object;
}

/** See the file comment. */
export function servedGroup(group: string, version: string, resources: readonly ServedResource[]): ServedGroup {
  const groupVersion = `${group}/${version}`;
  const versionEntry = { groupVersion, version };
  const entry = () => ({ name: group, versions: [versionEntry], preferredVersion: versionEntry });
  return {
    entry,
    apiGroup: () => ({ kind: 'APIGroup', apiVersion: 'v1', ...entry() }),
    resourceList: () => ({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion,
      resources: resources.map((r) => ({ name: r.name, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: [...r.verbs] })),
    }),
    groupDiscovery: () => ({
      metadata: { name: group, creationTimestamp: null },
      versions: [
        {
          version,
          resources: resources.map((r) => ({
            resource: r.name,
            responseKind: { group, version, kind: r.kind },
            scope: r.namespaced ? 'Namespaced' : 'Cluster',
            singularResource: '',
            verbs: [...r.verbs],
          })),
          freshness: 'Current',
        },
      ],
    }),
  };
}
