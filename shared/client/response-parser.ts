// The one HTTP/1.1 response parser of ksim's own clients on raw sockets (the
// components' connection pool, http1-pool.ts, and the benchmarks' load
// generator and watch readers): incremental, it reads the status line and
// the headers that frame a body (Content-Length, chunked, Connection) and
// hands body bytes over as slices of the read buffer, without copies or
// per-chunk objects. Interim 1xx answers are skipped. node:http's client
// spends more on streams and events than on parsing, and the benchmarks
// measure the apiserver from the same machine.

const LF = 10;
const HEAD_END = Buffer.from('\r\n\r\n');
/** A head longer than this is refused (the peer is not an HTTP server we can trust). */
const MAX_HEAD_BYTES = 64 * 1024;

/** What the parser reports. */
export interface ResponseEvents {
  /** The status line and headers have been read (`head` is their text, without the blank line). */
  onHead(status: number, head: string): void;
  /** Body bytes `buf[start..end)`: a slice of the buffer given to feed(), which may reuse it after the call. */
  onBody(buf: Buffer, start: number, end: number): void;
  /** The body is complete (a keep-alive connection can take the next request). */
  onEnd(): void;
}

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailer,
  UntilClose,
}

/** Parses the responses arriving on one connection, one after the other. */
export class ResponseParser {
  private state = State.Head;
  /** Bytes of an incomplete head or chunk-size line carried over from the previous read. */
  private carry: Buffer | null = null;
  private remaining = 0;
  private chunkSize = 0;
  /** Set by the caller before each response whose body is empty whatever its headers say (HEAD). */
  noBody = false;
  /** True when the last response said the connection closes after it (Connection: close, or HTTP/1.0 without keep-alive). */
  closeAfter = false;

  constructor(private readonly events: ResponseEvents) {}

  /** True between responses, with nothing of the next one read yet. */
  get idle(): boolean {
    return this.state === State.Head && this.carry === null;
  }

  /** The connection closed: ends a body that runs until close; false if a response was cut short. */
  closed(): boolean {
    if (this.state === State.UntilClose) {
      this.state = State.Head;
      this.events.onEnd();
      return true;
    }
    return this.state === State.Head && this.carry === null;
  }

  /** Feeds `buf[start..end)`. */
  feed(buf: Buffer, start: number, end: number): void {
    let i = start;
    while (i < end) {
      switch (this.state) {
        case State.Head: {
          i = this.readHead(buf, i, end);
          break;
        }
        case State.Length: {
          i = this.passBody(buf, i, end);
          if (this.remaining === 0) this.finish();
          break;
        }
        case State.UntilClose: {
          this.events.onBody(buf, i, end);
          i = end;
          break;
        }
        case State.ChunkSize:
        case State.Trailer: {
          const lf = buf.indexOf(LF, i);
          if (lf < 0 || lf >= end) {
            this.carry = this.carry ? Buffer.concat([this.carry, buf.subarray(i, end)]) : Buffer.from(buf.subarray(i, end));
            i = end;
            break;
          }
          let line = buf.toString('latin1', i, lf);
          if (this.carry) {
            line = this.carry.toString('latin1') + line;
            this.carry = null;
          }
          i = lf + 1;
          if (line.endsWith('\r')) line = line.slice(0, -1);
          if (this.state === State.Trailer) {
            if (line === '') this.finish();
            break;
          }
          this.chunkSize = parseInt(line, 16);
          if (!(this.chunkSize >= 0)) throw new Error(`bad chunk size line ${JSON.stringify(line)}`);
          this.remaining = this.chunkSize;
          this.state = this.chunkSize === 0 ? State.Trailer : State.ChunkData;
          break;
        }
        case State.ChunkData: {
          i = this.passBody(buf, i, end);
          if (this.remaining === 0) {
            this.remaining = 2;
            this.state = State.ChunkDataEnd;
          }
          break;
        }
        case State.ChunkDataEnd: {
          // The CRLF after a chunk's data.
          i++;
          if (--this.remaining === 0) this.state = State.ChunkSize;
          break;
        }
      }
    }
  }

  /** Hands over as much of the `remaining` body bytes as `buf[i..end)` holds; returns where they stop. */
  private passBody(buf: Buffer, i: number, end: number): number {
    const n = Math.min(this.remaining, end - i);
    this.events.onBody(buf, i, i + n);
    this.remaining -= n;
    return i + n;
  }

  private finish(): void {
    this.state = State.Head;
    this.events.onEnd();
  }

  /** Reads (the rest of) a head; returns where the body starts, or `end` when the head is still incomplete. */
  private readHead(buf: Buffer, start: number, end: number): number {
    let data = buf;
    let from = start;
    let to = end;
    if (this.carry) {
      data = Buffer.concat([this.carry, buf.subarray(start, end)]);
      from = 0;
      to = data.length;
    }
    const at = data.indexOf(HEAD_END, from);
    if (at < 0 || at + 4 > to) {
      if (to - from > MAX_HEAD_BYTES) throw new Error('response head too large');
      this.carry = Buffer.from(data.subarray(from, to));
      return end;
    }
    const consumedFromCarry = this.carry ? this.carry.length : 0;
    this.carry = null;
    const head = data.toString('latin1', from, at);
    const bodyStart = at + 4 - consumedFromCarry + (data === buf ? 0 : start);
    const statusLine = /^HTTP\/1\.([01]) (\d{3})/.exec(head);
    if (!statusLine) throw new Error(`bad response status line: ${JSON.stringify(head.slice(0, 80))}`);
    const status = Number(statusLine[2]);
    // 100 Continue and the like: the real answer follows.
    if (status >= 100 && status < 200) return bodyStart;
    const lower = head.toLowerCase();
    const lengthMatch = /\r\ncontent-length:\s*(\d+)/.exec(lower);
    const chunked = /\r\ntransfer-encoding:[^\r]*chunked/.test(lower);
    const connection = /\r\nconnection:([^\r]*)/.exec(lower)?.[1] ?? '';
    this.closeAfter = connection.includes('close') || (statusLine[1] === '0' && !connection.includes('keep-alive'));
    this.events.onHead(status, head);
    if (this.noBody || status === 204 || status === 304) {
      this.noBody = false;
      this.finish();
    } else if (chunked) this.state = State.ChunkSize;
    else if (lengthMatch) {
      this.remaining = Number(lengthMatch[1]);
      if (this.remaining === 0) this.finish();
      else this.state = State.Length;
    } else this.state = State.UntilClose;
    return bodyStart;
  }
}
