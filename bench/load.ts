// A tiny HTTP load generator on node:http: one keep-alive Agent whose
// maxSockets is the concurrency, closed-loop workers (each sends its next
// request when the previous answer arrives) and an open-loop pacer (requests
// at a fixed rate whatever the answers do), with latency samples.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** An HTTP answer, body as text. */
export interface HttpResult {
  status: number;
  body: string;
}

/** A keep-alive client for one apiserver. */
export class LoadClient {
  readonly agent: http.Agent;
  private readonly host: string;
  private readonly port: number;

  constructor(baseUrl: string, concurrency: number) {
    const u = new URL(baseUrl);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  }

  /** Sends one request; rejects only on a transport error, not on an HTTP error status. */
  request(method: string, path: string, body?: string, contentType = 'application/json'): Promise<HttpResult> {
    return new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = { accept: 'application/json' };
      if (body !== undefined) {
        headers['content-type'] = contentType;
        headers['content-length'] = Buffer.byteLength(body);
      }
      const req = http.request({ host: this.host, port: this.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Like request, but throws unless the status is 2xx. */
  async expectOk(method: string, path: string, body?: string, contentType?: string): Promise<HttpResult> {
    const r = await this.request(method, path, body, contentType);
    if (r.status < 200 || r.status > 299) throw new Error(`${method} ${path}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
    return r;
  }

  close(): void {
    this.agent.destroy();
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

function startProgress(opts: ProgressOptions | undefined, state: { ok: number; errors: number; inflight?: () => number }, started: number): () => void {
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
