// Just enough HTTP/1.1 for the benchmark's own clients, on raw sockets: an
// incremental response parser (status line, the three headers that frame a
// body, Content-Length and chunked bodies) that hands body bytes over as
// slices of the read buffer, without copies or per-chunk objects. The
// apiserver's hot path is measured against this, so it must cost the
// benchmark process as little as possible; node:http's client spends more
// on streams and events than on parsing.

const LF = 10;
const HEAD_END = Buffer.from('\r\n\r\n');

/** What the parser reports. */
export interface ResponseEvents {
  /** The status line and headers have been read. */
  onHead(status: number, head: string): void;
  /** Body bytes `buf[start..end)`, valid only during the call. */
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
  /** True when the last response asked to close the connection. */
  closeAfter = false;

  constructor(private readonly events: ResponseEvents) {}

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
          const n = Math.min(this.remaining, end - i);
          this.events.onBody(buf, i, i + n);
          i += n;
          this.remaining -= n;
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
          if (Number.isNaN(this.chunkSize)) throw new Error(`bad chunk size line ${JSON.stringify(line)}`);
          this.remaining = this.chunkSize;
          this.state = this.chunkSize === 0 ? State.Trailer : State.ChunkData;
          break;
        }
        case State.ChunkData: {
          const n = Math.min(this.remaining, end - i);
          this.events.onBody(buf, i, i + n);
          i += n;
          this.remaining -= n;
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
      this.carry = Buffer.from(data.subarray(from, to));
      return end;
    }
    const consumedFromCarry = this.carry ? this.carry.length : 0;
    this.carry = null;
    const head = data.toString('latin1', from, at);
    const status = Number(head.slice(9, 12));
    const lower = head.toLowerCase();
    const lengthMatch = /\r\ncontent-length:\s*(\d+)/.exec(lower);
    const chunked = /\r\ntransfer-encoding:[^\r]*chunked/.test(lower);
    this.closeAfter = /\r\nconnection:\s*close/.test(lower);
    this.events.onHead(status, head);
    const bodyStart = at + 4 - consumedFromCarry + (data === buf ? 0 : start);
    if (this.noBody || status === 204 || status === 304 || (status >= 100 && status < 200)) {
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
