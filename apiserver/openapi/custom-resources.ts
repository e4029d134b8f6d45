// Custom resources in the OpenAPI documents, as kube-apiserver's CRD
// OpenAPI controller publishes them: each served CRD version's schema as a
// definition named by the reversed group (stable.example.com/v1 CronTab is
// com.example.stable.v1.CronTab), with apiVersion, kind and an ObjectMeta
// metadata; its list; and the paths of the resource. The documents are
// derived again whenever the served custom resources change.
import { allResources, dynamicResourcesGeneration, isDynamicResource, RESOURCES } from '../../shared/api/resources.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { customResourceInfo } from '../crd/registry.ts';
import { definitionsFor, reachableDefinitions, refTo, type Dialect, type Json } from './schemas.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const OBJECT_META = `${META}.ObjectMeta`;
const LIST_META = `${META}.ListMeta`;

const staticGroupVersions = new Set(RESOURCES.map((rt) => `${rt.group}/${rt.version}`));

/** Whether a group-version is served only by custom resources. */
export function isCustomGroupVersion(group: string, version: string): boolean {
  return !staticGroupVersions.has(`${group}/${version}`);
}

/** The definition name kube gives a custom kind: the group reversed, the version, the kind. */
export function customDefinitionName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

interface CustomDefinition {
  rt: ResourceType;
  list: boolean;
}

let index: { gen: number; byName: Map<string, CustomDefinition> } | undefined;

function definitions(): Map<string, CustomDefinition> {
  const gen = dynamicResourcesGeneration();
  if (index?.gen !== gen) {
    const byName = new Map<string, CustomDefinition>();
    for (const rt of allResources()) {
      if (!isDynamicResource(rt)) continue;
      byName.set(customDefinitionName(rt.group, rt.version, rt.kind), { rt, list: false });
      byName.set(customDefinitionName(rt.group, rt.version, rt.listKind), { rt, list: true });
    }
    index = { gen, byName };
  }
  return index.byName;
}

/** The definition of a custom kind or list kind, undefined for anything else. */
export function customDefinitionOf(group: string, version: string, kind: string): string | undefined {
  const name = customDefinitionName(group, version, kind);
  return definitions().has(name) ? name : undefined;
}

/** A CRD schema node as an OpenAPI schema of `dialect`: v2 has no nullable and no anyOf/oneOf/not. */
function convert(s: unknown, dialect: Dialect): unknown {
  if (Array.isArray(s)) return s.map((x) => convert(x, dialect));
  if (!s || typeof s !== 'object') return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s as Json)) {
    if (k === 'x-kubernetes-validations') continue;
    if (dialect === 'v2' && (k === 'nullable' || k === 'anyOf' || k === 'oneOf' || k === 'not')) continue;
    if (k === 'properties' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([p, sub]) => [p, convert(sub, dialect)]));
    } else if (k === 'items' || k === 'additionalProperties' || k === 'allOf' || k === 'anyOf' || k === 'oneOf' || k === 'not') {
      out[k] = convert(v, dialect);
    } else out[k] = v;
  }
  return out;
}

const API_VERSION = {
  description: 'The versioned schema of this object: the API group and version it is written in, for example stable.example.com/v1.',
  type: 'string',
};
const KIND = { description: 'The kind of object this is, in CamelCase, for example CronTab.', type: 'string' };

function kindSchema(rt: ResourceType, dialect: Dialect): Json {
  const schema = (convert(customResourceInfo(rt)?.schema ?? { type: 'object' }, dialect) ?? {}) as Json;
  const props = (schema.properties ?? {}) as Json;
  return {
    ...schema,
    type: 'object',
    properties: {
      ...props,
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: dialect === 'v2' ? { $ref: refTo(OBJECT_META, dialect) } : { allOf: [{ $ref: refTo(OBJECT_META, dialect) }], default: {} },
    },
    'x-kubernetes-group-version-kind': [{ group: rt.group, kind: rt.kind, version: rt.version }],
  };
}

function listSchema(rt: ResourceType, dialect: Dialect): Json {
  return {
    description: `${rt.listKind} is a list of ${rt.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: API_VERSION,
      items: {
        description: `List of ${rt.plural}.`,
        type: 'array',
        items: { $ref: refTo(customDefinitionName(rt.group, rt.version, rt.kind), dialect) },
      },
      kind: KIND,
      metadata: dialect === 'v2' ? { $ref: refTo(LIST_META, dialect) } : { allOf: [{ $ref: refTo(LIST_META, dialect) }], default: {} },
    },
    'x-kubernetes-group-version-kind': [{ group: rt.group, kind: rt.listKind, version: rt.version }],
  };
}

/**
 * The definitions for `roots` (what a document's operations name) and
 * everything they reach: the built-in ones from the API schema, the custom
 * ones from their CRDs.
 */
export function definitionsWithCustom(roots: Iterable<string>, dialect: Dialect): Json {
  const builtin: string[] = [];
  const custom: string[] = [];
  const known = definitions();
  for (const r of roots) (known.has(r) ? custom : builtin).push(r);
  if (custom.length) builtin.push(OBJECT_META, LIST_META);
  const out = definitionsFor(reachableDefinitions(builtin), dialect);
  for (const name of custom.sort()) {
    const d = known.get(name)!;
    out[name] = d.list ? listSchema(d.rt, dialect) : kindSchema(d.rt, dialect);
  }
  return out;
}
