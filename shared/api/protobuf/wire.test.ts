// The wire reader and writer on their own: varints up to 64 bits, int32 and
// int64 sign handling, lengths, fixed widths, and skipping unknown fields.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Reader,
  varintToBigInt64,
  varintToInt32,
  varintToInt64,
  varintToUint64,
  WIRE_BYTES,
  WIRE_END_GROUP,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_START_GROUP,
  WIRE_VARINT,
  WireError,
  Writer,
} from './wire.ts';

const bytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.replace(/\s+/g, ''), 'hex'));
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

test('varints: one byte, several bytes, 64 bits', () => {
  assert.equal(varintToInt64(new Reader(bytes('00')).varint()), 0);
  assert.equal(varintToInt64(new Reader(bytes('7f')).varint()), 127);
  assert.equal(varintToInt64(new Reader(bytes('ac02')).varint()), 300);
  assert.equal(varintToInt64(new Reader(bytes('ffffffff0f')).varint()), 0xffffffff);
  assert.equal(varintToInt64(new Reader(bytes('8080808010')).varint()), 2 ** 32);
  assert.equal(varintToInt64(new Reader(bytes('ffffffffffffff0f')).varint()), 2 ** 53 - 1);
  // 2^53 is past what a JS number holds exactly.
  assert.equal(varintToInt64(new Reader(bytes('80808080808080 10')).varint()), undefined);
  assert.equal(varintToUint64(new Reader(bytes('ffffffffffffffffff01')).varint()), undefined);
  assert.equal(varintToBigInt64(new Reader(bytes('ffffffffffffffff7f')).varint()), 2n ** 63n - 1n);
});

test('negative int32 and int64 are ten-byte varints (no zigzag)', () => {
  const minusOne = bytes('ffffffffffffffffff01');
  assert.equal(varintToInt32(new Reader(minusOne).varint()), -1);
  assert.equal(varintToInt64(new Reader(minusOne).varint()), -1);
  assert.equal(hex(new Writer().varint(-1).finish()), 'ffffffffffffffffff01');
  assert.equal(hex(new Writer().varint(-2147483648).finish()), '80808080f8ffffffff01');
  assert.equal(varintToInt32(new Reader(bytes('80808080f8ffffffff01')).varint()), -2147483648);
  assert.equal(hex(new Writer().varint(300).finish()), 'ac02');
  assert.equal(hex(new Writer().varint(2n ** 63n - 1n).finish()), 'ffffffffffffffff7f');
});

test('malformed varints', () => {
  assert.throws(() => new Reader(bytes('')).varint(), WireError);
  assert.throws(() => new Reader(bytes('80')).varint(), /truncated varint/);
  assert.throws(() => new Reader(bytes('ff ff ff ff ff ff ff ff ff ff 01')).varint(), /longer than 10 bytes/);
});

test('tags and lengths', () => {
  const r = new Reader(bytes('0a 03 666f6f 10 05'));
  assert.deepEqual(r.tag(), { n: 1, wire: WIRE_BYTES });
  assert.equal(Buffer.from(r.bytes()).toString(), 'foo');
  assert.deepEqual(r.tag(), { n: 2, wire: WIRE_VARINT });
  assert.equal(varintToInt64(r.varint()), 5);
  assert.ok(r.done());
  assert.throws(() => new Reader(bytes('00')).tag(), /illegal tag/);
  assert.throws(() => new Reader(bytes('05 6162')).bytesRange(), /length 5 past the end of the message \(2 bytes left\)/);
  // A length near 2^64 must not wrap around.
  assert.throws(() => new Reader(bytes('ffffffffffffffffff01')).bytesRange(), /past the end/);
  // The reader respects its end even when the buffer goes on.
  assert.throws(() => new Reader(bytes('02 6162'), 0, 2).bytesRange(), /past the end/);
});

test('fixed32 and fixed64', () => {
  const w = new Writer()
    .fixed32(0xdeadbeef)
    .fixed64(2n ** 40n + 7n)
    .double(1.5)
    .float(-2);
  const r = new Reader(w.finish());
  assert.equal(r.fixed32(), 0xdeadbeef);
  assert.deepEqual(r.fixed64(), { lo: 7, hi: 256 });
  r.fixed64();
  r.fixed32();
  assert.ok(r.done());
  assert.throws(() => new Reader(bytes('010203')).fixed32(), /truncated fixed32/);
  assert.throws(() => new Reader(bytes('01020304050607')).fixed64(), /truncated fixed64/);
});

test('skipping unknown fields of every wire type, groups included', () => {
  // varint, fixed64, bytes, fixed32, then group 7 { field 1 varint, group 8 {} }, then field 2.
  const b = bytes('08 96 01  11 0102030405060708  1a 02 abcd  25 01020304  3b 08 01 43 44 3c  10 2a');
  const r = new Reader(b);
  for (const want of [WIRE_VARINT, WIRE_FIXED64, WIRE_BYTES, WIRE_FIXED32, WIRE_START_GROUP]) {
    const t = r.tag();
    assert.equal(t.wire, want);
    r.skip(t.wire, t.n);
  }
  assert.deepEqual(r.tag(), { n: 2, wire: WIRE_VARINT });
  assert.equal(varintToInt64(r.varint()), 42);
  const unterminated = new Reader(bytes('08 01'));
  assert.throws(() => unterminated.skip(WIRE_START_GROUP, 7), /unterminated group/);
  assert.throws(() => new Reader(bytes('44')).skip(WIRE_START_GROUP, 7), /does not match/);
  assert.throws(() => new Reader(bytes('')).skip(WIRE_END_GROUP, 7), /without a start/);
  assert.throws(() => new Reader(bytes('')).skip(6, 7), /illegal wire type 6/);
  // Deeply nested groups are refused rather than followed.
  assert.throws(() => new Reader(bytes('0b'.repeat(100))).skip(WIRE_START_GROUP, 1), /nested too deeply/);
  assert.equal(WIRE_FIXED32, 5);
  assert.equal(WIRE_FIXED64, 1);
});

test('writer grows past its first buffer', () => {
  const big = new Uint8Array(10_000).fill(7);
  const out = new Writer().tag(1, WIRE_BYTES).bytes(big).finish();
  const r = new Reader(out);
  r.tag();
  assert.deepEqual(Uint8Array.from(r.bytes()), big);
});
