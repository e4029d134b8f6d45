// The shapes SMD walks an object with, and where they come from: the API
// schema (shared/api/schema) for built-in kinds, a registered resolver for
// others (custom resources), and kube's "deduced" shape for a kind nobody
// describes (maps granular, lists atomic).
import { typeFor, typeForKind, type SchemaField } from '../api/schema/index.ts';

/** A value with no parts of its own: replaced, never merged. */
export interface ScalarAtom {
  kind: 'scalar';
}

/**
 * A list: atomic (replaced as a whole), a set of scalars (items by value), or
 * a keyed list (items by the values of `keys`, as x-kubernetes-list-map-keys or
 * a patch merge key name them).
 */
export interface ListAtom {
  kind: 'list';
  rel: 'atomic' | 'set' | 'map';
  keys: readonly string[];
  item(): Atom;
}

/**
 * A map: a struct (`field` knows its fields) or a map of `elem` values.
 * `atomic` when it is replaced as a whole (x-kubernetes-map-type: atomic).
 */
export interface MapAtom {
  kind: 'map';
  atomic: boolean;
  /** The atom of a declared struct field, undefined for a name the struct does not declare. */
  field(name: string): Atom | undefined;
  /** The atom of any other key's value. */
  elem(): Atom;
}

/** No schema: the value's own JSON type decides (objects granular maps, arrays atomic lists). */
export interface DeducedAtom {
  kind: 'deduced';
}

export type Atom = ScalarAtom | ListAtom | MapAtom | DeducedAtom;

export const SCALAR: ScalarAtom = { kind: 'scalar' };
export const DEDUCED: DeducedAtom = { kind: 'deduced' };

/** Finds the schema of a kind; undefined when it has none (then SMD's deduced shape is used). */
export type SchemaResolver = (apiVersion: string, kind: string) => Atom | undefined;

const SCALAR_SPECIALS = new Set(['Time', 'MicroTime', 'Duration', 'Quantity', 'IntOrString', 'FieldsV1']);

const byType = new Map<string, Atom>();

/** The atom of an API type by its OpenAPI definition name. */
export function atomOfType(name: string): Atom {
  const cached = byType.get(name);
  if (cached) return cached;
  const t = typeFor(name);
  let atom: Atom;
  if (!t) atom = DEDUCED;
  else if (t.special && SCALAR_SPECIALS.has(t.special)) atom = SCALAR;
  else if (t.special === 'ListWrapper') atom = { kind: 'list', rel: 'atomic', keys: [], item: () => SCALAR };
  else if (t.special) atom = DEDUCED;
  else if (t.type !== 'object') atom = SCALAR;
  else if (Object.keys(t.fields).length === 0) atom = DEDUCED;
  else {
    const fields = t.fields;
    const memo = new Map<string, Atom>();
    atom = {
      kind: 'map',
      atomic: t.mapType === 'atomic',
      field(n) {
        if (!Object.hasOwn(fields, n)) return undefined;
        let a = memo.get(n);
        if (!a) memo.set(n, (a = atomOfField(fields[n])));
        return a;
      },
      // A struct holds only its fields: anything else is kept, without a shape.
      elem: () => DEDUCED,
    };
  }
  byType.set(name, atom);
  return atom;
}

/**
 * The atom of one schema field. Lists follow x-kubernetes-list-type, then the
 * patch strategy as kube's OpenAPI-to-SMD conversion reads it ("merge" with a
 * merge key is a keyed list, without one a set); any other list is atomic.
 */
export function atomOfField(f: SchemaField): Atom {
  switch (f.type) {
    case 'ref':
      return f.ref ? atomOfType(f.ref) : DEDUCED;
    case 'array': {
      const items = f.items;
      let item: Atom | undefined;
      const itemAtom = () => (item ??= items ? atomOfField(items) : DEDUCED);
      const merge = (f.patchStrategy ?? '').split(',').includes('merge');
      if (f.listType === 'map' && f.listMapKeys?.length) return { kind: 'list', rel: 'map', keys: f.listMapKeys, item: itemAtom };
      if (f.listType === 'set') return { kind: 'list', rel: 'set', keys: [], item: itemAtom };
      if (f.listType === 'atomic' || !merge) return { kind: 'list', rel: 'atomic', keys: [], item: itemAtom };
      if (f.mergeKey) return { kind: 'list', rel: 'map', keys: [f.mergeKey], item: itemAtom };
      return { kind: 'list', rel: 'set', keys: [], item: itemAtom };
    }
    case 'object': {
      const ap = f.additionalProperties;
      if (!ap) return DEDUCED;
      let elem: Atom | undefined;
      return { kind: 'map', atomic: f.mapType === 'atomic', field: () => undefined, elem: () => (elem ??= atomOfField(ap)) };
    }
    default:
      return SCALAR;
  }
}

/** apiVersion "apps/v1" as group and version. */
function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** The built-in kinds' schemas, from shared/api/schema. */
export const builtinResolver: SchemaResolver = (apiVersion, kind) => {
  const { group, version } = splitApiVersion(apiVersion);
  const t = typeForKind(group, version, kind);
  return t ? atomOfType(t.name) : undefined;
};

const resolvers: SchemaResolver[] = [];

/**
 * Registers a resolver asked before the built-in schemas (the CRD engineer's
 * structural schemas). Returns a function that unregisters it.
 */
export function registerSchemaResolver(r: SchemaResolver): () => void {
  resolvers.unshift(r);
  return () => {
    const i = resolvers.indexOf(r);
    if (i >= 0) resolvers.splice(i, 1);
  };
}

/** The atom of a kind: a registered resolver's, the built-in schema's, or the deduced shape. */
export function schemaFor(apiVersion: string, kind: string): Atom {
  for (const r of resolvers) {
    const a = r(apiVersion, kind);
    if (a) return a;
  }
  return builtinResolver(apiVersion, kind) ?? DEDUCED;
}
