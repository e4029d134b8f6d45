// A watch consumer cheap enough that a hundred of them can share the
// benchmark process with the load generator: it splits the NDJSON stream
// into lines as bytes and picks out only the event type, resourceVersion
// and name by searching, instead of parsing each ~1.5 KB object. One line
// in every 500 is also fully parsed to check that the shortcut agrees.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const NEWLINE = 10;
const TYPE_PREFIX_LEN = '{"type":"'.length;
const RV = Buffer.from('"resourceVersion":"');
const METADATA = Buffer.from('"metadata":{');
const NAME = Buffer.from('"name":"');
const QUOTE = 34;
const CHECK_EVERY = 500;
const TYPES: Record<string, string> = { A: 'ADDED', M: 'MODIFIED', D: 'DELETED', B: 'BOOKMARK', E: 'ERROR' };

/** Called for every ADDED/MODIFIED/DELETED event; `at` is performance.now() when its bytes arrived. */
export type EventHandler = (type: string, rv: number, name: string, at: number) => void;

function readUntilQuote(buf: Buffer, from: number): string {
  const end = buf.indexOf(QUOTE, from);
  return buf.toString('latin1', from, end);
}

/** One watch connection (re-openable from its last resourceVersion) and what it has received. */
export class WatchStream {
  /** resourceVersions of every object event received, in arrival order. */
  readonly rvs: number[] = [];
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

  private req?: http.ClientRequest;
  private partial: Buffer[] | null = null;
  private lines = 0;
  private closing = false;
  private waiters: { rv: number; resolve: (ok: boolean) => void }[] = [];

  constructor(
    private readonly baseUrl: string,
    /** Collection path, e.g. /api/v1/pods. */
    private readonly path: string,
  ) {}

  /** Opens the watch from `fromRv` and resolves once the server answered 200. */
  open(fromRv: number): Promise<void> {
    this.closing = false;
    this.partial = null;
    if (this.lastRv < fromRv) this.lastRv = fromRv;
    const u = new URL(`${this.path}?watch=true&resourceVersion=${fromRv}`, this.baseUrl);
    return new Promise((resolve, reject) => {
      const req = http.get(u, { agent: false, headers: { accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => reject(new Error(`watch ${u.pathname}${u.search}: HTTP ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`)));
          return;
        }
        res.on('data', (chunk: Buffer) => this.onData(chunk));
        res.on('end', () => {
          if (!this.closing) this.serverEnds++;
        });
        res.on('error', () => {});
        resolve();
      });
      req.on('error', (err) => {
        if (!this.closing) this.errors.push(err.message);
        reject(err);
      });
      this.req = req;
    });
  }

  /** Forgets what was received so far (after a warm-up); the stream stays open. */
  resetReceived(): void {
    this.rvs.length = 0;
    this.outOfOrder = 0;
  }

  /** Drops the connection from the client side. */

  close(): void {
    this.closing = true;
    this.req?.destroy();
    this.req = undefined;
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

  private onData(chunk: Buffer): void {
    const at = performance.now();
    let start = 0;
    let nl = chunk.indexOf(NEWLINE);
    if (this.partial) {
      if (nl < 0) {
        this.partial.push(chunk);
        return;
      }
      this.partial.push(chunk.subarray(0, nl));
      const line = Buffer.concat(this.partial);
      this.partial = null;
      this.onLine(line, 0, line.length, at);
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    while (nl >= 0) {
      this.onLine(chunk, start, nl, at);
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) this.partial = [chunk.subarray(start)];
    if (this.waiters.length > 0) {
      this.waiters = this.waiters.filter((w) => {
        if (this.lastRv < w.rv) return true;
        w.resolve(true);
        return false;
      });
    }
  }

  private onLine(buf: Buffer, s: number, e: number, at: number): void {
    if (e <= s) return;
    const type = TYPES[String.fromCharCode(buf[s + TYPE_PREFIX_LEN])];
    if (type === 'BOOKMARK') return;
    if (type === undefined || type === 'ERROR') {
      this.errors.push(buf.toString('utf8', s, e).slice(0, 300));
      return;
    }
    let rv = NaN;
    let name = '';
    const rvAt = buf.indexOf(RV, s);
    const metaAt = buf.indexOf(METADATA, s);
    const nameAt = metaAt >= 0 && metaAt < e ? buf.indexOf(NAME, metaAt) : -1;
    if (rvAt >= 0 && rvAt < e && nameAt >= 0 && nameAt < e) {
      rv = Number(readUntilQuote(buf, rvAt + RV.length));
      name = readUntilQuote(buf, nameAt + NAME.length);
    }
    if (Number.isNaN(rv) || ++this.lines % CHECK_EVERY === 1) {
      const ev = JSON.parse(buf.toString('utf8', s, e));
      const realRv = Number(ev.object?.metadata?.resourceVersion);
      const realName = String(ev.object?.metadata?.name);
      this.checked++;
      if (realRv !== rv || realName !== name || ev.type !== type) this.mismatches++;
      rv = realRv;
      name = realName;
    }
    if (rv <= this.lastRv && this.rvs.length > 0) this.outOfOrder++;
    this.rvs.push(rv);
    if (rv > this.lastRv) this.lastRv = rv;
    this.onEvent?.(type, rv, name, at);
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
export function checkSequence(received: number[], expected: ReadonlySet<number>): SequenceCheck {
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
