// The API schema compiled into what kube's JSON decoder needs to know about a
// Go type: which JSON values it takes, the Go struct names and type names it
// prints in type errors, and which types decode themselves (Quantity,
// IntOrString, Time, RawExtension...). Built lazily, one node per type.
import { readFileSync } from 'node:fs';
import { typeFor, type SchemaField, type SchemaType } from '../../shared/api/schema/index.ts';

/** How a Go type decodes from JSON, with the name reflect prints for it. */
export type DecodeNode =
  | StructNode
  | { kind: 'map'; go: string; elem: DecodeNode }
  | { kind: 'slice'; go: string; elem: DecodeNode }
  | { kind: 'bytes'; go: string }
  | { kind: 'string'; go: string }
  | { kind: 'int'; go: string; bits: 8 | 32 | 64; unsigned: boolean }
  | { kind: 'float'; go: string }
  | { kind: 'bool'; go: string }
  | { kind: 'quantity'; go: string }
  | { kind: 'intOrString'; go: string }
  | { kind: 'time'; go: string; micro: boolean }
  /** RawExtension, FieldsV1 and schemaless objects: whatever JSON value they hold, kept as is. */
  | { kind: 'raw'; go: string };

/** A Go struct: its JSON fields, and its bare name (reflect Name) for error context. */
export interface StructNode {
  kind: 'struct';
  go: string;
  name: string;
  /** JSON name -> field; filled on first use, so recursive types work. */
  fields(): Map<string, DecodeNode>;
}

interface GoTypesFile {
  types: Record<string, Record<string, string[]>>;
}

let goTypes: GoTypesFile['types'] | undefined;

/** Go type names that differ from what the OpenAPI schema implies (see scripts/derive-go-types.mjs). */
function goTypeOverrides(): GoTypesFile['types'] {
  goTypes ??= (JSON.parse(readFileSync(new URL('./go-types.json', import.meta.url), 'utf8')) as GoTypesFile).types;
  return goTypes;
}

/** "io.k8s.api.apps.v1.DeploymentSpec" -> "v1.DeploymentSpec", as reflect prints it. */
export function goNameOfDefinition(definition: string): string {
  const parts = definition.split('.');
  return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
}

/** The Go type name the schema alone implies for a field. */
export function defaultGoName(f: SchemaField): string {
  switch (f.type) {
    case 'integer':
      return f.format === 'int64' ? 'int64' : 'int32';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'string':
      return f.format === 'byte' ? '[]uint8' : 'string';
    case 'ref':
      return goNameOfDefinition(f.ref ?? '');
    case 'array':
      return '[]' + (f.items ? defaultGoName(f.items) : 'interface {}');
    case 'object':
      return f.additionalProperties ? 'map[string]' + defaultGoName(f.additionalProperties) : 'interface {}';
  }
}

const byDefinition = new Map<string, DecodeNode>();

/** The node for a top-level type (a served kind). */
export function nodeForType(t: SchemaType): DecodeNode {
  return nodeForDefinition(t.name);
}

function nodeForDefinition(definition: string): DecodeNode {
  const cached = byDefinition.get(definition);
  if (cached) return cached;
  const t = typeFor(definition);
  const go = goNameOfDefinition(definition);
  let node: DecodeNode;
  if (!t) node = { kind: 'raw', go };
  else {
    switch (t.special) {
      case 'Quantity':
        node = { kind: 'quantity', go };
        break;
      case 'IntOrString':
        node = { kind: 'intOrString', go };
        break;
      case 'Time':
        node = { kind: 'time', go, micro: false };
        break;
      case 'MicroTime':
        node = { kind: 'time', go, micro: true };
        break;
      case 'ListWrapper':
        node = { kind: 'slice', go, elem: t.items ? fieldNode(t.items, undefined, 0) : { kind: 'raw', go: 'interface {}' } };
        break;
      case 'RawExtension':
      case 'FieldsV1':
      case 'Unknown':
        node = { kind: 'raw', go };
        break;
      case 'Duration':
        // metav1.Duration decodes from a Go duration string; no served type has one.
        node = { kind: 'string', go };
        break;
      default:
        node = structNode(t, go);
    }
  }
  byDefinition.set(definition, node);
  return node;
}

function structNode(t: SchemaType, go: string): StructNode {
  let fields: Map<string, DecodeNode> | undefined;
  return {
    kind: 'struct',
    go,
    name: t.name.slice(t.name.lastIndexOf('.') + 1),
    fields() {
      if (fields) return fields;
      fields = new Map();
      const overrides = goTypeOverrides()[t.name];
      for (const [name, f] of Object.entries(t.fields)) fields.set(name, fieldNode(f, overrides?.[name], 0));
      return fields;
    },
  };
}

/** The node of a field (or of its items / values at `depth` below the field). */
function fieldNode(f: SchemaField, names: string[] | undefined, depth: number): DecodeNode {
  const go = names?.[depth] ?? defaultGoName(f);
  switch (f.type) {
    case 'integer':
      return { kind: 'int', go, bits: f.format === 'int64' ? 64 : 32, unsigned: false };
    case 'number':
      return { kind: 'float', go };
    case 'boolean':
      return { kind: 'bool', go };
    case 'string':
      return f.format === 'byte' ? { kind: 'bytes', go } : { kind: 'string', go };
    case 'ref': {
      const node = nodeForDefinition(f.ref ?? '');
      // A named type keeps its decoding but prints the name this field declares.
      return node.go === go ? node : { ...node, go };
    }
    case 'array':
      return { kind: 'slice', go, elem: f.items ? fieldNode(f.items, names, depth + 1) : { kind: 'raw', go: 'interface {}' } };
    case 'object':
      return f.additionalProperties ? { kind: 'map', go, elem: fieldNode(f.additionalProperties, names, depth + 1) } : { kind: 'raw', go };
  }
}

/** A []uint8 decodes from a JSON array too, one uint8 per element. */
export const UINT8: DecodeNode = { kind: 'int', go: 'uint8', bits: 8, unsigned: true };
