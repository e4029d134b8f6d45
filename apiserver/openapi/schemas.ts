// Turns the API type schema (shared/api/schema) into OpenAPI schema objects:
// Swagger 2.0 definitions for /openapi/v2 and OpenAPI 3.0 components for
// /openapi/v3, written the way kube-openapi writes them, so that kubectl
// explain, client-side apply (strategic merge patch keys) and generated
// clients read them as they read a real apiserver's.
import { allTypes, typeFor, type GroupVersionKind, type SchemaField, type SchemaType } from '../../shared/api/schema/index.ts';
import { described, fieldDescription, typeDescription } from '../../shared/api/schema/descriptions/index.ts';

/** Which OpenAPI dialect a schema is written for. */
export type Dialect = 'v2' | 'v3';

/** A JSON object as OpenAPI documents hold them. */
export type Json = Record<string, unknown>;

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Definition names every group-version document carries besides its kinds (operation bodies and responses). */
export const COMMON_DEFINITIONS = [`${META}.DeleteOptions`, `${META}.Status`, `${META}.WatchEvent`, `${META}.Patch`];

/** The `$ref` string pointing at a definition. */
export function refTo(name: string, dialect: Dialect): string {
  return dialect === 'v2' ? `#/definitions/${name}` : `#/components/schemas/${name}`;
}

/** x-kubernetes-group-version-kind as kube writes it (keys group, kind, version). */
export function gvkExtension(g: GroupVersionKind): Json {
  return { group: g.group, kind: g.kind, version: g.version };
}

/** Whether a definition is a plain struct (an object with properties), as opposed to a special scalar. */
function isStruct(t: SchemaType | undefined): boolean {
  return !!t && t.type === 'object' && !t.special && !t.synthetic;
}

/**
 * kube-openapi writes `default: {}` on struct fields that are Go values
 * rather than pointers. The schema does not record pointer-ness, so this
 * approximates it: metadata, spec and status of a kind, and required struct
 * fields other than label selectors (which are always pointers).
 */
function structDefault(owner: SchemaType, prop: string, ref: string): boolean {
  if (!isStruct(typeFor(ref))) return false;
  if (prop === 'metadata') return true;
  if (owner.gvk && (prop === 'spec' || prop === 'status')) return true;
  return !!owner.required?.includes(prop) && ref !== `${META}.LabelSelector`;
}

/** The inline schema of a type that has no definition of its own (Duration, ExtraValue). */
function inlineSynthetic(t: SchemaType, dialect: Dialect): Json {
  if (t.special === 'ListWrapper' && t.items) return { type: 'array', items: fieldSchema(t.items, dialect, { element: true }) };
  return t.format ? { type: t.type, format: t.format } : { type: t.type };
}

interface FieldContext {
  /** The field is an array element or a map value (kube gives those zero-value defaults). */
  element?: boolean;
  /** Write `default: {}` on this struct reference (v3 only). */
  structDefault?: boolean;
  /** The field is a property (kube wraps property refs in allOf in v3, as they carry a description). */
  property?: boolean;
}

function extensions(f: SchemaField): Json {
  const x: Json = {};
  if (f.mergeKey) x['x-kubernetes-patch-merge-key'] = f.mergeKey;
  if (f.patchStrategy) x['x-kubernetes-patch-strategy'] = f.patchStrategy;
  if (f.listType) x['x-kubernetes-list-type'] = f.listType;
  if (f.listMapKeys) x['x-kubernetes-list-map-keys'] = [...f.listMapKeys];
  if (f.mapType) x['x-kubernetes-map-type'] = f.mapType;
  return x;
}

/** The OpenAPI schema of one property, array element or map value. */
export function fieldSchema(f: SchemaField, dialect: Dialect, ctx: FieldContext = {}): Json {
  const ext = extensions(f);
  if (f.type === 'ref') {
    const name = f.ref!;
    const target = typeFor(name);
    if (target?.synthetic) return { ...inlineSynthetic(target, dialect), ...ext };
    if (dialect === 'v2') return { $ref: refTo(name, 'v2'), ...ext };
    const withDefault = !!ctx.structDefault || (!!ctx.element && isStruct(target));
    if (!ctx.property && !withDefault && Object.keys(ext).length === 0) return { $ref: refTo(name, 'v3') };
    return { allOf: [{ $ref: refTo(name, 'v3') }], ...(withDefault ? { default: {} } : {}), ...ext };
  }
  const out: Json = { type: f.type };
  if (f.format) out.format = f.format;
  if (f.enum) out.enum = [...f.enum];
  if (f.type === 'array' && f.items) out.items = fieldSchema(f.items, dialect, { element: true });
  if (f.type === 'object' && f.additionalProperties)
    out.additionalProperties = fieldSchema(f.additionalProperties, dialect, { element: true });
  // Go value elements ([]string, map[string]int32) get their zero value as default in v3; []byte does not.
  if (dialect === 'v3' && ctx.element && !f.format?.startsWith('byte')) {
    if (f.type === 'string') out.default = '';
    else if (f.type === 'integer' || f.type === 'number') out.default = 0;
    else if (f.type === 'boolean') out.default = false;
  }
  return { ...out, ...ext };
}

const JSON_SPECIALS = new Set(['JSON', 'JSONSchemaPropsOrArray', 'JSONSchemaPropsOrBool', 'JSONSchemaPropsOrStringArray']);

/** The schema of a special (non-struct) type, e.g. Time, IntOrString, Quantity. */
function specialSchema(t: SchemaType, dialect: Dialect): Json {
  // apiextensions' JSON and JSONSchemaPropsOr* hold several JSON types: kube-openapi gives them no type at all.
  if (t.special && JSON_SPECIALS.has(t.special)) return {};
  if (dialect === 'v3' && t.v3OneOf) {
    return { ...(t.format ? { format: t.format } : {}), oneOf: t.v3OneOf.map((type) => ({ type })) };
  }
  if (t.special === 'ListWrapper' && t.items) return { type: 'array', items: fieldSchema(t.items, dialect, { element: true }) };
  return t.format ? { type: t.type, format: t.format } : { type: t.type };
}

/** The definition (v2) or component schema (v3) of one type. */
export function definitionSchema(t: SchemaType, dialect: Dialect): Json {
  const out: Json = described(typeDescription(t.name), {});
  if (t.special) Object.assign(out, specialSchema(t, dialect));
  else {
    const properties: Json = {};
    for (const [prop, f] of Object.entries(t.fields)) {
      const sd = f.type === 'ref' && structDefault(t, prop, f.ref!);
      properties[prop] = described(fieldDescription(t.name, prop), fieldSchema(f, dialect, { property: true, structDefault: sd }));
    }
    out.type = t.type;
    if (Object.keys(properties).length > 0) out.properties = properties;
    if (t.required?.length) out.required = [...t.required];
  }
  if (t.mapType) out['x-kubernetes-map-type'] = t.mapType;
  if (t.unions) out['x-kubernetes-unions'] = structuredClone(t.unions);
  if (t.gvk?.length) out['x-kubernetes-group-version-kind'] = t.gvk.map(gvkExtension);
  return out;
}

function collectRefs(f: SchemaField | undefined, into: string[]): void {
  if (!f) return;
  if (f.type === 'ref' && f.ref) into.push(f.ref);
  collectRefs(f.items, into);
  collectRefs(f.additionalProperties, into);
}

/**
 * Every definition name reachable from `roots` through properties, array
 * elements and map values, sorted. Synthetic types are written inline and
 * so are not definitions.
 */
export function reachableDefinitions(roots: Iterable<string>): string[] {
  const types = allTypes();
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (seen.has(name)) continue;
    const t = types[name];
    if (!t) throw new Error(`openapi: no schema for ${name}`);
    if (t.synthetic) continue;
    seen.add(name);
    const refs: string[] = [];
    for (const f of Object.values(t.fields)) collectRefs(f, refs);
    collectRefs(t.items, refs);
    stack.push(...refs);
  }
  return [...seen].sort();
}

/** The definitions (v2) or component schemas (v3) for these names. */
export function definitionsFor(names: Iterable<string>, dialect: Dialect): Json {
  const out: Json = {};
  for (const name of names) out[name] = definitionSchema(typeFor(name)!, dialect);
  return out;
}
