// One SPDY/3.1 connection over a byte stream (a TCP or TLS socket, or the
// bytes of kubectl's WebSocket tunnel), as moby/spdystream runs it for kube:
// the client opens odd-numbered streams and the server even ones, every
// SYN_STREAM is answered with a SYN_REPLY, PINGs are echoed, and each stream
// is a node Duplex whose end() is a FIN (a half close) and whose destroy()
// is a RST_STREAM. A frame that breaks the protocol ends the connection with
// a GOAWAY, never the process.
import { Duplex } from 'node:stream';
import { FrameReader, FrameWriter, FLAG_FIN, RST, SpdyProtocolError, type Frame, type SpdyHeaders } from './frames.ts';

/** The byte stream a session runs on. */
export interface SpdyTransport {
  write(data: Buffer): unknown;
  end(): unknown;
  destroy(): unknown;
}

/** The largest data frame this end sends (kube's peers read any size; small frames keep streams interleaved). */
const MAX_DATA_FRAME = 32 * 1024;
/** Streams one connection may hold open at once (a hostile client cannot grow the map without bound). */
const MAX_STREAMS = 1024;

/** One SPDY stream: its SYN headers, and the bytes both ways. */
export class SpdyStream extends Duplex {
  private localFin = false;
  private remoteFin = false;
  private replied: boolean;

  constructor(
    private readonly session: SpdySession,
    readonly id: number,
    readonly headers: SpdyHeaders,
    replied: boolean,
  ) {
    super({ allowHalfOpen: true });
    this.replied = replied;
  }

  /** One header's first value, or ''. */
  header(name: string): string {
    return this.headers[name.toLowerCase()]?.[0] ?? '';
  }

  /** @internal data from the peer */
  onPeerData(data: Buffer, fin: boolean): void {
    if (this.remoteFin) return this.session.resetStream(this, RST.STREAM_IN_USE);
    if (data.length) this.push(data);
    if (fin) this.onPeerFin();
  }

  /** @internal */
  onPeerFin(): void {
    if (this.remoteFin) return;
    this.remoteFin = true;
    this.push(null);
    this.maybeDone();
  }

  /** @internal the peer reset the stream, or the connection ended */
  onReset(): void {
    this.localFin = this.remoteFin = true;
    this.destroy();
  }

  /** @internal */
  markReplied(): void {
    this.replied = true;
  }

  /** Socket methods node's HTTP client calls on its connection; a stream has no socket options. */
  setTimeout(): this {
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (this.localFin) return cb(new Error('stream closed'));
    for (let off = 0; off < chunk.length; off += MAX_DATA_FRAME)
      this.session.sendData(this.id, chunk.subarray(off, off + MAX_DATA_FRAME), false);
    cb();
  }

  override _final(cb: (err?: Error | null) => void): void {
    if (!this.localFin) {
      this.localFin = true;
      this.session.sendData(this.id, Buffer.alloc(0), true);
      this.maybeDone();
    }
    cb();
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    if (!this.localFin || !this.remoteFin) this.session.resetStream(this, RST.CANCEL);
    this.session.forget(this.id);
    cb(err);
  }

  private maybeDone(): void {
    if (this.localFin && this.remoteFin) this.session.forget(this.id);
  }

  get wasReplied(): boolean {
    return this.replied;
  }
}

/** Options of a session. */
export interface SpdySessionOptions {
  role: 'client' | 'server';
  /** A stream the peer opened; throw to refuse it (it is reset, as spdystream resets a refused stream). */
  onStream?(stream: SpdyStream): void;
  /** The connection ended, for whatever reason. */
  onClose?(): void;
  /** A protocol error from the peer (the connection then ends). */
  onError?(err: Error): void;
}

/** See the file comment. */
export class SpdySession {
  private readonly reader = new FrameReader();
  private readonly writer = new FrameWriter();
  private readonly streams = new Map<number, SpdyStream>();
  private nextId: number;
  private lastPeerId = 0;
  private closed = false;
  private readonly pendingReplies = new Map<number, (s: SpdyStream) => void>();

  constructor(
    private readonly io: SpdyTransport,
    private readonly opts: SpdySessionOptions,
  ) {
    this.nextId = opts.role === 'client' ? 1 : 2;
  }

  /** Feeds the bytes the peer sent. */
  receive(chunk: Buffer): void {
    if (this.closed) return;
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch (err) {
      return this.fail(err as Error);
    }
    for (const f of frames) {
      if (this.closed) return;
      try {
        this.handle(f);
      } catch (err) {
        return this.fail(err as Error);
      }
    }
  }

  /** Opens a stream with these headers; resolves once the peer's SYN_REPLY arrives. */
  openStream(headers: SpdyHeaders): SpdyStream {
    if (this.closed) throw new Error('connection closed');
    const id = this.nextId;
    this.nextId += 2;
    const s = new SpdyStream(this, id, headers, false);
    this.streams.set(id, s);
    this.io.write(this.writer.synStream(id, headers));
    return s;
  }

  /** Waits for the SYN_REPLY of a stream this end opened. */
  replied(s: SpdyStream): Promise<void> {
    if (s.wasReplied) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.pendingReplies.set(s.id, () => resolve());
      s.once('close', () => reject(new Error('stream reset before its reply')));
    });
  }

  /** Ends the connection: every stream is reset, a GOAWAY sent, the transport ended. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.io.write(this.writer.goAway(this.lastPeerId));
      this.io.end();
    } catch {
      // the transport is already gone
    }
    this.teardown();
  }

  /** The transport ended or broke under the session. */
  transportClosed(): void {
    if (this.closed) return;
    this.closed = true;
    this.teardown();
  }

  private teardown(): void {
    for (const s of [...this.streams.values()]) s.onReset();
    this.streams.clear();
    this.opts.onClose?.();
  }

  private fail(err: Error): void {
    this.opts.onError?.(err);
    this.close();
    this.io.destroy();
  }

  /** @internal */
  sendData(id: number, data: Buffer, fin: boolean): void {
    if (!this.closed) this.io.write(this.writer.data(id, data, fin));
  }

  /** @internal */
  resetStream(s: SpdyStream, status: number): void {
    if (this.streams.get(s.id) !== s) return;
    this.streams.delete(s.id);
    if (!this.closed) this.io.write(this.writer.rstStream(s.id, status));
    s.onReset();
  }

  /** @internal */
  forget(id: number): void {
    this.streams.delete(id);
  }

  private handle(f: Frame): void {
    switch (f.type) {
      case 'data': {
        const s = this.streams.get(f.streamId);
        // Data for a stream that is gone (reset meanwhile) is dropped; spdystream does the same.
        if (s) s.onPeerData(f.data, (f.flags & FLAG_FIN) !== 0);
        return;
      }
      case 'syn_stream': {
        const mine = this.opts.role === 'client' ? 0 : 1;
        if (f.streamId === 0 || f.streamId % 2 !== mine || f.streamId <= this.lastPeerId)
          throw new SpdyProtocolError(`invalid stream id ${f.streamId}`);
        this.lastPeerId = f.streamId;
        if (this.streams.size >= MAX_STREAMS || !this.opts.onStream) {
          this.io.write(this.writer.rstStream(f.streamId, RST.REFUSED_STREAM));
          return;
        }
        const s = new SpdyStream(this, f.streamId, f.headers, true);
        this.streams.set(f.streamId, s);
        this.io.write(this.writer.synReply(f.streamId, {}));
        if (f.flags & FLAG_FIN) s.onPeerFin();
        try {
          this.opts.onStream(s);
        } catch {
          this.resetStream(s, RST.CANCEL);
        }
        return;
      }
      case 'syn_reply': {
        const s = this.streams.get(f.streamId);
        if (!s) return;
        s.markReplied();
        this.pendingReplies.get(f.streamId)?.(s);
        this.pendingReplies.delete(f.streamId);
        if (f.flags & FLAG_FIN) s.onPeerFin();
        return;
      }
      case 'headers': {
        const s = this.streams.get(f.streamId);
        if (s && f.flags & FLAG_FIN) s.onPeerFin();
        return;
      }
      case 'rst_stream': {
        const s = this.streams.get(f.streamId);
        if (s) {
          this.streams.delete(f.streamId);
          s.onReset();
        }
        return;
      }
      case 'ping': {
        // A ping with the peer's parity is echoed; ours coming back needs nothing.
        const peerParity = this.opts.role === 'client' ? 0 : 1;
        if (f.id % 2 === peerParity) this.io.write(this.writer.ping(f.id));
        return;
      }
      case 'goaway':
        this.close();
        return;
      case 'settings':
      case 'window_update':
      case 'unknown':
        return;
    }
  }
}
