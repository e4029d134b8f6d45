import assert from 'node:assert/strict';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { SPDY_DICTIONARY } from './dictionary.ts';
import {
  decodeHeaderBlock,
  encodeHeaderBlock,
  FrameReader,
  FrameWriter,
  HeaderCompressor,
  HeaderDecompressor,
  SpdyProtocolError,
  type Frame,
} from './frames.ts';

test('the dictionary is the draft-3 one: 1423 bytes, options first, enq=0. last', () => {
  assert.equal(SPDY_DICTIONARY.length, 1423);
  assert.deepEqual([...SPDY_DICTIONARY.subarray(0, 11)], [0, 0, 0, 7, ...Buffer.from('options')]);
  assert.equal(SPDY_DICTIONARY.subarray(-6).toString(), 'enq=0.');
  // zlib writes the dictionary's Adler-32 into the stream header (FDICT): the id peers check.
  const z = zlib.deflateSync(Buffer.from('x'), { dictionary: SPDY_DICTIONARY });
  assert.equal(z[1] & 0x20, 0x20);
});

test('header blocks: count, then 32-bit lengths; several values are NUL-joined', () => {
  const raw = encodeHeaderBlock({ Port: ['80'], streamtype: ['data', 'x'] });
  assert.deepEqual(
    raw,
    Buffer.concat([
      Buffer.from([0, 0, 0, 2, 0, 0, 0, 4]),
      Buffer.from('port'),
      Buffer.from([0, 0, 0, 2]),
      Buffer.from('80'),
      Buffer.from([0, 0, 0, 10]),
      Buffer.from('streamtype'),
      Buffer.from([0, 0, 0, 6]),
      Buffer.from('data\0x'),
    ]),
  );
  assert.deepEqual({ ...decodeHeaderBlock(raw) }, { port: ['80'], streamtype: ['data', 'x'] });
});

const frames: [string, (w: FrameWriter) => Buffer, Frame][] = [
  ['data', (w) => w.data(3, Buffer.from('hello')), { type: 'data', streamId: 3, flags: 0, data: Buffer.from('hello') }],
  ['data with FIN', (w) => w.data(5, Buffer.alloc(0), true), { type: 'data', streamId: 5, flags: 1, data: Buffer.alloc(0) }],
  [
    'SYN_STREAM',
    (w) => w.synStream(1, { streamtype: ['error'], port: ['80'], requestid: ['0'] }),
    {
      type: 'syn_stream',
      streamId: 1,
      associatedId: 0,
      priority: 0,
      flags: 0,
      headers: { streamtype: ['error'], port: ['80'], requestid: ['0'] },
    },
  ],
  ['SYN_REPLY', (w) => w.synReply(2, {}), { type: 'syn_reply', streamId: 2, flags: 0, headers: {} }],
  ['RST_STREAM', (w) => w.rstStream(7, 5), { type: 'rst_stream', streamId: 7, status: 5 }],
  ['PING', (w) => w.ping(0xfffffffe), { type: 'ping', id: 0xfffffffe }],
  ['GOAWAY', (w) => w.goAway(9, 0), { type: 'goaway', lastGoodStreamId: 9, status: 0 }],
  ['SETTINGS', (w) => w.settings([{ id: 7, value: 65536 }]), { type: 'settings', flags: 0, entries: [{ id: 7, flags: 0, value: 65536 }] }],
];

test('every frame type round-trips, whole and split at every byte', () => {
  for (const [name, make, want] of frames) {
    const bytes = make(new FrameWriter());
    const whole = new FrameReader().push(bytes);
    assert.deepEqual(whole.map(plain), [plain(want)], name);
    const r = new FrameReader();
    const got: Frame[] = [];
    for (let i = 0; i < bytes.length; i++) got.push(...r.push(bytes.subarray(i, i + 1)));
    assert.deepEqual(got.map(plain), [plain(want)], `${name}, byte by byte`);
  }
});

test('the header compression context is shared by the frames of one direction', () => {
  const w = new FrameWriter();
  const r = new FrameReader();
  const a = w.synStream(1, { streamtype: ['error'], port: ['80'] });
  const b = w.synStream(3, { streamtype: ['data'], port: ['80'] });
  const got = r.push(Buffer.concat([a, b]));
  assert.deepEqual(
    got.map((f) => (f.type === 'syn_stream' ? { ...f.headers } : f.type)),
    [
      { streamtype: ['error'], port: ['80'] },
      { streamtype: ['data'], port: ['80'] },
    ],
  );
  // A reader that missed the first block cannot inflate the second: the context is stateful.
  assert.throws(() => new FrameReader().push(b), SpdyProtocolError);
});

const hostile: [string, Buffer][] = [
  ['SPDY/2 control frame', Buffer.from([0x80, 2, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1])],
  ['SYN_STREAM shorter than its fixed part', Buffer.from([0x80, 3, 0, 1, 0, 0, 0, 2, 0, 1])],
  ['SYN_STREAM whose header block is not zlib', Buffer.from([0x80, 3, 0, 1, 0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 2])],
  ['RST_STREAM without a status', Buffer.from([0x80, 3, 0, 3, 0, 0, 0, 4, 0, 0, 0, 1])],
  ['SETTINGS claiming more entries than it has', Buffer.from([0x80, 3, 0, 4, 0, 0, 0, 4, 0, 0, 0, 9])],
];

test('frames that break the protocol are SpdyProtocolErrors, never crashes', () => {
  for (const [name, bytes] of hostile) assert.throws(() => new FrameReader().push(bytes), SpdyProtocolError, name);
});

test('header blocks zlib compressed with the dictionary, as Go writes them (flushed per block), inflate in sequence', async () => {
  // Go's spdystream keeps one zlib writer per connection and flushes it after each block: deflate with a
  // sync flush per block stands for it here (a stream the decompressor must read across blocks).
  const blocks = [
    encodeHeaderBlock({ streamtype: ['error'], port: ['80'], requestid: ['0'] }),
    encodeHeaderBlock({ streamtype: ['data'], port: ['80'], requestid: ['0'] }),
    encodeHeaderBlock({ streamtype: ['error'], port: ['80'], requestid: ['1'] }),
  ];
  const z = zlib.createDeflate({ dictionary: SPDY_DICTIONARY });
  const cuts: Buffer[] = [];
  for (const block of blocks) {
    const parts: Buffer[] = [];
    const onData = (d: Buffer) => parts.push(d);
    z.on('data', onData);
    z.write(block);
    await new Promise<void>((resolve) => z.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve()));
    z.off('data', onData);
    cuts.push(Buffer.concat(parts));
  }
  z.destroy();
  const d = new HeaderDecompressor();
  assert.deepEqual(
    cuts.map((c) => ({ ...d.decompress(c) })),
    [
      { streamtype: ['error'], port: ['80'], requestid: ['0'] },
      { streamtype: ['data'], port: ['80'], requestid: ['0'] },
      { streamtype: ['error'], port: ['80'], requestid: ['1'] },
    ],
  );
});

test("the compressor's stream inflates with node's zlib and the dictionary", () => {
  const c = new HeaderCompressor();
  const a = c.compress({ port: ['80'] });
  const b = c.compress({ port: ['81'] });
  const out = zlib.inflateSync(Buffer.concat([a, b]), { dictionary: SPDY_DICTIONARY, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  assert.deepEqual(out, Buffer.concat([encodeHeaderBlock({ port: ['80'] }), encodeHeaderBlock({ port: ['81'] })]));
});

test('a zlib stream with another dictionary is refused', () => {
  const z = zlib.deflateSync(Buffer.from([0, 0, 0, 0]), { dictionary: Buffer.from('other'), finishFlush: zlib.constants.Z_SYNC_FLUSH });
  assert.throws(() => new HeaderDecompressor().decompress(z), /not compressed with the SPDY\/3 dictionary/);
});

test('a truncated header block is refused', () => {
  const z = zlib.deflateSync(Buffer.from([0, 0, 0, 3, 0, 0, 0, 1]), {
    dictionary: SPDY_DICTIONARY,
    finishFlush: zlib.constants.Z_SYNC_FLUSH,
  });
  assert.throws(() => new HeaderDecompressor().decompress(z), /truncated header block/);
});

function plain(f: Frame): unknown {
  return JSON.parse(JSON.stringify(f, (_k, v) => (v && v.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v)));
}
