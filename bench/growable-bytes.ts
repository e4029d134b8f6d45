// Bytes gathered from successive reads into one buffer that grows by
// doubling and is reused once cleared: a response body (load.ts) or a watch
// line cut across reads (watch-stream.ts), without an allocation per read.

/** See the file comment. */
export class GrowableBytes {
  /** The bytes gathered are bytes[0..length). */
  bytes: Buffer;
  length = 0;

  constructor(initialBytes = 16 * 1024) {
    this.bytes = Buffer.allocUnsafe(initialBytes);
  }

  /** Appends `buf[from..to)`. */
  append(buf: Buffer, from: number, to: number): void {
    const n = to - from;
    if (this.length + n > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n));
      this.bytes.copy(bigger, 0, 0, this.length);
      this.bytes = bigger;
    }
    buf.copy(this.bytes, this.length, from, to);
    this.length += n;
  }

  /** Forgets the bytes, keeping the buffer. */
  clear(): void {
    this.length = 0;
  }
}
