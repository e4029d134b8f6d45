// The fuzz loop: a few workers send generated requests until a count or a
// deadline, check each answer, group the failures, and notice a dead
// apiserver (recording the requests in flight when it died, then restarting
// it so the run goes on).
import http from 'node:http';
import https from 'node:https';
import type tls from 'node:tls';
import { checkOutcome, type Problem } from './check.ts';
import { generateRequest, type FuzzRequest } from './generate.ts';
import { send, type Outcome } from './send.ts';

export interface RunOptions {
  seed: number;
  host: string;
  port: () => number;
  /** CA and client certificate: https when set. */
  tls?: tls.ConnectionOptions;
  concurrency: number;
  /** Stop after this many requests... */
  maxRequests: number;
  /** ...or at this time (ms since the epoch), whichever comes first. */
  deadline: number;
  /** Only these request indexes (a replay). */
  only?: number[];
  timeoutMs: number;
  streamMs: number;
  /** Whether the apiserver process is still running. */
  alive(): Promise<boolean>;
  /** Starts it again after a crash; the log tail it left is returned. */
  restart(): Promise<string>;
  maxRestarts: number;
}

/** One failed request. */
export interface Failure {
  req: FuzzRequest;
  outcome: string;
  problems: Problem[];
  /** The start of the answer's body (kept for writes let through, to find what changed protected data). */
  body?: string;
}

/** The apiserver died during the run. */
export interface Crash {
  afterRequests: number;
  inFlight: FuzzRequest[];
  logTail: string;
}

export interface RunResult {
  count: number;
  elapsedMs: number;
  byStatus: Map<string, number>;
  byFamily: Map<string, number>;
  failures: Failure[];
  crashes: Crash[];
  /** Writes aimed at protected objects (or with hostile paths) that were not refused: what to suspect when stored data changed. */
  suspects: Failure[];
}

function outcomeLine(o: Outcome): string {
  if (o.kind === 'answer')
    return `HTTP ${o.status}${o.stream ? ' (stream, closed by the client)' : ''} in ${o.ms} ms, ${o.bodyBytes} bytes: ${JSON.stringify(o.body.subarray(0, 240).toString('utf8'))}`;
  if (o.kind === 'timeout') return `timeout after ${o.ms} ms${o.gotHeaders ? ` (headers ${o.status} came, the body never ended)` : ''}`;
  return `connection error ${o.code}: ${o.message} after ${o.ms} ms`;
}

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/** Runs the fuzz loop. */
export async function runFuzz(opts: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const byStatus = new Map<string, number>();
  const byFamily = new Map<string, number>();
  const failures: Failure[] = [];
  const crashes: Crash[] = [];
  const suspects: Failure[] = [];
  const inFlight = new Set<FuzzRequest>();
  const recent: { req: FuzzRequest; start: number; end: number }[] = [];
  const newAgent = (): http.Agent => (opts.tls ? new https.Agent({ keepAlive: true, ...opts.tls }) : new http.Agent({ keepAlive: true }));
  let agent = newAgent();
  let next = 0;
  let count = 0;
  let restarting: Promise<void> | undefined;
  let stop = false;

  const takeIndex = (): number | undefined => {
    if (stop) return undefined;
    if (opts.only) return next < opts.only.length ? opts.only[next++] : undefined;
    if (next >= opts.maxRequests || Date.now() > opts.deadline) return undefined;
    return next++;
  };

  const handleDeath = async (): Promise<void> => {
    if (!restarting) {
      restarting = (async () => {
        const suspects = [...inFlight];
        const tail = await opts.restart().catch((err) => `restart failed: ${(err as Error).message}`);
        crashes.push({ afterRequests: count, inFlight: suspects, logTail: tail });
        agent.destroy();
        agent = newAgent();
        if (crashes.length > opts.maxRestarts || tail.startsWith('restart failed')) stop = true;
      })().finally(() => {
        restarting = undefined;
      });
    }
    await restarting;
  };

  const worker = async (): Promise<void> => {
    for (;;) {
      if (restarting) await restarting;
      const index = takeIndex();
      if (index === undefined) return;
      let req: FuzzRequest;
      try {
        req = generateRequest(opts.seed, index);
      } catch (err) {
        // A bug of the fuzzer, not of the server: reported, and the run goes on.
        failures.push({
          req: { index, family: 'generator', method: '-', path: '-', headers: {}, how: [] },
          outcome: 'not sent',
          problems: [{ kind: 'fuzzer bug', detail: (err as Error).stack ?? String(err) }],
        });
        continue;
      }
      inFlight.add(req);
      const start = Date.now();
      const out = await send(
        { host: opts.host, port: opts.port(), agent, tls: opts.tls, timeoutMs: opts.timeoutMs, streamMs: opts.streamMs },
        req,
      );
      count++;
      bump(byFamily, req.family);
      bump(byStatus, out.kind === 'answer' ? String(out.status) : out.kind === 'timeout' ? 'timeout' : `error ${out.code}`);
      let problems = checkOutcome(req, out);
      const end = Date.now();
      recent.push({ req, start, end });
      if (recent.length > 500) recent.shift();
      // A hang is usually another request blocking the event loop: name the slowest ones that overlapped it.
      if (out.kind === 'timeout') {
        const overlapping = recent
          .filter((o) => o.req !== req && o.end > start && o.start < end)
          .sort((a, b) => b.end - b.start - (a.end - a.start))
          .slice(0, 3);
        const names = overlapping.map(
          (o) => `#${o.req.index} ${o.req.method} ${o.req.path.slice(0, 80)} (${o.end - o.start} ms; ${o.req.how.slice(0, 2).join('; ')})`,
        );
        problems = problems.map((p) => ({ ...p, detail: `${p.detail}; slowest requests alongside: ${names.join(', ') || 'none'}` }));
      }
      if (out.kind !== 'answer' && !(await opts.alive())) {
        problems = [{ kind: 'apiserver died', detail: outcomeLine(out) }];
        failures.push({ req, outcome: outcomeLine(out), problems });
        await handleDeath();
        inFlight.delete(req);
        continue;
      }
      inFlight.delete(req);
      if (
        out.kind === 'answer' &&
        out.status < 400 &&
        ['POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method) &&
        (req.aimsAtProtected || req.hostile) &&
        suspects.length < 5000
      ) {
        suspects.push({ req, outcome: outcomeLine(out), problems: [], body: out.body.subarray(0, 16 * 1024).toString('utf8') });
      }
      if (problems.length) failures.push({ req, outcome: outcomeLine(out), problems });
    }
  };

  await Promise.all(Array.from({ length: opts.concurrency }, () => worker()));
  agent.destroy();
  return { count, elapsedMs: Date.now() - started, byStatus, byFamily, failures, crashes, suspects };
}

/** A request as text, enough to replay it by hand. */
export function describeRequest(req: FuzzRequest): string {
  const body = req.body;
  let bodyText = '(none)';
  if (body) {
    const prefix = body.subarray(0, 300);
    const printable = prefix.every((b) => b === 0x09 || b === 0x0a || b === 0x0d || (b >= 0x20 && b <= 0x7e));
    bodyText = `${body.length} bytes${req.chunked ? ', chunked' : ''}: ${printable ? JSON.stringify(prefix.toString('utf8')) : `hex ${prefix.toString('hex')}`}${body.length > 300 ? ' ...' : ''}`;
  }
  const path = req.path.length > 400 ? `${req.path.slice(0, 400)}... (${req.path.length} chars)` : req.path;
  return [
    `#${req.index} [${req.family}] ${req.method} ${path}`,
    `  headers: ${JSON.stringify(req.headers).slice(0, 300)}`,
    `  body: ${bodyText}`,
    `  how: ${req.how.join('; ').slice(0, 400)}`,
    ...(req.mustRefuse ? [`  must be refused: ${req.mustRefuse}`] : []),
  ].join('\n');
}

/** Failures grouped by what went wrong and the shape of the request. */
export function groupFailures(failures: Failure[]): { key: string; count: number; examples: Failure[] }[] {
  const groups = new Map<string, { key: string; count: number; examples: Failure[] }>();
  for (const f of failures) {
    for (const p of f.problems) {
      const detail = p.detail
        .replace(/\d+/g, 'N')
        .replace(/"[^"]{30,}"/g, '"…"')
        .slice(0, 90);
      const key = `${p.kind} | ${f.req.family} ${f.req.method} | ${detail}`;
      const g = groups.get(key) ?? { key, count: 0, examples: [] };
      g.count++;
      if (g.examples.length < 2) g.examples.push(f);
      groups.set(key, g);
    }
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}
