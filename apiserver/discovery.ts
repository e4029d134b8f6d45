// Legacy discovery documents, derived from the resource table: APIVersions
// at /api, APIGroupList at /apis, APIGroup at /apis/<group>, and an
// APIResourceList per group-version.
import { allResources, apiGroups } from '../shared/api/resources.ts';
import type { ResourceType } from '../shared/api/resource-type.ts';

/** Subresources the apiserver serves today, with their verbs and kinds (exported for the aggregated form). */
const SERVED_SUBRESOURCES: Record<string, { verbs: string[]; kind?: string; group?: string; version?: string }> = {
  status: { verbs: ['get', 'patch', 'update'] },
  scale: { verbs: ['get', 'patch', 'update'], kind: 'Scale', group: 'autoscaling', version: 'v1' },
  binding: { verbs: ['create'], kind: 'Binding' },
  eviction: { verbs: ['create'], kind: 'Eviction', group: 'policy', version: 'v1' },
  log: { verbs: ['get'], kind: 'Pod' },
  exec: { verbs: ['create', 'get'], kind: 'PodExecOptions' },
  attach: { verbs: ['create', 'get'], kind: 'PodAttachOptions' },
  portforward: { verbs: ['create', 'get'], kind: 'PodPortForwardOptions' },
  approval: { verbs: ['get', 'patch', 'update'] },
  token: { verbs: ['create'], kind: 'TokenRequest', group: 'authentication.k8s.io', version: 'v1' },
  proxy: { verbs: ['create', 'delete', 'get', 'patch', 'update'] },
  ephemeralcontainers: { verbs: ['get', 'patch', 'update'] },
};

/** The kind a subresource is served as: its own, a proxy's options kind (PodProxyOptions...), else the resource's. */
function subresourceKind(rt: ResourceType, sub: string): string {
  const served = SERVED_SUBRESOURCES[sub];
  if (served?.kind) return served.kind;
  return sub === 'proxy' ? `${rt.kind}ProxyOptions` : rt.kind;
}

/** Verbs of subresources served but not listed in discovery: a Namespace's finalize. */
const UNLISTED_SUBRESOURCE_VERBS: Record<string, string[]> = { finalize: ['update'] };

/** The verbs a subresource serves, as kube lists them; a request with any other verb is a 405. */
export function subresourceVerbs(subresource: string): readonly string[] {
  return SERVED_SUBRESOURCES[subresource]?.verbs ?? UNLISTED_SUBRESOURCE_VERBS[subresource] ?? [];
}

function resourceEntries(rt: ResourceType): object[] {
  const main = {
    name: rt.plural,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: rt.verbs,
    ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
    ...(rt.categories.length ? { categories: rt.categories } : {}),
  };
  const subs: object[] = [];
  for (const sub of rt.subresources) {
    const served = SERVED_SUBRESOURCES[sub];
    if (!served) continue;
    subs.push({
      name: `${rt.plural}/${sub}`,
      singularName: '',
      namespaced: rt.namespaced,
      ...(served.group ? { group: served.group, version: served.version } : {}),
      kind: subresourceKind(rt, sub),
      verbs: served.verbs,
    });
  }
  if (rt.group === '' && rt.plural === 'namespaces') {
    subs.push({ name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] });
  }
  return [main, ...subs];
}

/** The APIResourceList of one group-version, or undefined if it is not served. */
export function apiResourceList(group: string, version: string): object | undefined {
  const rts = allResources().filter((rt) => rt.group === group && rt.version === version);
  if (rts.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: rts.flatMap(resourceEntries),
  };
}

/** The APIVersions document served at /api. */
export function apiVersions(serverAddress: string): object {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(group: string, versions: string[]): object {
  const gvs = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: gvs, preferredVersion: gvs[0] };
}

/** The APIGroupList served at /apis. */
export function apiGroupList(): object {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: apiGroups()
      .filter((g) => g.group !== '')
      .map((g) => groupEntry(g.group, g.versions)),
  };
}

/** The APIGroup served at /apis/<group>, or undefined. */
export function apiGroup(group: string): object | undefined {
  const g = apiGroups().find((x) => x.group === group && group !== '');
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(g.group, g.versions) } : undefined;
}

/** The Content-Type kube answers aggregated discovery with (kubectl requires it exactly). */
export function aggregatedContentType(version: 'v2' | 'v2beta1'): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/** Which aggregated discovery version an Accept header asks for, if any (v2 preferred). */
export function wantsAggregated(accept: string | undefined): 'v2' | 'v2beta1' | undefined {
  if (!accept) return undefined;
  for (const part of accept.split(',')) {
    const params = part.split(';').map((p) => p.trim());
    if (!params.includes('as=APIGroupDiscoveryList') || !params.includes('g=apidiscovery.k8s.io')) continue;
    if (params.includes('v=v2')) return 'v2';
    if (params.includes('v=v2beta1')) return 'v2beta1';
  }
  return undefined;
}

function aggregatedResource(rt: ResourceType): object {
  const subresources: object[] = [];
  for (const sub of rt.subresources) {
    const served = SERVED_SUBRESOURCES[sub];
    if (!served) continue;
    subresources.push({
      subresource: sub,
      responseKind: { group: served.group ?? rt.group, version: served.version ?? rt.version, kind: subresourceKind(rt, sub) },
      verbs: served.verbs,
    });
  }
  if (rt.group === '' && rt.plural === 'namespaces') {
    subresources.push({ subresource: 'finalize', responseKind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: ['update'] });
  }
  return {
    resource: rt.plural,
    responseKind: { group: rt.group, version: rt.version, kind: rt.kind },
    scope: rt.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: rt.singular,
    verbs: rt.verbs,
    ...(rt.shortNames.length ? { shortNames: rt.shortNames } : {}),
    ...(rt.categories.length ? { categories: rt.categories } : {}),
    ...(subresources.length ? { subresources } : {}),
  };
}

/** The APIGroupDiscoveryList for /api (`legacy`) or /apis. */
export function aggregatedDiscovery(legacy: boolean, version: 'v2' | 'v2beta1'): object {
  const items = apiGroups()
    .filter((g) => (legacy ? g.group === '' : g.group !== ''))
    .map((g) => ({
      metadata: { name: g.group, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        resources: allResources()
          .filter((rt) => rt.group === g.group && rt.version === v)
          .map(aggregatedResource),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items };
}
