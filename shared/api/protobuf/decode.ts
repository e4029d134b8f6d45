// Decodes application/vnd.kubernetes.protobuf bodies (what kubectl's
// generators send) into the plain JSON object kube itself would write for
// the same Go value: the "k8s\0" magic, the runtime.Unknown envelope, then
// the object's message, field by field from the API schema, with Go's
// encoding/json rules for what is emitted (go-fields.json). Malformed bytes
// give a ProtobufDecodeError naming the field path; nothing else is thrown.
import {
  fieldByNumber,
  typeForKind,
  typeForProto,
  type ProtoEmbedded,
  type ProtoField,
  type SchemaField,
  type SchemaType,
} from '../schema/index.ts';
import { ProtobufDecodeError } from './errors.ts';
import { goFieldsOf } from './go-fields.ts';
import { formatDuration, formatMicroTime, formatTime } from './special.ts';
import {
  Reader,
  varintToBigInt64,
  varintToInt32,
  varintToInt64,
  varintToUint32,
  varintToUint64,
  WIRE_BYTES,
  WIRE_END_GROUP,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_NAMES,
  WIRE_START_GROUP,
  WIRE_VARINT,
  WireError,
  type Varint,
} from './wire.ts';

/** The four bytes every kube protobuf body starts with: "k8s\0". */
export const KUBE_PROTOBUF_MAGIC: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** The media type of kube's protobuf encoding. */
export const KUBE_PROTOBUF_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf';

/** A decoded body: the envelope's apiVersion and kind, and the object (which carries them too). */
export interface DecodedKubeObject {
  apiVersion: string;
  kind: string;
  object: { [key: string]: unknown };
}

/** Messages (and embedded protobuf objects) may nest this deep; deeper input is rejected, not recursed into. */
const MAX_DEPTH = 100;

/** True when the body starts with the kube protobuf magic. */
export function hasKubeProtobufMagic(body: Uint8Array): boolean {
  return body.length >= 4 && KUBE_PROTOBUF_MAGIC.every((b, i) => body[i] === b);
}

/**
 * Decodes a kube protobuf body (magic, runtime.Unknown envelope, object)
 * into plain JSON with apiVersion and kind set. Throws ProtobufDecodeError,
 * and only that, on anything malformed or of an unknown kind.
 */
export function decodeKubeProtobuf(body: Uint8Array): DecodedKubeObject {
  return decodeEnvelope(body, 0);
}

function decodeEnvelope(body: Uint8Array, depth: number): DecodedKubeObject {
  if (!(body instanceof Uint8Array)) throw new ProtobufDecodeError('body is not bytes');
  if (!hasKubeProtobufMagic(body)) {
    throw new ProtobufDecodeError('not a Kubernetes protobuf body: it does not start with the magic bytes "k8s\\x00"');
  }
  const envelopeNames = ['', 'typeMeta', 'raw', 'contentEncoding', 'contentType'];
  const envelope = readFields(body, 4, body.length, 'Unknown', (n) => envelopeNames[n]);
  const typeMeta = lastBytes(body, envelope.get(1), 'Unknown.typeMeta');
  let apiVersion = '';
  let kind = '';
  if (typeMeta) {
    const tm = readFields(body, typeMeta[0], typeMeta[1], 'Unknown.typeMeta', (n) => ['', 'apiVersion', 'kind'][n]);
    apiVersion = lastString(body, tm.get(1), 'Unknown.typeMeta.apiVersion');
    kind = lastString(body, tm.get(2), 'Unknown.typeMeta.kind');
  }
  const raw = lastBytes(body, envelope.get(2), 'Unknown.raw') ?? [body.length, body.length];
  const contentEncoding = lastString(body, envelope.get(3), 'Unknown.contentEncoding');
  const contentType = lastString(body, envelope.get(4), 'Unknown.contentType');
  if (contentEncoding) throw new ProtobufDecodeError(`unsupported contentEncoding "${contentEncoding}"`, 'Unknown');
  if (contentType && contentType !== KUBE_PROTOBUF_CONTENT_TYPE) {
    throw new ProtobufDecodeError(`unsupported contentType "${contentType}"`, 'Unknown');
  }
  if (!kind) throw new ProtobufDecodeError("Object 'Kind' is missing in protobuf body");
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash >= 0 ? [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)] : ['', apiVersion];
  const type = typeForKind(group, version, kind);
  if (!type) throw new ProtobufDecodeError(`no kind "${kind}" is registered for version "${apiVersion}"`);
  const fields = decodeStruct(type, body, raw[0], raw[1], kind, depth);
  return { apiVersion, kind, object: { kind, apiVersion, ...fields } };
}

// ---------------------------------------------------------------------------
// Reading fields

/** One occurrence of a field: its wire type and value (a byte range, a varint, or fixed bits). */
interface Chunk {
  wire: number;
  start: number;
  end: number;
  v: Varint;
}

const NO_VARINT: Varint = { lo: 0, hi: 0 };

/**
 * Every field of a message by number, occurrences in order; unknown wire
 * types and groups are validated and skipped. `nameOf` names a field for
 * the error path when its value is malformed.
 */
function readFields(
  buf: Uint8Array,
  start: number,
  end: number,
  path: string,
  nameOf?: (n: number) => string | undefined,
): Map<number, Chunk[]> {
  const fields = new Map<number, Chunk[]>();
  const r = new Reader(buf, start, end);
  let current = 0;
  try {
    while (!r.done()) {
      current = 0;
      const { n, wire } = r.tag();
      current = n;
      let chunk: Chunk;
      switch (wire) {
        case WIRE_VARINT:
          chunk = { wire, start: 0, end: 0, v: r.varint() };
          break;
        case WIRE_FIXED64:
          chunk = { wire, start: 0, end: 0, v: r.fixed64() };
          break;
        case WIRE_FIXED32:
          chunk = { wire, start: 0, end: 0, v: { lo: r.fixed32(), hi: 0 } };
          break;
        case WIRE_BYTES: {
          const [s, e] = r.bytesRange();
          chunk = { wire, start: s, end: e, v: NO_VARINT };
          break;
        }
        case WIRE_START_GROUP:
          r.skip(wire, n);
          chunk = { wire, start: 0, end: 0, v: NO_VARINT };
          break;
        case WIRE_END_GROUP:
          throw new WireError(`end of group ${n} without a start`);
        default:
          throw new WireError(`illegal wire type ${wire} (field ${n})`);
      }
      const list = fields.get(n);
      if (list) list.push(chunk);
      else fields.set(n, [chunk]);
    }
  } catch (e) {
    if (!(e instanceof WireError)) throw e;
    const name = current ? (nameOf?.(current) ?? `(field ${current})`) : '';
    throw new ProtobufDecodeError(`${e.message} at byte ${r.pos - start}`, name ? `${path}.${name}` : path);
  }
  return fields;
}

function wrongWire(p: Pick<ProtoField, 'n' | 'type' | 'wire'>, got: number, path: string): ProtobufDecodeError {
  return new ProtobufDecodeError(`wrong wire type ${WIRE_NAMES[got]} for ${p.type} field ${p.n} (want ${p.wire})`, path);
}

const WIRE_OF: Record<string, number> = { varint: WIRE_VARINT, fixed64: WIRE_FIXED64, bytes: WIRE_BYTES, fixed32: WIRE_FIXED32 };

/** The byte range of the last occurrence of a bytes field (where Go's last-one-wins applies). */
function lastBytes(buf: Uint8Array, chunks: Chunk[] | undefined, path: string): [number, number] | undefined {
  if (!chunks) return undefined;
  for (const c of chunks)
    if (c.wire !== WIRE_BYTES) throw new ProtobufDecodeError(`wrong wire type ${WIRE_NAMES[c.wire]} (want bytes)`, path);
  const c = chunks[chunks.length - 1];
  return [c.start, c.end];
}

const utf8 = new TextDecoder('utf-8');

function lastString(buf: Uint8Array, chunks: Chunk[] | undefined, path: string): string {
  const r = lastBytes(buf, chunks, path);
  // Invalid UTF-8 becomes U+FFFD, as Go's encoding/json writes it.
  return r ? utf8.decode(buf.subarray(r[0], r[1])) : '';
}

/** All occurrences of a message field, concatenated: protobuf merges repeated occurrences of a message. */
function mergedBytes(buf: Uint8Array, chunks: Chunk[], p: ProtoField, path: string): Uint8Array {
  for (const c of chunks) if (c.wire !== WIRE_BYTES) throw wrongWire(p, c.wire, path);
  if (chunks.length === 1) return buf.subarray(chunks[0].start, chunks[0].end);
  const parts = chunks.map((c) => buf.subarray(c.start, c.end));
  const out = new Uint8Array(parts.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of parts) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Scalars

/** A scalar as JSON from a varint / fixed chunk or a byte range. */
function scalarValue(p: Pick<ProtoField, 'n' | 'type' | 'wire'>, type: string, c: Chunk, buf: Uint8Array, path: string): unknown {
  switch (type) {
    case 'string':
      return utf8.decode(buf.subarray(c.start, c.end));
    case 'bytes':
      return Buffer.from(buf.buffer, buf.byteOffset + c.start, c.end - c.start).toString('base64');
    case 'bool':
      return c.v.lo !== 0 || c.v.hi !== 0;
    case 'int32':
      return varintToInt32(c.v);
    case 'uint32':
    case 'fixed32':
      return varintToUint32(c.v);
    case 'sfixed32':
      return varintToInt32(c.v);
    case 'sint32':
      return ((c.v.lo >>> 1) ^ -(c.v.lo & 1)) | 0;
    case 'int64':
    case 'sfixed64':
      return safe(varintToInt64(c.v), c.v, p, path);
    case 'uint64':
    case 'fixed64':
      return safe(varintToUint64(c.v), c.v, p, path);
    case 'sint64': {
      const u = (BigInt(c.v.hi) << 32n) | BigInt(c.v.lo);
      const n = (u >> 1n) ^ -(u & 1n);
      return safe(Number.isSafeInteger(Number(n)) ? Number(n) : undefined, c.v, p, path);
    }
    case 'double': {
      const dv = new DataView(new ArrayBuffer(8));
      dv.setUint32(0, c.v.lo, true);
      dv.setUint32(4, c.v.hi, true);
      return finite(dv.getFloat64(0, true), path);
    }
    case 'float': {
      const dv = new DataView(new ArrayBuffer(4));
      dv.setUint32(0, c.v.lo, true);
      return finite(dv.getFloat32(0, true), path);
    }
    default:
      throw new ProtobufDecodeError(`unsupported scalar type ${type}`, path);
  }
}

function safe(n: number | undefined, v: Varint, p: Pick<ProtoField, 'n'>, path: string): number {
  if (n === undefined) {
    throw new ProtobufDecodeError(`integer ${varintToBigInt64(v)} in field ${p.n} is beyond what JSON numbers hold exactly`, path);
  }
  return n;
}

function finite(n: number, path: string): number {
  // Go's encoding/json refuses NaN and infinities.
  if (!Number.isFinite(n)) throw new ProtobufDecodeError(`unsupported float value ${n}`, path);
  return n;
}

/** The wire type of a scalar proto type. */
function scalarWire(type: string): number {
  switch (type) {
    case 'string':
    case 'bytes':
      return WIRE_BYTES;
    case 'double':
    case 'fixed64':
    case 'sfixed64':
      return WIRE_FIXED64;
    case 'float':
    case 'fixed32':
    case 'sfixed32':
      return WIRE_FIXED32;
    default:
      return WIRE_VARINT;
  }
}

/** A packed run of scalars (proto3 style; kube writes unpacked, Go accepts both). */
function unpack(buf: Uint8Array, c: Chunk, type: string, p: ProtoField, path: string): unknown[] {
  const r = new Reader(buf, c.start, c.end);
  const out: unknown[] = [];
  const wire = scalarWire(type);
  try {
    while (!r.done()) {
      const v = wire === WIRE_VARINT ? r.varint() : wire === WIRE_FIXED64 ? r.fixed64() : { lo: r.fixed32(), hi: 0 };
      out.push(scalarValue(p, type, { wire, start: 0, end: 0, v }, buf, `${path}[${out.length}]`));
    }
  } catch (e) {
    if (e instanceof WireError) throw new ProtobufDecodeError(`packed field ${p.n}: ${e.message}`, path);
    throw e;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Messages

/** Decodes a message of a struct type into Go's JSON form (without apiVersion and kind). */
function decodeStruct(t: SchemaType, buf: Uint8Array, start: number, end: number, path: string, depth: number): Record<string, unknown> {
  if (depth > MAX_DEPTH) throw new ProtobufDecodeError('messages nested too deeply', path);
  const values = new Map<string, unknown>();
  decodeFrame(t, buf, start, end, [], values, path, depth);
  return goJson(t, values, path, depth);
}

/** One message frame of a struct: the struct itself (via = []) or an embedded struct inside it. */
function decodeFrame(
  t: SchemaType,
  buf: Uint8Array,
  start: number,
  end: number,
  via: number[],
  values: Map<string, unknown>,
  path: string,
  depth: number,
): void {
  const embeddedAt = (n: number): ProtoEmbedded | undefined => t.protoEmbedded?.find((e) => e.n === n && sameVia(e.via, via));
  const nameOf = (n: number): string | undefined => fieldByNumber(t.name, n, via)?.name ?? embeddedAt(n)?.name;
  const fields = readFields(buf, start, end, path, nameOf);
  for (const [n, chunks] of fields) {
    const hit = fieldByNumber(t.name, n, via);
    if (hit) {
      values.set(hit.name, decodeField(hit.field, chunks, buf, `${path}.${hit.name}`, depth));
      continue;
    }
    const embedded = embeddedAt(n);
    if (embedded) {
      const p: ProtoField = { n, wire: 'bytes', type: 'message', message: embedded.message };
      const bytes = mergedBytes(buf, chunks, p, `${path}(${embedded.name})`);
      if (depth + 1 > MAX_DEPTH) throw new ProtobufDecodeError('messages nested too deeply', path);
      decodeFrame(t, bytes, 0, bytes.length, [...via, n], values, path, depth + 1);
    }
    // Anything else is a field this version does not know: Go skips it too.
  }
}

function sameVia(a: readonly number[] | undefined, b: readonly number[]): boolean {
  const x = a ?? [];
  return x.length === b.length && x.every((v, i) => v === b[i]);
}

/** The JSON value of one field from all its occurrences. */
function decodeField(f: SchemaField, chunks: Chunk[], buf: Uint8Array, path: string, depth: number): unknown {
  const p = f.proto!;
  if (p.type === 'map') return decodeMap(p, chunks, buf, path, depth);
  if (p.repeated) {
    const out: unknown[] = [];
    for (const c of chunks) {
      if (p.type === 'message') {
        if (c.wire !== WIRE_BYTES) throw wrongWire(p, c.wire, path);
        out.push(decodeMessage(messageType(p.message, path), buf, c.start, c.end, `${path}[${out.length}]`, depth + 1));
      } else if (c.wire === WIRE_BYTES && p.wire !== 'bytes') {
        out.push(...unpack(buf, c, p.type, p, path));
      } else {
        if (c.wire !== WIRE_OF[p.wire]) throw wrongWire(p, c.wire, path);
        out.push(scalarValue(p, p.type, c, buf, `${path}[${out.length}]`));
      }
    }
    return out;
  }
  if (p.type === 'message') {
    const t = messageType(p.message, path);
    // Custom Unmarshal methods of these replace rather than merge.
    if (t.special === 'Time' || t.special === 'MicroTime' || t.special === 'Quantity') {
      const last = lastBytes(buf, chunks, path)!;
      return decodeMessage(t, buf, last[0], last[1], path, depth + 1);
    }
    const bytes = mergedBytes(buf, chunks, p, path);
    return decodeMessage(t, bytes, 0, bytes.length, path, depth + 1);
  }
  for (const c of chunks) if (c.wire !== WIRE_OF[p.wire]) throw wrongWire(p, c.wire, path);
  return scalarValue(p, p.type, chunks[chunks.length - 1], buf, path);
}

function messageType(message: string | undefined, path: string): SchemaType {
  const t = message ? typeForProto(message) : undefined;
  if (!t) throw new ProtobufDecodeError(`no schema for message ${message}`, path);
  return t;
}

/** A map field: repeated entries {key = 1, value = 2}; Go writes the keys sorted. */
function decodeMap(p: ProtoField, chunks: Chunk[], buf: Uint8Array, path: string, depth: number): Record<string, unknown> {
  const m = p.map!;
  const entries = new Map<string, unknown>();
  for (const c of chunks) {
    if (c.wire !== WIRE_BYTES) throw wrongWire(p, c.wire, path);
    const fields = readFields(buf, c.start, c.end, path, (n) => ['', '(key)', '(value)'][n]);
    const keyChunks = fields.get(1);
    let key = '';
    if (keyChunks) {
      for (const k of keyChunks)
        if (k.wire !== scalarWire(m.key)) throw wrongWire({ n: 1, type: m.key, wire: 'bytes' }, k.wire, `${path}(key)`);
      key = String(scalarValue({ n: 1, type: m.key, wire: 'bytes' }, m.key, keyChunks[keyChunks.length - 1], buf, `${path}(key)`));
    }
    const vpath = `${path}[${JSON.stringify(key)}]`;
    const valueChunks = fields.get(2);
    let value: unknown;
    if (m.value === 'message') {
      const t = messageType(m.message, vpath);
      if (valueChunks) {
        const vp: ProtoField = { n: 2, wire: 'bytes', type: 'message', message: m.message };
        const bytes = mergedBytes(buf, valueChunks, vp, vpath);
        value = decodeMessage(t, bytes, 0, bytes.length, vpath, depth + 1);
      } else value = decodeMessage(t, buf, 0, 0, vpath, depth + 1);
    } else if (valueChunks) {
      const vp = { n: 2, type: m.value, wire: WIRE_NAMES[scalarWire(m.value)] as ProtoField['wire'] };
      for (const v of valueChunks) if (v.wire !== scalarWire(m.value)) throw wrongWire(vp, v.wire, vpath);
      value = scalarValue(vp, m.value, valueChunks[valueChunks.length - 1], buf, vpath);
    } else {
      // Go starts each entry from the zero value ([]byte{} for bytes).
      value = m.value === 'string' || m.value === 'bytes' ? '' : m.value === 'bool' ? false : 0;
    }
    entries.set(key, value);
  }
  const out: Record<string, unknown> = {};
  for (const k of [...entries.keys()].sort(compareGoStrings)) out[k] = entries.get(k);
  return out;
}

/** Go's sort.Strings order: bytewise over UTF-8. */
export function compareGoStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A message value: a special type's JSON form, or a struct. */
function decodeMessage(t: SchemaType, buf: Uint8Array, start: number, end: number, path: string, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new ProtobufDecodeError('messages nested too deeply', path);
  if (!t.special) return decodeStruct(t, buf, start, end, path, depth);
  const pf = t.protoFields ?? {};
  const fields = readFields(buf, start, end, path, (n) => Object.keys(pf).find((k) => pf[k].n === n));
  const scalar = (name: string, big = false): unknown => {
    const p = pf[name];
    const chunks = p && fields.get(p.n);
    if (!p || !chunks) return undefined;
    for (const c of chunks) if (c.wire !== WIRE_OF[p.wire]) throw wrongWire(p, c.wire, `${path}.${name}`);
    const c = chunks[chunks.length - 1];
    if (big) return varintToBigInt64(c.v);
    return scalarValue(p, p.type, c, buf, `${path}.${name}`);
  };
  switch (t.special) {
    case 'Time':
    case 'MicroTime': {
      // An empty message is the zero time, which Go writes as null.
      if (start === end) return null;
      const seconds = (scalar('seconds', true) as bigint | undefined) ?? 0n;
      const nanos = BigInt((scalar('nanos') as number | undefined) ?? 0);
      const s = t.special === 'Time' ? formatTime(seconds) : formatMicroTime(seconds, nanos);
      if (s === undefined) throw new ProtobufDecodeError(`time ${seconds}s since the epoch is outside years 0-9999`, path);
      return s;
    }
    case 'Duration':
      return formatDuration((scalar('duration', true) as bigint | undefined) ?? 0n);
    case 'Quantity':
      // Go's zero Quantity writes "0"; the canonical string is what Go clients send.
      return scalar('string') ?? '0';
    case 'IntOrString': {
      const type = (scalar('type', true) as bigint | undefined) ?? 0n;
      if (type === 0n) return scalar('intVal') ?? 0;
      if (type === 1n) return scalar('strVal') ?? '';
      throw new ProtobufDecodeError(`impossible IntOrString.Type ${type}`, path);
    }
    case 'RawExtension':
    case 'FieldsV1': {
      const p = pf.raw ?? pf.Raw;
      const r = p && lastBytes(buf, fields.get(p.n), `${path}.raw`);
      if (!r || r[0] === r[1]) return null;
      return embeddedValue(buf.subarray(r[0], r[1]), `${path}.raw`, depth);
    }
    case 'ListWrapper': {
      const p = pf.items;
      const chunks = p && fields.get(p.n);
      if (!chunks) return null;
      for (const c of chunks) if (c.wire !== WIRE_BYTES) throw wrongWire(p, c.wire, path);
      return chunks.map((c) => utf8.decode(buf.subarray(c.start, c.end)));
    }
    default:
      throw new ProtobufDecodeError(`unexpected ${t.special} message`, path);
  }
}

/** The bytes of a RawExtension or FieldsV1: JSON, or (in protobuf watch events) a whole protobuf object. */
function embeddedValue(bytes: Uint8Array, path: string, depth: number): unknown {
  if (hasKubeProtobufMagic(bytes)) {
    try {
      return decodeEnvelope(bytes, depth + 1).object;
    } catch (e) {
      if (e instanceof ProtobufDecodeError) throw new ProtobufDecodeError(e.message, path);
      throw e;
    }
  }
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    throw new ProtobufDecodeError('embedded object is neither JSON nor Kubernetes protobuf', path);
  }
}

// ---------------------------------------------------------------------------
// Go's encoding/json rules

/** What kind of Go value holds a JSON property: it decides what omitempty omits and what a zero value looks like. */
function goKind(f: SchemaField): 'string' | 'bytes' | 'number' | 'bool' | 'slice' | 'map' | 'struct' {
  switch (f.type) {
    case 'string':
      return f.format === 'byte' ? 'bytes' : 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    case 'array':
      return 'slice';
    case 'object':
      return 'map';
    default: {
      const t = f.proto?.message ? typeForProto(f.proto.message) : undefined;
      return t?.special === 'ListWrapper' ? 'slice' : 'struct';
    }
  }
}

/** Go's zero value of a field, as encoding/json writes it. */
function zeroJson(f: SchemaField, path: string, depth: number): unknown {
  switch (goKind(f)) {
    case 'string':
      return '';
    case 'number':
      return 0;
    case 'bool':
      return false;
    case 'bytes':
    case 'slice':
    case 'map':
      return null;
    case 'struct': {
      const t = messageType(f.proto?.message, path);
      return decodeMessage(t, new Uint8Array(0), 0, 0, path, depth + 1);
    }
  }
}

/** encoding/json's omitempty: false, 0, "", and nil or empty slices and maps; never a struct. */
function isEmpty(v: unknown, f: SchemaField): boolean {
  switch (goKind(f)) {
    case 'string':
    case 'number':
    case 'bool':
      return v === '' || v === 0 || v === false;
    case 'bytes':
      return v === null || v === '';
    case 'slice':
      return v === null || (Array.isArray(v) && v.length === 0);
    case 'map':
      return v === null || (typeof v === 'object' && Object.keys(v).length === 0);
    case 'struct':
      return false;
  }
}

/**
 * Builds the JSON object of a struct the way Go's encoding/json writes it:
 * fields in Go order; a pointer only when it was on the wire; a non-pointer
 * field always, as its zero value if absent, unless omitempty / omitzero
 * drops it.
 */
function goJson(t: SchemaType, values: Map<string, unknown>, path: string, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const goFields = t.proto ? goFieldsOf(t.proto) : undefined;
  if (!goFields) {
    // No Go facts for this message: write what was on the wire.
    for (const name of Object.keys(t.fields)) if (values.has(name)) out[name] = values.get(name);
    return out;
  }
  for (const g of goFields) {
    const f = t.fields[g.name];
    if (!f?.proto) continue; // apiVersion and kind travel in the envelope
    let v: unknown;
    if (values.has(g.name)) v = values.get(g.name);
    else if (g.pointer) {
      if (!g.omitempty && !g.omitzero) out[g.name] = null;
      continue;
    } else v = zeroJson(f, `${path}.${g.name}`, depth);
    if (!g.pointer && g.omitempty && isEmpty(v, f)) continue;
    if (!g.pointer && g.omitzero && (v === null || v === '' || v === 0 || v === false)) continue;
    out[g.name] = v;
  }
  return out;
}
