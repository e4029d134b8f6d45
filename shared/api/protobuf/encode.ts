// Encodes a plain JSON API object as application/vnd.kubernetes.protobuf,
// byte for byte as kube's Go code would after reading the same JSON: fields
// in field-number order, every non-pointer field written (zero or not),
// pointers only when set, map keys sorted, repeated scalars unpacked, inside
// the "k8s\0" + runtime.Unknown envelope.
import { typeForKind, typeForProto, type ProtoField, type SchemaField, type SchemaType } from '../schema/index.ts';
import { compareGoStrings, KUBE_PROTOBUF_MAGIC } from './decode.ts';
import { ProtobufEncodeError } from './errors.ts';
import { isObject } from '../../patch/go-format.ts';
import { goFieldsOf, type GoField } from './go-fields.ts';
import { parseDuration, parseTime } from './special.ts';
import { WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT, Writer } from './wire.ts';

/**
 * Encodes an object with apiVersion and kind as a kube protobuf body.
 * Throws ProtobufEncodeError for an unknown kind or a value of the wrong type.
 */
export function encodeKubeProtobuf(obj: unknown): Buffer {
  if (!isObject(obj)) throw new ProtobufEncodeError('not an object');
  const { apiVersion, kind } = obj;
  if (typeof kind !== 'string' || !kind) throw new ProtobufEncodeError("Object 'Kind' is missing");
  if (typeof apiVersion !== 'string') throw new ProtobufEncodeError("Object 'apiVersion' is missing");
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash >= 0 ? [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)] : ['', apiVersion];
  const t = typeForKind(group, version, kind);
  if (!t) throw new ProtobufEncodeError(`no kind "${kind}" is registered for version "${apiVersion}"`);
  const raw = encodeStruct(t, obj, kind);
  const typeMeta = new Writer().tag(1, WIRE_BYTES).string(apiVersion).tag(2, WIRE_BYTES).string(kind);
  const w = new Writer().raw(KUBE_PROTOBUF_MAGIC);
  w.tag(1, WIRE_BYTES).bytes(typeMeta.finish());
  w.tag(2, WIRE_BYTES).bytes(raw);
  // contentEncoding and contentType: empty, but written, as Go writes them.
  w.tag(3, WIRE_BYTES).bytes(new Uint8Array(0));
  w.tag(4, WIRE_BYTES).bytes(new Uint8Array(0));
  const out = w.finish();
  return Buffer.from(out.buffer, out.byteOffset, out.length);
}

function encodeStruct(t: SchemaType, o: unknown, path: string): Uint8Array {
  if (o !== undefined && o !== null && !isObject(o)) throw new ProtobufEncodeError(`expected an object, got ${describe(o)}`, path);
  const goFields = new Map<string, GoField>((t.proto ? goFieldsOf(t.proto) : undefined)?.map((g) => [g.name, g]) ?? []);
  return encodeFrame(t, o ?? {}, [], goFields, path);
}

/** One message frame of a struct: its own fields at this `via`, and the embedded structs there. */
function encodeFrame(t: SchemaType, o: Record<string, unknown>, via: number[], goFields: Map<string, GoField>, path: string): Uint8Array {
  const items: { n: number; name?: string; field?: SchemaField }[] = [];
  for (const [name, field] of Object.entries(t.fields)) {
    if (field.proto && sameVia(field.proto.via, via)) items.push({ n: field.proto.n, name, field });
  }
  for (const e of t.protoEmbedded ?? []) if (sameVia(e.via, via)) items.push({ n: e.n });
  items.sort((a, b) => a.n - b.n);
  const w = new Writer();
  for (const item of items) {
    if (!item.field) {
      // An embedded Go struct is never nil: always written.
      w.tag(item.n, WIRE_BYTES).bytes(encodeFrame(t, o, [...via, item.n], goFields, path));
      continue;
    }
    const name = item.name!;
    const value = Object.hasOwn(o, name) ? o[name] : undefined;
    // Without Go facts, treat the field as a pointer: written only when set.
    encodeField(w, item.field, value, goFields.get(name)?.pointer ?? !goFields.size, `${path}.${name}`);
  }
  return w.finish();
}

function sameVia(a: readonly number[] | undefined, b: readonly number[]): boolean {
  const x = a ?? [];
  return x.length === b.length && x.every((v, i) => v === b[i]);
}

function encodeField(w: Writer, f: SchemaField, v: unknown, pointer: boolean, path: string): void {
  const p = f.proto!;
  const absent = v === undefined || v === null;
  if (p.type === 'map') {
    if (absent) return;
    if (!isObject(v)) throw new ProtobufEncodeError(`expected an object, got ${describe(v)}`, path);
    for (const key of Object.keys(v).sort(compareGoStrings)) {
      const entry = new Writer().tag(1, WIRE_BYTES).string(key);
      const value = v[key];
      const vpath = `${path}[${JSON.stringify(key)}]`;
      const m = p.map!;
      if (m.value === 'message') {
        entry.tag(2, WIRE_BYTES).bytes(encodeMessage(messageType(m.message, vpath), value, vpath));
      } else if (!(m.value === 'bytes' && (value === null || value === undefined))) {
        writeScalar(entry, 2, m.value, value ?? zeroScalar(m.value), vpath);
      }
      w.tag(p.n, WIRE_BYTES).bytes(entry.finish());
    }
    return;
  }
  if (p.repeated) {
    if (absent) return;
    if (!Array.isArray(v)) throw new ProtobufEncodeError(`expected an array, got ${describe(v)}`, path);
    v.forEach((el, i) => {
      if (p.type === 'message') {
        w.tag(p.n, WIRE_BYTES).bytes(encodeMessage(messageType(p.message, path), el, `${path}[${i}]`));
      } else writeScalar(w, p.n, p.type, el, `${path}[${i}]`);
    });
    return;
  }
  if (p.type === 'message') {
    if (absent && pointer) return;
    w.tag(p.n, WIRE_BYTES).bytes(encodeMessage(messageType(p.message, path), v, path));
    return;
  }
  // A nil []byte is not written even when it is not a pointer.
  if (absent && (pointer || p.type === 'bytes')) return;
  writeScalar(w, p.n, p.type, absent ? zeroScalar(p.type) : v, path);
}

function messageType(message: string | undefined, path: string): SchemaType {
  const t = message ? typeForProto(message) : undefined;
  if (!t) throw new ProtobufEncodeError(`no schema for message ${message}`, path);
  return t;
}

function zeroScalar(type: string): unknown {
  return type === 'string' || type === 'bytes' ? '' : type === 'bool' ? false : 0;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function writeScalar(w: Writer, n: number, type: string, v: unknown, path: string): void {
  switch (type) {
    case 'string':
      if (typeof v !== 'string') throw new ProtobufEncodeError(`expected a string, got ${describe(v)}`, path);
      w.tag(n, WIRE_BYTES).string(v);
      return;
    case 'bytes':
      if (typeof v !== 'string' || !BASE64.test(v)) throw new ProtobufEncodeError(`expected a base64 string, got ${describe(v)}`, path);
      w.tag(n, WIRE_BYTES).bytes(Buffer.from(v, 'base64'));
      return;
    case 'bool':
      if (typeof v !== 'boolean') throw new ProtobufEncodeError(`expected a boolean, got ${describe(v)}`, path);
      w.tag(n, WIRE_VARINT).uvarint(v ? 1 : 0);
      return;
    case 'double':
    case 'float':
      if (typeof v !== 'number') throw new ProtobufEncodeError(`expected a number, got ${describe(v)}`, path);
      if (type === 'double') w.tag(n, WIRE_FIXED64).double(v);
      else w.tag(n, WIRE_FIXED32).float(v);
      return;
  }
  const i = integer(v, type, path);
  switch (type) {
    case 'int32':
    case 'int64':
    case 'uint32':
    case 'uint64':
      w.tag(n, WIRE_VARINT).varint(i);
      return;
    case 'sint32':
    case 'sint64': {
      const b = BigInt(i);
      w.tag(n, WIRE_VARINT).varint(b >= 0n ? b * 2n : -b * 2n - 1n);
      return;
    }
    case 'fixed32':
    case 'sfixed32':
      w.tag(n, WIRE_FIXED32).fixed32(Number(i));
      return;
    case 'fixed64':
    case 'sfixed64':
      w.tag(n, WIRE_FIXED64).fixed64(i);
      return;
    default:
      throw new ProtobufEncodeError(`unsupported scalar type ${type}`, path);
  }
}

const RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  sint32: [-(2n ** 31n), 2n ** 31n - 1n],
  sfixed32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  fixed32: [0n, 2n ** 32n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
};

function integer(v: unknown, type: string, path: string): number | bigint {
  if (!((typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint')) {
    throw new ProtobufEncodeError(`expected an integer, got ${describe(v)}`, path);
  }
  const range = RANGES[type];
  if (range && (BigInt(v) < range[0] || BigInt(v) > range[1])) throw new ProtobufEncodeError(`${v} is out of range for ${type}`, path);
  return v;
}

/** A message value: a special type from its JSON form, or a struct. */
function encodeMessage(t: SchemaType, v: unknown, path: string): Uint8Array {
  if (!t.special) return encodeStruct(t, v, path);
  const pf = t.protoFields ?? {};
  const w = new Writer();
  const absent = v === undefined || v === null;
  const num = (name: string): number => {
    const p: ProtoField | undefined = pf[name];
    if (!p) throw new ProtobufEncodeError(`${t.name} has no proto field ${name}`, path);
    return p.n;
  };
  switch (t.special) {
    case 'Time':
    case 'MicroTime': {
      // Go writes the zero time as an empty message.
      if (absent) return w.finish();
      const parsed = typeof v === 'string' ? parseTime(v) : undefined;
      if (!parsed) throw new ProtobufEncodeError(`expected an RFC 3339 time, got ${describe(v)}`, path);
      w.tag(num('seconds'), WIRE_VARINT).varint(parsed.seconds);
      w.tag(num('nanos'), WIRE_VARINT).varint(parsed.nanos);
      return w.finish();
    }
    case 'Duration': {
      const nanos = absent ? 0n : typeof v === 'string' ? parseDuration(v) : undefined;
      if (nanos === undefined) throw new ProtobufEncodeError(`expected a duration such as "1h2m3s", got ${describe(v)}`, path);
      w.tag(num('duration'), WIRE_VARINT).varint(nanos);
      return w.finish();
    }
    case 'Quantity': {
      if (!absent && typeof v !== 'string' && typeof v !== 'number') {
        throw new ProtobufEncodeError(`expected a quantity, got ${describe(v)}`, path);
      }
      w.tag(num('string'), WIRE_BYTES).string(absent ? '0' : String(v));
      return w.finish();
    }
    case 'IntOrString': {
      const isString = typeof v === 'string';
      if (!absent && !isString && !(typeof v === 'number' && Number.isInteger(v))) {
        throw new ProtobufEncodeError(`expected an integer or a string, got ${describe(v)}`, path);
      }
      w.tag(num('type'), WIRE_VARINT).uvarint(isString ? 1 : 0);
      w.tag(num('intVal'), WIRE_VARINT).varint(isString || absent ? 0 : integer(v, 'int32', path));
      w.tag(num('strVal'), WIRE_BYTES).string(isString ? v : '');
      return w.finish();
    }
    case 'RawExtension':
    case 'FieldsV1':
      if (!absent) w.tag(num(t.special === 'FieldsV1' ? 'Raw' : 'raw'), WIRE_BYTES).string(JSON.stringify(v));
      return w.finish();
    case 'ListWrapper':
      if (absent) return w.finish();
      if (!Array.isArray(v)) throw new ProtobufEncodeError(`expected an array, got ${describe(v)}`, path);
      v.forEach((s, i) => writeScalar(w, num('items'), 'string', s, `${path}[${i}]`));
      return w.finish();
    default:
      throw new ProtobufEncodeError(`cannot encode a ${t.special}`, path);
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' || v === undefined) return `${typeof v} ${String(v)}`;
  // Decoded JSON holds nothing else.
  return typeof v;
}
