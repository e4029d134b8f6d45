// A tiny HTTP load generator: keep-alive connections on raw sockets (one
// request in flight on each, requests written as prebuilt HTTP/1.1 text,
// answers parsed by shared/client/response-parser.ts), closed-loop workers (each sends its next
// request when the previous answer arrives) and an open-loop pacer (requests
// at a fixed rate whatever the answers do), with latency samples. It shares
// the machine with the apiserver it measures, so every microsecond it
// spends is taken from the figures: node:http's client costs several times
// more per request. Over https (an apiserver's default) the connections are
// TLS, with the admin's client certificate: each is set up once and kept.
import type net from 'node:net';
import { performance } from 'node:perf_hooks';
import { ResponseParser } from '../shared/client/response-parser.ts';
import { Fifo } from '../shared/util/fifo.ts';
import { GrowableBytes } from './growable-bytes.ts';
import { openSocket, targetOf, type BenchTarget } from './socket.ts';

/** An HTTP answer, body as text. */
export interface HttpResult {
  status: number;
  body: string;
}

interface Job {
  text: string;
  head: boolean;
  resolve: (r: HttpResult) => void;
  reject: (err: Error) => void;
}

/** Bytes read per socket read: one buffer per connection, reused for every read. */
const READ_BUFFER_BYTES = 64 * 1024;

/** One keep-alive connection with at most one request in flight. */
class Connection {
  readonly socket: net.Socket;
  private readonly parser: ResponseParser;
  private job: Job | undefined;
  private status = 0;
  /** The body being read, copied out of the read buffer (reused between responses). */
  private readonly body = new GrowableBytes();
  private gone = false;
  private ending = false;

  constructor(
    target: BenchTarget,
    /** Called when the answer is complete and the connection can take another request. */
    private readonly onFree: (c: Connection) => void,
    /** Called once when the connection is closed, whatever the reason. */
    private readonly onGone: (c: Connection) => void,
  ) {
    this.parser = new ResponseParser({
      onHead: (status) => {
        this.status = status;
        this.body.clear();
      },
      onBody: (buf, start, end) => this.body.append(buf, start, end),
      onEnd: () => {
        const job = this.job;
        this.job = undefined;
        job?.resolve({ status: this.status, body: this.body.bytes.toString('utf8', 0, this.body.length) });
        if (this.parser.closeAfter || this.ending) this.socket.destroy();
        else this.onFree(this);
      },
    });
    const buffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);
    this.socket = openSocket(target, {
      buffer,
      callback: (n: number, buf: Buffer) => {
        try {
          // A view of just the bytes read: searches must not run into what earlier reads left in the buffer.
          this.parser.feed(buf.subarray(0, n), 0, n);
        } catch (err) {
          this.fail(err as Error);
        }
        return true;
      },
    });
    this.socket.setNoDelay(true);
    this.socket.on('error', (err) => this.fail(err));
    this.socket.on('end', () => {
      this.ending = true;
      this.parser.closed();
      this.socket.destroy();
    });
    this.socket.on('close', () => this.fail(new Error('connection closed before the answer')));
  }

  send(job: Job): void {
    this.job = job;
    this.parser.noBody = job.head;
    this.socket.write(job.text);
  }

  private fail(err: Error): void {
    const job = this.job;
    this.job = undefined;
    job?.reject(err);
    if (this.gone) return;
    this.gone = true;
    this.socket.destroy();
    this.onGone(this);
  }
}

/** A keep-alive client for one apiserver: at most `concurrency` connections, requests beyond wait for a free one. */
export class LoadClient {
  private readonly target: BenchTarget;
  private readonly hostHeader: string;
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly waiting = new Fifo<Job>();
  private closed = false;

  constructor(
    /** A base URL (plain http), or an Apiserver (https with its CA and admin certificate). */
    target: BenchTarget,
    private readonly concurrency: number,
  ) {
    this.target = target;
    this.hostHeader = new URL(targetOf(target).url).host;
  }

  /** Sends one request; rejects only on a transport error, not on an HTTP error status. */
  request(method: string, path: string, body?: string, contentType = 'application/json'): Promise<HttpResult> {
    if (this.closed) return Promise.reject(new Error('LoadClient is closed'));
    let text = `${method} ${path} HTTP/1.1\r\nHost: ${this.hostHeader}\r\nAccept: application/json\r\n`;
    if (body !== undefined) text += `Content-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    else text += '\r\n';
    return new Promise((resolve, reject) => {
      const job: Job = { text, head: method === 'HEAD', resolve, reject };
      const conn = this.idle.pop() ?? (this.all.size < this.concurrency ? this.connect() : undefined);
      if (conn) conn.send(job);
      else this.waiting.push(job);
    });
  }

  /** Like request, but throws unless the status is 2xx. */
  async expectOk(method: string, path: string, body?: string, contentType?: string): Promise<HttpResult> {
    const r = await this.request(method, path, body, contentType);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
    return r;
  }

  close(): void {
    this.closed = true;
    for (const c of [...this.all]) c.socket.destroy();
    for (const job of this.waiting.drain()) job.reject(new Error('LoadClient closed'));
  }

  private connect(): Connection {
    const c = new Connection(
      this.target,
      (free) => this.onFree(free),
      (gone) => this.onGone(gone),
    );
    this.all.add(c);
    return c;
  }

  private onFree(c: Connection): void {
    const job = this.closed ? undefined : this.waiting.shift();
    if (job) c.send(job);
    else this.idle.push(c);
  }

  private onGone(c: Connection): void {
    this.all.delete(c);
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
    // Requests still waiting get a fresh connection.
    if (!this.closed && this.waiting.length > 0) this.connect().send(this.waiting.shift()!);
  }
}

/** Latency samples in milliseconds, growable, with percentiles. */
export class Samples {
  private data = new Float64Array(1024);
  private n = 0;
  private sorted = true;

  add(ms: number): void {
    if (this.n === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.n++] = ms;
    this.sorted = false;
  }

  get count(): number {
    return this.n;
  }

  /** The p-th percentile (0..100), NaN without samples. */
  percentile(p: number): number {
    if (this.n === 0) return NaN;
    if (!this.sorted) {
      this.data.subarray(0, this.n).sort();
      this.sorted = true;
    }
    const i = Math.min(this.n - 1, Math.max(0, Math.ceil((p / 100) * this.n) - 1));
    return this.data[i];
  }

  max(): number {
    return this.percentile(100);
  }
}

/**
 * Latencies in milliseconds in log-spaced buckets (1% wide, 1 us to 1000 s):
 * constant memory and no sort, for the millions of samples a fan-out yields,
 * where keeping and sorting them all would itself stall the event loop.
 */
export class Histogram {
  private static readonly MIN = 0.001;
  private static readonly STEP = Math.log(1.01);
  private readonly counts = new Float64Array(Math.ceil(Math.log(1e6 / Histogram.MIN) / Histogram.STEP) + 2);
  private n = 0;
  private top = 0;

  add(ms: number): void {
    const i = ms <= Histogram.MIN ? 0 : Math.min(this.counts.length - 1, Math.ceil(Math.log(ms / Histogram.MIN) / Histogram.STEP));
    this.counts[i]++;
    this.n++;
    if (ms > this.top) this.top = ms;
  }

  get count(): number {
    return this.n;
  }

  /** The p-th percentile (0..100), as the upper edge of its bucket (at most 1% high); NaN without samples. */
  percentile(p: number): number {
    if (this.n === 0) return NaN;
    const rank = Math.max(1, Math.ceil((p / 100) * this.n));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i];
      if (seen >= rank) return Math.min(this.top, Histogram.MIN * Math.exp(i * Histogram.STEP));
    }
    return this.top;
  }

  max(): number {
    return this.n === 0 ? NaN : this.top;
  }
}

/** The result of a load phase. */
export interface LoadResult {
  /** Operations that succeeded. */
  ok: number;
  /** Operations that failed (HTTP error or transport error). */
  errors: number;
  /** The first few error messages. */
  errorSamples: string[];
  elapsedMs: number;
  latencies: Samples;
}

/** One operation: resolves when it succeeded, throws when it failed. */
export type Operation = (seq: number) => Promise<void>;

/** Progress reporting while a phase runs. */
export interface ProgressOptions {
  label: string;
  progress: (message: string) => void;
  /** Milliseconds between progress lines (default 3000). */
  everyMs?: number;
  /** Extra text appended to each progress line (start it with ", "). */
  extra?: () => string;
}

function startProgress(
  opts: ProgressOptions | undefined,
  state: { ok: number; errors: number; inflight?: () => number },
  started: number,
): () => void {
  if (!opts) return () => {};
  let lastOk = 0;
  let lastT = started;
  const timer = setInterval(() => {
    const now = performance.now();
    const rate = ((state.ok - lastOk) * 1000) / (now - lastT);
    lastOk = state.ok;
    lastT = now;
    const extra = opts.extra ? opts.extra() : '';
    opts.progress(
      `${opts.label}: ${((now - started) / 1000).toFixed(1)} s, ${state.ok.toLocaleString('en-US')} done, ${Math.round(rate).toLocaleString('en-US')}/s` +
        (state.errors ? `, ${state.errors} errors` : '') +
        (state.inflight ? `, ${state.inflight().toLocaleString('en-US')} in flight` : '') +
        extra,
    );
  }, opts.everyMs ?? 3000);
  return () => clearInterval(timer);
}

/**
 * Runs `op` from `concurrency` workers back to back until `durationMs` has
 * passed (or `total` operations were started, when given), measuring each
 * operation's latency.
 */
export async function closedLoop(opts: {
  concurrency: number;
  durationMs?: number;
  total?: number;
  op: Operation;
  progress?: ProgressOptions;
}): Promise<LoadResult> {
  const latencies = new Samples();
  const state = { ok: 0, errors: 0 };
  const errorSamples: string[] = [];
  const started = performance.now();
  const deadline = opts.durationMs !== undefined ? started + opts.durationMs : Infinity;
  const total = opts.total ?? Infinity;
  let next = 0;
  const stopProgress = startProgress(opts.progress, state, started);
  const worker = async () => {
    while (next < total && performance.now() < deadline) {
      const seq = next++;
      const t0 = performance.now();
      try {
        await opts.op(seq);
        latencies.add(performance.now() - t0);
        state.ok++;
      } catch (err) {
        state.errors++;
        if (errorSamples.length < 5) errorSamples.push(String((err as Error).message ?? err));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency }, worker));
  } finally {
    stopProgress();
  }
  return { ok: state.ok, errors: state.errors, errorSamples, elapsedMs: performance.now() - started, latencies };
}

/**
 * Starts `op` at a steady `ratePerSec` for `durationMs`, whether or not earlier
 * operations have answered (open loop). Latency is measured from each
 * operation's scheduled start, so a client that falls behind shows up in it.
 * `onScheduled` sees each operation's scheduled start time (performance.now()).
 */
export async function openLoop(opts: {
  ratePerSec: number;
  durationMs: number;
  op: Operation;
  onScheduled?: (seq: number, at: number) => void;
  progress?: ProgressOptions;
  /** Called on every pacing tick (about each millisecond) with the elapsed time, so a caller can act at given moments. */
  tick?: (elapsedMs: number) => void;
}): Promise<LoadResult> {
  const latencies = new Samples();
  const state = { ok: 0, errors: 0 };
  const errorSamples: string[] = [];
  const started = performance.now();
  const intervalMs = 1000 / opts.ratePerSec;
  const totalOps = Math.floor((opts.durationMs / 1000) * opts.ratePerSec);
  const inflight = new Set<Promise<void>>();
  const stopProgress = startProgress(opts.progress, Object.assign(state, { inflight: () => inflight.size }), started);
  let seq = 0;
  const launch = (n: number, at: number) => {
    opts.onScheduled?.(n, at);
    const p = opts.op(n).then(
      () => {
        latencies.add(performance.now() - at);
        state.ok++;
      },
      (err) => {
        state.errors++;
        if (errorSamples.length < 5) errorSamples.push(String((err as Error).message ?? err));
      },
    );
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };
  try {
    while (seq < totalOps) {
      const now = performance.now();
      opts.tick?.(now - started);
      while (seq < totalOps && started + seq * intervalMs <= now) {
        launch(seq, started + seq * intervalMs);
        seq++;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all([...inflight]);
  } finally {
    stopProgress();
  }
  return { ok: state.ok, errors: state.errors, errorSamples, elapsedMs: performance.now() - started, latencies };
}
