// What the apiserver serves beyond the resource table, found as kube's
// controllers find it: through discovery. The custom resources of
// Established CRDs are read from /apis and each group-version's
// APIResourceList, and handed to the resource table's dynamic part in this
// process, so findResource and findResourceByKind (and the garbage
// collector's and namespace controller's resource lists) see them.
import { allResources, RESOURCES, setDynamicResources } from '../../../shared/api/resources.ts';
import { STANDARD_VERBS, type ResourceType, type Subresource } from '../../../shared/api/resource-type.ts';
import type { KubeClient } from '../../../shared/client/kube-client.ts';

interface APIResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

const staticGroupVersions = new Set(RESOURCES.map((rt) => `${rt.group}/${rt.version}`));

/** The served resources of group-versions the table does not have, from an APIGroupList and its APIResourceLists. */
export function resourcesFromDiscovery(lists: { groupVersion: string; resources: APIResource[] }[]): ResourceType[] {
  const out: ResourceType[] = [];
  for (const list of lists) {
    const [group, version] = list.groupVersion.split('/');
    const subs = new Map<string, Subresource[]>();
    for (const r of list.resources) {
      const [plural, sub] = r.name.split('/');
      if (sub) subs.set(plural, [...(subs.get(plural) ?? []), sub as Subresource]);
    }
    for (const r of list.resources) {
      if (r.name.includes('/')) continue;
      out.push({
        group,
        version,
        kind: r.kind,
        listKind: `${r.kind}List`,
        plural: r.name,
        singular: r.singularName || r.kind.toLowerCase(),
        namespaced: r.namespaced,
        shortNames: r.shortNames ?? [],
        categories: r.categories ?? [],
        subresources: subs.get(r.name) ?? [],
        selectableFields: {},
        storagePrefix: `/registry/${group}/${r.name}`,
        verbs: r.verbs ?? STANDARD_VERBS,
      });
    }
  }
  return out;
}

/**
 * Asks the apiserver what it serves and updates the dynamic resources; the
 * resources known afterwards. A failed discovery keeps the last answer.
 */
export async function refreshDiscovery(client: KubeClient): Promise<readonly ResourceType[]> {
  try {
    const groups = await client.request<{ groups?: { name: string; versions: { groupVersion: string }[] }[] }>('GET', '/apis');
    const lists: { groupVersion: string; resources: APIResource[] }[] = [];
    for (const g of groups.groups ?? []) {
      for (const v of g.versions) {
        if (staticGroupVersions.has(v.groupVersion)) continue;
        try {
          lists.push(await client.request<{ groupVersion: string; resources: APIResource[] }>('GET', `/apis/${v.groupVersion}`));
        } catch {
          // A group-version that went away between the two requests.
        }
      }
    }
    setDynamicResources(resourcesFromDiscovery(lists));
  } catch {
    // Keep what was known; the next refresh tries again.
  }
  return allResources();
}
