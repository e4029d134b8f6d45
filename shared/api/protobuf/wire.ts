// The protobuf wire format, as Kubernetes' gogo-generated code reads and
// writes it: varints (64-bit, never zigzag: kube uses int32/int64, not
// sint), length-delimited bytes, fixed32/fixed64, and skipping of unknown
// fields (groups included, so garbage cannot make the reader misbehave).
// Errors are WireError with a short message; callers add the field path.

/** Wire type numbers. */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

/** Names of wire types, for error messages. */
export const WIRE_NAMES = ['varint', 'fixed64', 'bytes', 'start-group', 'end-group', 'fixed32', 'wire type 6', 'wire type 7'];

/** A malformed byte sequence; message only, without the field path. */
export class WireError extends Error {
  override name = 'WireError';
}

/** A 64-bit varint as two unsigned 32-bit halves (most values never need BigInt). */
export interface Varint {
  lo: number;
  hi: number;
}

/** The low 32 bits as a signed int32 (Go's int32(x), which is how a negative int32 comes back). */
export const varintToInt32 = (v: Varint): number => v.lo | 0;

/** The low 32 bits unsigned. */
export const varintToUint32 = (v: Varint): number => v.lo >>> 0;

/** The value as a two's-complement int64, as a bigint. */
export function varintToBigInt64(v: Varint): bigint {
  return BigInt.asIntN(64, (BigInt(v.hi >>> 0) << 32n) | BigInt(v.lo >>> 0));
}

/** The value as an unsigned uint64, as a bigint. */
export function varintToBigUint64(v: Varint): bigint {
  return (BigInt(v.hi >>> 0) << 32n) | BigInt(v.lo >>> 0);
}

/** The value as an int64 JS number, or undefined when it is beyond Number.MAX_SAFE_INTEGER. */
export function varintToInt64(v: Varint): number | undefined {
  if (v.hi === 0) return v.lo >>> 0;
  const n = varintToBigInt64(v);
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
}

/** The value as a uint64 JS number, or undefined when it is beyond Number.MAX_SAFE_INTEGER. */
export function varintToUint64(v: Varint): number | undefined {
  if (v.hi === 0) return v.lo >>> 0;
  const n = varintToBigUint64(v);
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
}

/** How deeply groups may nest while skipping them. */
const MAX_GROUP_DEPTH = 64;

/** Reads one message's bytes: tags, then values of the wire type the tag names. */
export class Reader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  /** True when every byte has been read. */
  done(): boolean {
    return this.pos >= this.end;
  }

  /** A varint of up to ten bytes; like Go, bits past 64 in the tenth byte are dropped. */
  varint(): Varint {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new WireError('truncated varint');
      const b = this.buf[this.pos++];
      if (i < 4) lo |= (b & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >>> 4;
      } else hi |= (b & 0x7f) << (7 * i - 32);
      if (b < 0x80) return { lo: lo >>> 0, hi: hi >>> 0 };
    }
    throw new WireError('varint longer than 10 bytes');
  }

  /** A field tag: field number and wire type. */
  tag(): { n: number; wire: number } {
    const v = this.varint();
    const wire = v.lo & 7;
    // Field numbers run from 1 to 2^29 - 1, so a tag fits 32 bits.
    const n = v.lo >>> 3;
    if (v.hi !== 0 || n === 0) throw new WireError(`illegal tag ${varintToBigUint64(v)} (field number ${v.hi ? 'too large' : 0})`);
    return { n, wire };
  }

  /** The [start, end) of a length-delimited value. */
  bytesRange(): [number, number] {
    const v = this.varint();
    const left = this.end - this.pos;
    if (v.hi !== 0 || v.lo > left) {
      throw new WireError(`length ${v.hi ? varintToBigUint64(v) : v.lo} past the end of the message (${left} bytes left)`);
    }
    const start = this.pos;
    this.pos += v.lo;
    return [start, this.pos];
  }

  /** A length-delimited value (a view, not a copy). */
  bytes(): Uint8Array {
    const [s, e] = this.bytesRange();
    return this.buf.subarray(s, e);
  }

  /** Four little-endian bytes, unsigned. */
  fixed32(): number {
    if (this.end - this.pos < 4) throw new WireError('truncated fixed32');
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0;
  }

  /** Eight little-endian bytes as two halves. */
  fixed64(): Varint {
    if (this.end - this.pos < 8) throw new WireError('truncated fixed64');
    const lo = this.fixed32();
    const hi = this.fixed32();
    return { lo, hi };
  }

  /** Skips the value of a field with this wire type (and, for a group, everything up to its end). */
  skip(wire: number, n: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varint();
        return;
      case WIRE_FIXED64:
        this.fixed64();
        return;
      case WIRE_BYTES:
        this.bytesRange();
        return;
      case WIRE_FIXED32:
        this.fixed32();
        return;
      case WIRE_START_GROUP: {
        // Iterative, with a depth limit: garbage must not exhaust the stack.
        const open = [n];
        while (open.length) {
          if (this.done()) throw new WireError(`unterminated group (field ${open[open.length - 1]})`);
          const t = this.tag();
          if (t.wire === WIRE_END_GROUP) {
            if (t.n !== open.pop()) throw new WireError(`end of group ${t.n} does not match its start`);
          } else if (t.wire === WIRE_START_GROUP) {
            if (open.length >= MAX_GROUP_DEPTH) throw new WireError('groups nested too deeply');
            open.push(t.n);
          } else this.skip(t.wire, t.n);
        }
        return;
      }
      case WIRE_END_GROUP:
        throw new WireError(`end of group ${n} without a start`);
      default:
        throw new WireError(`illegal wire type ${wire} (field ${n})`);
    }
  }
}

/** Appends protobuf values to a growing buffer. */
export class Writer {
  // Small: most messages are; many are written, one per nested message.
  private buf = Buffer.allocUnsafe(64);
  private len = 0;

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  /** An unsigned varint of a non-negative safe integer. */
  uvarint(v: number): this {
    this.reserve(10);
    while (v >= 0x80) {
      this.buf[this.len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.len++] = v;
    return this;
  }

  /** A varint of any 64-bit value (negative values as ten-byte two's complement, as Go writes int32/int64). */
  varint(v: number | bigint): this {
    if (typeof v === 'number' && v >= 0 && Number.isSafeInteger(v)) return this.uvarint(v);
    let u = BigInt.asUintN(64, BigInt(v));
    this.reserve(10);
    while (u >= 0x80n) {
      this.buf[this.len++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.len++] = Number(u);
    return this;
  }

  /** A field tag. */
  tag(n: number, wire: number): this {
    return this.uvarint(n * 8 + wire);
  }

  /** A length-delimited value. */
  bytes(b: Uint8Array): this {
    this.uvarint(b.length);
    this.reserve(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  /** A length-delimited UTF-8 string. */
  string(s: string): this {
    const n = Buffer.byteLength(s, 'utf8');
    this.uvarint(n);
    this.reserve(n);
    this.len += this.buf.write(s, this.len, 'utf8');
    return this;
  }

  /** Raw bytes, without a length. */
  raw(b: Uint8Array): this {
    this.reserve(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  /** Four little-endian bytes. */
  fixed32(v: number): this {
    this.reserve(4);
    this.buf.writeUInt32LE(v >>> 0, this.len);
    this.len += 4;
    return this;
  }

  /** Eight little-endian bytes of a 64-bit integer. */
  fixed64(v: number | bigint): this {
    this.reserve(8);
    this.buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(v)), this.len);
    this.len += 8;
    return this;
  }

  /** An IEEE double, little-endian. */
  double(v: number): this {
    this.reserve(8);
    this.buf.writeDoubleLE(v, this.len);
    this.len += 8;
    return this;
  }

  /** An IEEE float, little-endian. */
  float(v: number): this {
    this.reserve(4);
    this.buf.writeFloatLE(v, this.len);
    this.len += 4;
    return this;
  }

  /** What has been written (a view: do not write more afterwards). */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}
