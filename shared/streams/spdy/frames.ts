// SPDY/3.1 framing (the draft-3.1 spec), written by hand: kube's port-forward
// still speaks SPDY (kubectl's fallback, and inside kubectl 1.35's WebSocket
// tunnel), npm's SPDY packages are unmaintained and bound to node's http
// internals, and the part kube uses is small: the frame layouts below and
// zlib-compressed header blocks with SPDY's dictionary, one compression
// context per direction for the life of the connection. Flow control is not
// enforced, as moby/spdystream (kube's implementation) does not enforce it.
import zlib from 'node:zlib';
import { SPDY_DICTIONARY } from './dictionary.ts';

export const SPDY_VERSION = 3;
export const FLAG_FIN = 0x01;
export const FLAG_UNIDIRECTIONAL = 0x02;

/** Control frame types. */
export const FrameType = {
  SynStream: 1,
  SynReply: 2,
  RstStream: 3,
  Settings: 4,
  Ping: 6,
  GoAway: 7,
  Headers: 8,
  WindowUpdate: 9,
} as const;
type ControlType = (typeof FrameType)[keyof typeof FrameType];

/** RST_STREAM status codes. */
export const RST = { PROTOCOL_ERROR: 1, INVALID_STREAM: 2, REFUSED_STREAM: 3, CANCEL: 5, INTERNAL_ERROR: 6, STREAM_IN_USE: 8 } as const;

/** Header names (lower case, as SPDY requires) and their values. */
export type SpdyHeaders = Record<string, string[]>;

/** One decoded frame. */
export type Frame =
  | { type: 'data'; streamId: number; flags: number; data: Buffer }
  | { type: 'syn_stream'; streamId: number; associatedId: number; priority: number; flags: number; headers: SpdyHeaders }
  | { type: 'syn_reply'; streamId: number; flags: number; headers: SpdyHeaders }
  | { type: 'rst_stream'; streamId: number; status: number }
  | { type: 'settings'; flags: number; entries: { id: number; flags: number; value: number }[] }
  | { type: 'ping'; id: number }
  | { type: 'goaway'; lastGoodStreamId: number; status: number }
  | { type: 'headers'; streamId: number; flags: number; headers: SpdyHeaders }
  | { type: 'window_update'; streamId: number; delta: number }
  | { type: 'unknown'; frameType: number; flags: number };

/** A frame that breaks the protocol: the connection cannot go on. */
export class SpdyProtocolError extends Error {}

/** The largest decompressed header block accepted (a hostile peer's zip bomb stops here). */
const MAX_HEADER_BLOCK = 256 * 1024;
/** The largest frame accepted (SPDY's length field allows 16 MiB; nothing kube sends comes close). */
export const MAX_FRAME = 1 << 24;

/** zlib's Adler-32 (the id of a preset dictionary in a zlib header). */
export function adler32(buf: Buffer): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < buf.length; i++) {
    a = (a + buf[i]) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** An empty, non-final stored deflate block. */
const SYNC_MARKER = Buffer.from([0, 0, 0, 0xff, 0xff]);

/** The deflate window: how far back a block may refer. */
const WINDOW = 32 * 1024;

/**
 * Compresses header blocks for one direction of a connection. The output is
 * one zlib stream (header with SPDY's dictionary id, then a stored deflate
 * block per header block): any inflater reads it, and node's zlib offers no
 * synchronous API for a context that lives across calls. Header blocks are a
 * few dozen bytes; not compressing them costs nothing that matters.
 */
export class HeaderCompressor {
  private started = false;

  compress(headers: SpdyHeaders): Buffer {
    const raw = encodeHeaderBlock(headers);
    const parts: Buffer[] = [];
    if (!this.started) {
      this.started = true;
      const head = Buffer.alloc(6);
      head[0] = 0x78;
      head[1] = 0x20 | ((31 - ((0x78 * 256 + 0x20) % 31)) % 31);
      head.writeUInt32BE(adler32(SPDY_DICTIONARY), 2);
      parts.push(head);
    }
    for (let off = 0; off === 0 || off < raw.length; off += 0xffff) {
      const chunk = raw.subarray(off, off + 0xffff);
      const h = Buffer.alloc(5);
      h[0] = 0; // BFINAL 0, BTYPE 00 (stored); the stream is always byte-aligned here
      h.writeUInt16LE(chunk.length, 1);
      h.writeUInt16LE(~chunk.length & 0xffff, 3);
      parts.push(h, chunk);
    }
    // The empty stored block of a sync flush: Go's inflater hands a block's bytes over only once it sees
    // the next block begin, so without it the peer would read past the frame.
    parts.push(SYNC_MARKER);
    return Buffer.concat(parts);
  }
}

/**
 * Decompresses header blocks for one direction of a connection. Each block the
 * peer sends ends with a sync flush, so it is whole deflate blocks: it inflates
 * on its own given the window before it (the dictionary and what earlier blocks
 * inflated to), which is the only state a sync-flushed stream carries over.
 */
export class HeaderDecompressor {
  private window: Buffer = SPDY_DICTIONARY;
  private started = false;

  decompress(block: Buffer): SpdyHeaders {
    let body = block;
    if (!this.started) {
      if (block.length < 2 || ((block[0] << 8) | block[1]) % 31 !== 0 || (block[0] & 0x0f) !== 8)
        throw new SpdyProtocolError('bad header block: not a zlib stream');
      const fdict = (block[1] & 0x20) !== 0;
      if (fdict && (block.length < 6 || block.readUInt32BE(2) !== adler32(SPDY_DICTIONARY)))
        throw new SpdyProtocolError('bad header block: not compressed with the SPDY/3 dictionary');
      body = block.subarray(fdict ? 6 : 2);
      this.started = true;
    }
    let raw: Buffer;
    try {
      raw = zlib.inflateRawSync(body, {
        dictionary: this.window,
        finishFlush: zlib.constants.Z_SYNC_FLUSH,
        maxOutputLength: MAX_HEADER_BLOCK,
      });
    } catch (err) {
      throw new SpdyProtocolError(`bad header block: ${(err as Error).message}`);
    }
    const w = Buffer.concat([this.window, raw]);
    this.window = w.length > WINDOW ? Buffer.from(w.subarray(w.length - WINDOW)) : w;
    return decodeHeaderBlock(raw);
  }
}

/** The uncompressed name/value block: a count, then each name and value with 32-bit lengths (several values NUL-joined). */
export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const entries = Object.entries(headers);
  parts.push(u32(entries.length));
  for (const [name, values] of entries) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(values.join('\0'), 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

/** Reads a name/value block; a truncated or duplicated one is a protocol error. */
export function decodeHeaderBlock(raw: Buffer): SpdyHeaders {
  let off = 0;
  const need = (n: number) => {
    if (off + n > raw.length) throw new SpdyProtocolError('truncated header block');
  };
  need(4);
  const count = raw.readUInt32BE(off);
  off += 4;
  const out: SpdyHeaders = Object.create(null);
  for (let i = 0; i < count; i++) {
    need(4);
    const nl = raw.readUInt32BE(off);
    off += 4;
    need(nl);
    const name = raw.toString('utf8', off, off + nl);
    off += nl;
    need(4);
    const vl = raw.readUInt32BE(off);
    off += 4;
    need(vl);
    const value = raw.toString('utf8', off, off + vl);
    off += vl;
    if (!name || name in out) throw new SpdyProtocolError(`invalid header name ${JSON.stringify(name)}`);
    out[name] = value.split('\0');
  }
  return out;
}

function control(type: ControlType, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(body.length, 4);
  head[4] = flags;
  return Buffer.concat([head, body]);
}

/** Encodes frames for one direction of a connection (it owns that direction's header compressor). */
export class FrameWriter {
  private readonly headers = new HeaderCompressor();

  data(streamId: number, data: Buffer, fin = false): Buffer {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(streamId & 0x7fffffff, 0);
    head.writeUInt32BE(data.length, 4);
    head[4] = fin ? FLAG_FIN : 0;
    return Buffer.concat([head, data]);
  }

  synStream(streamId: number, headers: SpdyHeaders, flags = 0, associatedId = 0, priority = 0): Buffer {
    const b = Buffer.alloc(10);
    b.writeUInt32BE(streamId & 0x7fffffff, 0);
    b.writeUInt32BE(associatedId & 0x7fffffff, 4);
    b[8] = (priority & 7) << 5;
    return control(FrameType.SynStream, flags, Buffer.concat([b, this.headers.compress(headers)]));
  }

  synReply(streamId: number, headers: SpdyHeaders, flags = 0): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(streamId & 0x7fffffff, 0);
    return control(FrameType.SynReply, flags, Buffer.concat([b, this.headers.compress(headers)]));
  }

  rstStream(streamId: number, status: number): Buffer {
    const b = Buffer.alloc(8);
    b.writeUInt32BE(streamId & 0x7fffffff, 0);
    b.writeUInt32BE(status, 4);
    return control(FrameType.RstStream, 0, b);
  }

  ping(id: number): Buffer {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(id >>> 0, 0);
    return control(FrameType.Ping, 0, b);
  }

  goAway(lastGoodStreamId: number, status = 0): Buffer {
    const b = Buffer.alloc(8);
    b.writeUInt32BE(lastGoodStreamId & 0x7fffffff, 0);
    b.writeUInt32BE(status, 4);
    return control(FrameType.GoAway, 0, b);
  }

  settings(entries: { id: number; flags?: number; value: number }[]): Buffer {
    const b = Buffer.alloc(4 + 8 * entries.length);
    b.writeUInt32BE(entries.length, 0);
    entries.forEach((e, i) => {
      b.writeUInt32BE(e.id & 0xffffff, 4 + 8 * i);
      b[4 + 8 * i] = e.flags ?? 0;
      b.writeUInt32BE(e.value >>> 0, 8 + 8 * i);
    });
    return control(FrameType.Settings, 0, b);
  }
}

/** Decodes the frames of one direction of a connection from its bytes, as they arrive in any chunking. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);
  private readonly headers = new HeaderDecompressor();

  /** Adds bytes; returns the frames now complete. Throws SpdyProtocolError on a frame that breaks the protocol. */
  push(chunk: Buffer): Frame[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Frame[] = [];
    while (this.buf.length >= 8) {
      const len = this.buf.readUInt32BE(4) & 0xffffff;
      if (this.buf.length < 8 + len) break;
      const frame = this.buf.subarray(0, 8 + len);
      this.buf = this.buf.subarray(8 + len);
      out.push(this.decode(frame));
    }
    return out;
  }

  private decode(f: Buffer): Frame {
    const flags = f[4];
    const body = f.subarray(8);
    if ((f[0] & 0x80) === 0) return { type: 'data', streamId: f.readUInt32BE(0) & 0x7fffffff, flags, data: Buffer.from(body) };
    const version = f.readUInt16BE(0) & 0x7fff;
    if (version !== SPDY_VERSION) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
    const type = f.readUInt16BE(2);
    const need = (n: number) => {
      if (body.length < n) throw new SpdyProtocolError(`control frame ${type} too short`);
    };
    const id = () => body.readUInt32BE(0) & 0x7fffffff;
    switch (type) {
      case FrameType.SynStream:
        need(10);
        return {
          type: 'syn_stream',
          streamId: id(),
          associatedId: body.readUInt32BE(4) & 0x7fffffff,
          priority: body[8] >> 5,
          flags,
          headers: this.headers.decompress(body.subarray(10)),
        };
      case FrameType.SynReply:
        need(4);
        return { type: 'syn_reply', streamId: id(), flags, headers: this.headers.decompress(body.subarray(4)) };
      case FrameType.Headers:
        need(4);
        return { type: 'headers', streamId: id(), flags, headers: this.headers.decompress(body.subarray(4)) };
      case FrameType.RstStream:
        need(8);
        return { type: 'rst_stream', streamId: id(), status: body.readUInt32BE(4) };
      case FrameType.Settings: {
        need(4);
        const n = body.readUInt32BE(0);
        need(4 + 8 * n);
        const entries = [];
        for (let i = 0; i < n; i++)
          entries.push({ flags: body[4 + 8 * i], id: body.readUInt32BE(4 + 8 * i) & 0xffffff, value: body.readUInt32BE(8 + 8 * i) });
        return { type: 'settings', flags, entries };
      }
      case FrameType.Ping:
        need(4);
        return { type: 'ping', id: body.readUInt32BE(0) };
      case FrameType.GoAway:
        need(4);
        return { type: 'goaway', lastGoodStreamId: id(), status: body.length >= 8 ? body.readUInt32BE(4) : 0 };
      case FrameType.WindowUpdate:
        need(8);
        return { type: 'window_update', streamId: id(), delta: body.readUInt32BE(4) & 0x7fffffff };
      default:
        return { type: 'unknown', frameType: type, flags };
    }
  }
}
