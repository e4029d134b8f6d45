// The one schema of the API types ksim serves, read from types.json (derived
// by scripts/derive-schema.mjs from Kubernetes v1.35's OpenAPI v2 document and
// generated.proto files). OpenAPI documents, protobuf decoding, field
// validation and strategic-merge-patch keys are all derived from it.
import { readFileSync } from 'node:fs';

/** A JSON type as OpenAPI names it, plus 'ref' for a field that names another type. */
export type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'ref';

/** Protobuf wire types that occur in Kubernetes messages. */
export type WireType = 'varint' | 'fixed64' | 'bytes' | 'fixed32';

/** Protobuf scalar types. */
export type ProtoScalar =
  | 'double'
  | 'float'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'uint64'
  | 'sint32'
  | 'sint64'
  | 'bool'
  | 'fixed32'
  | 'fixed64'
  | 'sfixed32'
  | 'sfixed64'
  | 'string'
  | 'bytes';

/**
 * How a field is written in protobuf (proto2, as go-to-protobuf writes it).
 * Repeated scalars are written unpacked (one tag per element); a decoder
 * should accept the packed form too. int32/int64 are plain varints (a
 * negative int32 takes ten bytes), never zigzag.
 */
export interface ProtoField {
  /** Field number. */
  n: number;
  wire: WireType;
  /** A scalar, 'message' (see `message`) or 'map' (see `map`). */
  type: ProtoScalar | 'message' | 'map';
  /** Full message name, e.g. "k8s.io.api.core.v1.Container", when type is 'message'. */
  message?: string;
  /** Set for a repeated field (a JSON array). */
  repeated?: true;
  /**
   * For a map field (a JSON object with additionalProperties): each entry is
   * a message {key = 1, value = 2}. value is a scalar, or 'message' with the
   * full message name in `message` (e.g. Quantity, ExtraValue).
   */
  map?: { key: ProtoScalar; value: ProtoScalar | 'message'; message?: string };
  /**
   * Present when the field sits inside Go structs embedded with
   * json:",inline": the field numbers, outermost first, of the embedded
   * messages that hold it. E.g. Probe.httpGet is field 2 of ProbeHandler,
   * which is field 1 of Probe: { n: 2, via: [1] }.
   */
  via?: number[];
}

/** One JSON property (or the items / values of an array / map). */
export interface SchemaField {
  type: JsonType;
  /** OpenAPI format of a scalar: int32, int64 or byte (base64). */
  format?: string;
  /** Definition name of the referenced type when type is 'ref'. */
  ref?: string;
  /** Allowed values (OpenAPI enum, as a live server serves it). */
  enum?: string[];
  /** Element schema of an array. */
  items?: SchemaField;
  /** Value schema of a map (keys are always strings). */
  additionalProperties?: SchemaField;
  /** x-kubernetes-patch-merge-key: the key that identifies list elements in a strategic merge patch. */
  mergeKey?: string;
  /** x-kubernetes-patch-strategy: "merge", "retainKeys" or "merge,retainKeys". */
  patchStrategy?: string;
  /** x-kubernetes-list-type. */
  listType?: 'atomic' | 'set' | 'map';
  /** x-kubernetes-list-map-keys (with listType 'map'). */
  listMapKeys?: string[];
  /** x-kubernetes-map-type. */
  mapType?: 'atomic' | 'granular';
  /** Protobuf field; absent for apiVersion and kind, which protobuf carries in the Unknown envelope. */
  proto?: ProtoField;
}

/** A Kubernetes group, version and kind. The core group is "". */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/**
 * Types whose JSON form is not a plain object of their protobuf fields:
 * Time / MicroTime (RFC 3339 string; proto seconds + nanos), Duration (Go
 * duration string; proto int64 nanoseconds), Quantity (string; proto string
 * = 1), IntOrString (number or string; proto type = 1, intVal = 2, strVal =
 * 3), RawExtension and FieldsV1 (embedded JSON; proto raw bytes), Unknown
 * (the protobuf body envelope), ListWrapper (a named []string such as
 * ExtraValue: a JSON array, in proto a message with repeated items = 1).
 */
export type SpecialKind =
  'Time' | 'MicroTime' | 'Duration' | 'Quantity' | 'IntOrString' | 'RawExtension' | 'FieldsV1' | 'Unknown' | 'ListWrapper';

/** A Go struct embedded with json:",inline", which protobuf keeps as one message field. */
export interface ProtoEmbedded {
  /** Field number in the outer message (or in the embedded message named by via). */
  n: number;
  /** Proto field name, e.g. "volumeSource". */
  name: string;
  /** Full message name, e.g. "k8s.io.api.core.v1.VolumeSource". */
  message: string;
  via?: number[];
}

/** One API type, keyed by its OpenAPI definition name (e.g. "io.k8s.api.core.v1.PodSpec"). */
export interface SchemaType {
  /** The OpenAPI definition name (filled in by the loader). */
  name: string;
  /** JSON type of a whole value: 'object' for structs, 'string' for Time / Quantity / IntOrString, 'array' for list wrappers. */
  type: 'object' | 'string' | 'array';
  format?: string;
  /** Our own one-line description, for top-level kinds only. */
  description?: string;
  /** The kinds this type is served as (cut to the group-versions ksim serves). */
  gvk?: GroupVersionKind[];
  required?: string[];
  /** x-kubernetes-map-type of the whole struct (e.g. LabelSelector is 'atomic'). */
  mapType?: 'atomic' | 'granular';
  /** x-kubernetes-unions, as OpenAPI lists them. */
  unions?: { discriminator: string; 'fields-to-discriminateBy': Record<string, string> }[];
  /** JSON properties by JSON name. Empty for special types. */
  fields: Record<string, SchemaField>;
  /** Full protobuf message name; absent for meta/v1 Patch, which has none. */
  proto?: string;
  /** Embedded (inlined) messages whose fields appear as this type's JSON properties. */
  protoEmbedded?: ProtoEmbedded[];
  /** Set for types with a custom JSON or protobuf form (see SpecialKind). */
  special?: SpecialKind;
  /** How a special type is written in JSON and read from protobuf. */
  jsonNote?: string;
  /** OpenAPI v3 writes these types as oneOf of these JSON types (Quantity, IntOrString). */
  v3OneOf?: string[];
  /** Protobuf message fields of a special type, by proto field name. */
  protoFields?: Record<string, ProtoField>;
  /** Element schema of a ListWrapper. */
  items?: SchemaField;
  /** True when OpenAPI has no definition of this name (proto-only messages, Duration). */
  synthetic?: true;
}

/** Where the facts in types.json came from. */
export interface SchemaSource {
  kubernetes: string;
  origin: string[];
  swagger: { ref?: string; commit?: string; path?: string; sha256: string };
  api: { ref?: string; commit?: string };
  apimachinery: { ref?: string; commit?: string };
  protoFiles: Record<string, string>;
  note: string;
}

interface SchemaFile {
  source: SchemaSource;
  types: Record<string, SchemaType>;
}

interface Loaded {
  file: SchemaFile;
  byKind: Map<string, SchemaType>;
  byProto: Map<string, SchemaType>;
  byNumber: Map<string, Map<string, { name: string; field: SchemaField }>>;
}

let loaded: Loaded | undefined;

/** Reads and indexes types.json once, on first use. */
function load(): Loaded {
  if (loaded) return loaded;
  const file = JSON.parse(readFileSync(new URL('./types.json', import.meta.url), 'utf8')) as SchemaFile;
  const byKind = new Map<string, SchemaType>();
  const byProto = new Map<string, SchemaType>();
  const byNumber = new Map<string, Map<string, { name: string; field: SchemaField }>>();
  for (const [name, t] of Object.entries(file.types)) {
    t.name = name;
    for (const g of t.gvk ?? []) byKind.set(gvkKey(g.group, g.version, g.kind), t);
    if (t.proto) byProto.set(t.proto, t);
    const numbers = new Map<string, { name: string; field: SchemaField }>();
    for (const [jsonName, field] of Object.entries(t.fields)) {
      if (field.proto) numbers.set(numberKey(field.proto.n, field.proto.via), { name: jsonName, field });
    }
    byNumber.set(name, numbers);
  }
  loaded = { file, byKind, byProto, byNumber };
  return loaded;
}

const gvkKey = (group: string, version: string, kind: string): string => `${group}/${version}/${kind}`;
const numberKey = (n: number, via: readonly number[] = []): string => [...via, n].join('.');

/** The type with this OpenAPI definition name, e.g. "io.k8s.api.core.v1.PodSpec". */
export function typeFor(name: string): SchemaType | undefined {
  return load().file.types[name];
}

/** The top-level type served as this kind; the core group is "". */
export function typeForKind(group: string, version: string, kind: string): SchemaType | undefined {
  return load().byKind.get(gvkKey(group, version, kind));
}

/** One JSON property of a type, by JSON name. */
export function fieldOf(typeName: string, jsonField: string): SchemaField | undefined {
  const t = typeFor(typeName);
  return t && Object.hasOwn(t.fields, jsonField) ? t.fields[jsonField] : undefined;
}

/** The type whose protobuf message has this full name, e.g. "k8s.io.api.core.v1.Pod". */
export function typeForProto(message: string): SchemaType | undefined {
  return load().byProto.get(message);
}

/**
 * The JSON property a protobuf field number stands for. `via` is the path of
 * embedded-message field numbers when decoding inside an inlined struct (see
 * ProtoField.via); omit it at the top level of the message.
 */
export function fieldByNumber(typeName: string, n: number, via: readonly number[] = []): { name: string; field: SchemaField } | undefined {
  return load().byNumber.get(typeName)?.get(numberKey(n, via));
}

/**
 * The field at a path of JSON property names below a type, following refs.
 * Arrays are stepped through (a path names properties, not indexes) and a
 * segment below a map is taken as a key. Example: fieldAt(deployment,
 * ['spec', 'template', 'spec', 'containers']).
 */
export function fieldAt(typeName: string, path: readonly string[]): SchemaField | undefined {
  let field: SchemaField | undefined;
  let current: string | undefined = typeName;
  for (const segment of path) {
    if (field) {
      let f: SchemaField | undefined = field;
      while (f?.type === 'array') f = f.items;
      if (f?.type === 'object' && f.additionalProperties) {
        field = f.additionalProperties;
        continue;
      }
      current = f?.type === 'ref' ? f.ref : undefined;
    }
    if (!current) return undefined;
    field = fieldOf(current, segment);
    if (!field) return undefined;
  }
  return field;
}

/** Every type, by definition name. */
export function allTypes(): Readonly<Record<string, SchemaType>> {
  return load().file.types;
}

/** Where the schema came from: Kubernetes version, commits and file hashes. */
export function schemaSource(): SchemaSource {
  return load().file.source;
}
