// A watch consumer cheap enough that a hundred of them can share the
// benchmark process with the load generator: a raw socket reading into one
// reused buffer (no stream events, no per-read allocation), the chunked
// framing stripped by shared/client/response-parser.ts, lines split as bytes, and only the
// event type, resourceVersion and name picked out of each line by searching
// instead of parsing its ~1.5 KB object. One line in every 500 is also fully
// parsed to check that the shortcut agrees.
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { ResponseParser } from '../shared/client/response-parser.ts';
import { GrowableBytes } from './growable-bytes.ts';
import { openSocket, targetOf, type BenchTarget } from './socket.ts';

const NEWLINE = 10;
const QUOTE = 34;
const ZERO = 48;
const TYPE_AT = '{"type":"'.length;
const RV = Buffer.from('"resourceVersion":"');
/** The byte of RV searched for: "V" is rare in JSON (apiVersion and resourceVersion). */
const RV_RARE = RV.indexOf('V');
const METADATA = Buffer.from('"metadata":{');
const NAME = Buffer.from('"name":"');
/** How objects as the apiserver stores them open metadata. */
const METADATA_NAME = Buffer.from('"metadata":{"name":"');
const METADATA_NAME_RARE = METADATA_NAME.indexOf('{');
const CHECK_EVERY = 500;
/** Event types by their first letter. */
const TYPES: Record<number, string> = { 65: 'ADDED', 77: 'MODIFIED', 68: 'DELETED', 66: 'BOOKMARK', 69: 'ERROR' };
const READ_BUFFER_BYTES = 128 * 1024;

/** Called for every ADDED/MODIFIED/DELETED event; `at` is performance.now() when its bytes arrived. */
export type EventHandler = (type: string, rv: number, name: string, at: number) => void;

/** The decimal number of digits at `buf[from..)` up to the closing quote; NaN if anything else is there. */
function digitsAt(buf: Buffer, from: number, end: number): number {
  let n = 0;
  let i = from;
  for (; i < end; i++) {
    const c = buf[i];
    if (c === QUOTE) break;
    const d = c - ZERO;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return i === from || i === end ? NaN : n;
}

/**
 * Where `needle` first occurs in `buf[from..end)`, or -1. Searches for its
 * byte at `rareAt` with memchr and compares the rest: several times faster
 * than Buffer.indexOf(Buffer), which sets up a Boyer-Moore search per call.
 */
function find(buf: Buffer, needle: Buffer, rareAt: number, from: number, end: number): number {
  const rare = needle[rareAt];
  let p = from + rareAt;
  for (;;) {
    p = buf.indexOf(rare, p);
    const start = p - rareAt;
    if (p < 0 || start + needle.length > end) return -1;
    let k = 0;
    while (k < needle.length && buf[start + k] === needle[k]) k++;
    if (k === needle.length) return start;
    p++;
  }
}

/** Where metadata.name's value starts in the line `buf[s..e)`, or -1, searching the slow way. */
function nameAfterMetadata(buf: Buffer, s: number, e: number): number {
  const metaAt = buf.indexOf(METADATA, s);
  const found = metaAt >= 0 && metaAt < e ? buf.indexOf(NAME, metaAt) : -1;
  return found >= 0 && found < e ? found + NAME.length : -1;
}

/** One watch connection (re-openable from its last resourceVersion) and what it has received. */
export class WatchStream {
  lastRv = 0;
  /** Events whose resourceVersion was not above the previous one. */
  outOfOrder = 0;
  /** ERROR events and transport errors. */
  readonly errors: string[] = [];
  /** Times the server ended the stream while we still wanted it. */
  serverEnds = 0;
  /** Lines fully parsed to check the byte-level extraction, and how many disagreed. */
  checked = 0;
  mismatches = 0;
  onEvent?: EventHandler;

  /**
   * resourceVersions received, in a typed array sized up front: a hundred
   * plain arrays growing by copying, all at the same moments since every
   * watcher gets the same events, stalled this process for 100 ms at a time
   * (fresh memory is slow to touch in a VM), and that counted as latency.
   */
  private received: Float64Array;
  private count = 0;
  private socket?: net.Socket;
  private readonly readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
  /** A line cut by a read, waiting for the rest. */
  /** The start of a line cut by the end of a read. */
  private readonly carry = new GrowableBytes();
  private lines = 0;
  private closing = false;
  private waiters: { rv: number; resolve: (ok: boolean) => void }[] = [];
  /** performance.now() of the read being processed. */
  private readAt = 0;

  constructor(
    /** A base URL (plain http), or an Apiserver (https with its CA and admin certificate). */
    private readonly target: BenchTarget,
    /** Collection path, e.g. /api/v1/pods. */
    private readonly path: string,
    /** About how many events will be received (more is fine, it grows). */
    expectedEvents = 1024,
  ) {
    this.received = new Float64Array(Math.max(16, expectedEvents));
  }

  /** resourceVersions of every object event received, in arrival order. */
  get rvs(): Float64Array {
    return this.received.subarray(0, this.count);
  }

  /** Opens the watch from `fromRv` and resolves once the server answered 200. */
  open(fromRv: number): Promise<void> {
    this.closing = false;
    this.carry.clear();
    if (this.lastRv < fromRv) this.lastRv = fromRv;
    const u = new URL(`${this.path}?watch=true&resourceVersion=${fromRv}`, targetOf(this.target).url);
    return new Promise((resolve, reject) => {
      let answered = false;
      let ended = false;
      let status = 0;
      const errorBody: Buffer[] = [];
      const parser = new ResponseParser({
        onHead: (code) => {
          status = code;
          if (code === 200) {
            answered = true;
            resolve();
          }
        },
        onBody: (buf, start, end) => {
          if (status === 200) this.onBody(buf, start, end);
          else errorBody.push(Buffer.from(buf.subarray(start, end)));
        },
        onEnd: () => {
          ended = true;
          if (status !== 200) {
            reject(new Error(`watch ${u.pathname}${u.search}: HTTP ${status}: ${Buffer.concat(errorBody).toString().slice(0, 300)}`));
            socket.destroy();
          } else if (!this.closing) this.serverEnds++;
        },
      });
      const socket: net.Socket = openSocket(this.target, {
        buffer: this.readBuffer,
        callback: (n: number, buf: Buffer) => {
          this.readAt = performance.now();
          try {
            parser.feed(buf.subarray(0, n), 0, n);
          } catch (err) {
            this.errors.push((err as Error).message);
            socket.destroy();
          }
          this.wakeWaiters();
          return true;
        },
      });
      socket.setNoDelay(true);
      socket.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nAccept: application/json\r\n\r\n`);
      socket.on('error', (err) => {
        if (!this.closing && answered) this.errors.push(err.message);
        if (!answered) reject(err);
      });
      socket.on('close', () => {
        if (!answered) reject(new Error(`watch ${u.pathname}${u.search}: connection closed before an answer`));
        else if (!ended && !this.closing) this.serverEnds++;
      });
      this.socket = socket;
    });
  }

  /** Forgets what was received so far (after a warm-up); the stream stays open. */
  resetReceived(): void {
    this.count = 0;
    this.outOfOrder = 0;
  }

  /** Drops the connection from the client side. */
  close(): void {
    this.closing = true;
    this.socket?.destroy();
    this.socket = undefined;
  }

  /** Resolves true once an event with resourceVersion >= rv arrived, false after timeoutMs. */
  waitForRv(rv: number, timeoutMs: number): Promise<boolean> {
    if (this.lastRv >= rv) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { rv, resolve };
      this.waiters.push(waiter);
      setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) {
          this.waiters.splice(i, 1);
          resolve(false);
        }
      }, timeoutMs).unref();
    });
  }

  private wakeWaiters(): void {
    if (this.waiters.length === 0) return;
    this.waiters = this.waiters.filter((w) => {
      if (this.lastRv < w.rv) return true;
      w.resolve(true);
      return false;
    });
  }

  /** Body bytes `buf[start..end)`: splits them into lines, carrying a cut line over to the next read. */
  private onBody(buf: Buffer, start: number, end: number): void {
    let from = start;
    if (this.carry.length > 0) {
      const nl = buf.indexOf(NEWLINE, from);
      const to = nl >= 0 && nl < end ? nl : end;
      this.carry.append(buf, from, to);
      if (to === end) return;
      this.onLine(this.carry.bytes, 0, this.carry.length);
      this.carry.clear();
      from = nl + 1;
    }
    let nl = buf.indexOf(NEWLINE, from);
    while (nl >= 0 && nl < end) {
      this.onLine(buf, from, nl);
      from = nl + 1;
      nl = buf.indexOf(NEWLINE, from);
    }
    if (from < end) this.carry.append(buf, from, end);
  }

  private onLine(buf: Buffer, s: number, e: number): void {
    if (e <= s) return;
    const type = TYPES[buf[s + TYPE_AT]];
    if (type === 'BOOKMARK') return;
    if (type === undefined || type === 'ERROR') {
      this.errors.push(buf.toString('utf8', s, e).slice(0, 300));
      return;
    }
    let name = '';
    let from = s;
    const check = ++this.lines % CHECK_EVERY === 1;
    if (this.onEvent || check) {
      // Objects as the apiserver stores them open metadata with the name, and resourceVersion follows.
      let at = find(buf, METADATA_NAME, METADATA_NAME_RARE, s, e);
      const first = at >= 0;
      at = first ? at + METADATA_NAME.length : nameAfterMetadata(buf, s, e);
      if (at >= 0) {
        let end = at;
        while (end < e && buf[end] !== QUOTE) end++;
        name = buf.toString('latin1', at, end);
        if (first) from = end;
      }
    }
    const rvAt = find(buf, RV, RV_RARE, from, e);
    let rv = rvAt >= 0 ? digitsAt(buf, rvAt + RV.length, e) : NaN;
    if (check || Number.isNaN(rv)) {
      const ev = JSON.parse(buf.toString('utf8', s, e));
      const realRv = Number(ev.object?.metadata?.resourceVersion);
      const realName = String(ev.object?.metadata?.name);
      this.checked++;
      if (realRv !== rv || realName !== name || ev.type !== type) this.mismatches++;
      rv = realRv;
      name = realName;
    }
    if (rv <= this.lastRv && this.count > 0) this.outOfOrder++;
    if (this.count === this.received.length) {
      const bigger = new Float64Array(this.count * 2);
      bigger.set(this.received);
      this.received = bigger;
    }
    this.received[this.count++] = rv;
    if (rv > this.lastRv) this.lastRv = rv;
    this.onEvent?.(type, rv, name, this.readAt);
  }
}

/** How a watcher's received resourceVersions compare with the ones expected. */
export interface SequenceCheck {
  missing: number;
  extra: number;
  outOfOrder: number;
  duplicates: number;
}

/** Compares `received` (arrival order) with the set of resourceVersions every watcher should get. */
export function checkSequence(received: ArrayLike<number> & Iterable<number>, expected: ReadonlySet<number>): SequenceCheck {
  let outOfOrder = 0;
  for (let i = 1; i < received.length; i++) if (received[i] <= received[i - 1]) outOfOrder++;
  const seen = new Set<number>();
  let extra = 0;
  let duplicates = 0;
  let matched = 0;
  for (const rv of received) {
    if (seen.has(rv)) duplicates++;
    else if (expected.has(rv)) matched++;
    else extra++;
    seen.add(rv);
  }
  return { missing: expected.size - matched, extra, outOfOrder, duplicates };
}

/** Sums the checks of many watchers. */
export function sumChecks(checks: SequenceCheck[]): SequenceCheck {
  const total = { missing: 0, extra: 0, outOfOrder: 0, duplicates: 0 };
  for (const c of checks) {
    total.missing += c.missing;
    total.extra += c.extra;
    total.outOfOrder += c.outOfOrder;
    total.duplicates += c.duplicates;
  }
  return total;
}
