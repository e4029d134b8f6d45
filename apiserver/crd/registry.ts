// The custom resources served now: one ResourceType per served version of
// every Established CRD (named by its accepted names), handed to the
// resource table's dynamic part (shared/api/resources.ts) so that routing,
// discovery, RBAC, OpenAPI and every lookup see them; and, for each, the
// CRD version behind it (schema, subresources, printer columns).
import { setDynamicResources } from '../../shared/api/resources.ts';
import { STANDARD_VERBS, type FieldGetter, type ResourceType, type Subresource } from '../../shared/api/resource-type.ts';
import { evalJsonPath } from './jsonpath.ts';
import { servedVersions, storageVersion, type CRDVersion, type CustomResourceDefinition } from './crd.ts';
import type { JSONSchemaProps } from './schema/index.ts';

/** What the apiserver knows of one served custom resource version. */
export interface CustomResourceInfo {
  rt: ResourceType;
  crd: CustomResourceDefinition;
  version: CRDVersion;
  /** The storage version's name: objects are stored with its apiVersion. */
  storageVersion: string;
  schema: JSONSchemaProps | undefined;
  /** The CRD is being deleted: creates are refused. */
  terminating: boolean;
}

const byResource = new Map<ResourceType, CustomResourceInfo>();
/** The same infos by group/version/plural: a request that looked its ResourceType up before a CRD reconcile replaced it still finds it. */
const byName = new Map<string, CustomResourceInfo>();
const nameOf = (rt: ResourceType) => `${rt.group}/${rt.version}/${rt.plural}`;
const byCRD = new Map<string, CustomResourceInfo[]>();

/** Field selector values as kube renders them from selectableFields. */
function selectable(version: CRDVersion): Record<string, FieldGetter> {
  const out: Record<string, FieldGetter> = {};
  for (const f of version.selectableFields ?? []) {
    if (!f.jsonPath) continue;
    const path = f.jsonPath;
    out[path.replace(/^\./, '')] = (obj) => {
      const [v] = evalJsonPath(obj, path);
      if (v === undefined || v === null) return '';
      return typeof v === 'string' ? v : JSON.stringify(v);
    };
  }
  return out;
}

function resourcesOf(crd: CustomResourceDefinition): CustomResourceInfo[] {
  const names = crd.status?.acceptedNames ?? {};
  const group = crd.spec?.group ?? '';
  if (!names.plural || !names.kind) return [];
  const stored = storageVersion(crd)?.name ?? '';
  return servedVersions(crd).map((v) => {
    const subresources: Subresource[] = [];
    if (v.subresources?.status) subresources.push('status');
    if (v.subresources?.scale) subresources.push('scale');
    const rt: ResourceType = {
      group,
      version: v.name!,
      kind: names.kind!,
      listKind: names.listKind ?? `${names.kind}List`,
      plural: names.plural!,
      singular: names.singular ?? names.kind!.toLowerCase(),
      namespaced: crd.spec?.scope === 'Namespaced',
      shortNames: names.shortNames ?? [],
      categories: names.categories ?? [],
      subresources,
      selectableFields: selectable(v),
      storagePrefix: `/registry/${group}/${names.plural}`,
      verbs: STANDARD_VERBS,
    };
    return {
      rt,
      crd,
      version: v,
      storageVersion: stored,
      schema: v.schema?.openAPIV3Schema,
      terminating: crd.metadata.deletionTimestamp !== undefined,
    };
  });
}

/** Serves `crds` (the Established ones, by name) from now on, replacing what was served. */
export function serveCRDs(crds: Iterable<CustomResourceDefinition>): void {
  byResource.clear();
  byName.clear();
  byCRD.clear();
  const all: ResourceType[] = [];
  for (const crd of crds) {
    const infos = resourcesOf(crd);
    byCRD.set(crd.metadata.name ?? '', infos);
    for (const info of infos) {
      byResource.set(info.rt, info);
      byName.set(nameOf(info.rt), info);
      all.push(info.rt);
    }
  }
  setDynamicResources(all);
}

/**
 * The custom resource behind `rt`, if it is one being served. Every CRD
 * reconcile makes new ResourceType objects; one a request resolved before
 * (and holds across an await) is found by its name.
 */
export function customResourceInfo(rt: ResourceType): CustomResourceInfo | undefined {
  return byResource.get(rt) ?? (rt.group ? byName.get(nameOf(rt)) : undefined);
}

/** The custom resource served as `apiVersion` (group/version) and `kind`. */
export function findResourceByKindAndVersion(apiVersion: string, kind: string): CustomResourceInfo | undefined {
  for (const info of byResource.values()) if (info.rt.kind === kind && `${info.rt.group}/${info.rt.version}` === apiVersion) return info;
  return undefined;
}

/** What is served for the CRD named `name`. */
export function servedForCRD(name: string): readonly CustomResourceInfo[] {
  return byCRD.get(name) ?? [];
}
