// Sends one fuzzed request over node:http(s) exactly as generated (no URL
// normalisation, which fetch would do: it resolves "..", "%2e%2e" and
// backslashes before the server sees them) and reports what came back: an
// answer, a stream that stayed open (a watch), a timeout or a broken connection.
// Over https it shows the admin's client certificate, so that the requests get
// past authentication and reach the handlers the fuzzer is after.
import http from 'node:http';
import https from 'node:https';
import type tls from 'node:tls';
import type { FuzzRequest } from './generate.ts';

/** What happened to one request. */
export type Outcome =
  | { kind: 'answer'; status: number; headers: http.IncomingHttpHeaders; body: Buffer; bodyBytes: number; ms: number; stream: boolean }
  | { kind: 'timeout'; ms: number; gotHeaders: boolean; status?: number }
  | { kind: 'error'; ms: number; code: string; message: string };

export interface SendOptions {
  host: string;
  port: number;
  /** An https.Agent (made with the same `tls`) over https. */
  agent: http.Agent;
  /** CA and client certificate: https when set. */
  tls?: tls.ConnectionOptions;
  /** No response headers within this long is a hang. */
  timeoutMs: number;
  /** A 200 whose body has not ended this long after its headers is a stream: closed, and fine. */
  streamMs: number;
}

/**
 * How much of a body is kept for checking: more than any answer can hold (a
 * Status may quote a request body of up to 3 MiB), so that a Status is never
 * judged on a cut-off copy.
 */
const KEEP_BYTES = 8 * 1024 * 1024;

function once(opts: SendOptions, req: FuzzRequest, agent: http.Agent | false): Promise<Outcome & { reused?: boolean }> {
  const started = Date.now();
  return new Promise((resolve) => {
    let done = false;
    let reused = false;
    const finish = (o: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(hang);
      clearTimeout(streamTimer);
      // Answered before the body was all sent (a 413 or 415 does that): the server reads no more of it, so this
      // socket would stay busy writing and starve the agent's pool. Drop it.
      if (!cr.writableFinished) cr.destroy();
      resolve({ ...o, reused });
    };
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body && !req.chunked) headers['content-length'] = req.body.length;
    // node frames a GET or DELETE body as chunked only when told to; without the header the body would run into the next request.
    if (req.body && req.chunked) headers['transfer-encoding'] = 'chunked';
    let streamTimer: NodeJS.Timeout | undefined;
    let cr: http.ClientRequest;
    try {
      const target = { host: opts.host, port: opts.port, method: req.method, path: req.path, headers, agent, setHost: true };
      cr = opts.tls ? https.request({ ...target, ...opts.tls }) : http.request(target);
    } catch (err) {
      finish({ kind: 'error', ms: 0, code: 'CLIENT_REFUSED', message: (err as Error).message });
      return;
    }
    const hang = setTimeout(() => {
      finish({ kind: 'timeout', ms: Date.now() - started, gotHeaders: false });
      cr.destroy();
    }, opts.timeoutMs);
    cr.on('socket', () => {
      reused = cr.reusedSocket;
    });
    cr.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let total = 0;
      clearTimeout(hang);
      const answer = (stream: boolean): Outcome => ({
        kind: 'answer',
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: Buffer.concat(chunks),
        bodyBytes: total,
        ms: Date.now() - started,
        stream,
      });
      streamTimer = setTimeout(() => {
        // Still sending: fine for a watch (a 200), a hang for anything else.
        if ((res.statusCode ?? 0) === 200) finish(answer(true));
        else finish({ kind: 'timeout', ms: Date.now() - started, gotHeaders: true, status: res.statusCode });
        cr.destroy();
      }, opts.streamMs);
      res.on('data', (c: Buffer) => {
        total += c.length;
        if (kept < KEEP_BYTES) {
          chunks.push(c);
          kept += c.length;
        }
      });
      res.on('end', () => finish(answer(false)));
      res.on('error', () => finish(answer(false)));
      res.on('aborted', () => finish(answer(false)));
    });
    cr.on('upgrade', (res, socket) => {
      // A handshake that succeeded: the answer is the 101; the session itself is not what is tested here.
      socket.destroy();
      finish({
        kind: 'answer',
        status: res.statusCode ?? 101,
        headers: res.headers,
        body: Buffer.alloc(0),
        bodyBytes: 0,
        ms: Date.now() - started,
        stream: true,
      });
    });
    cr.on('error', (err: NodeJS.ErrnoException) =>
      finish({ kind: 'error', ms: Date.now() - started, code: err.code ?? 'ERROR', message: err.message }),
    );
    if (req.body) {
      if (req.chunked) {
        const mid = Math.floor(req.body.length / 2);
        cr.write(req.body.subarray(0, mid));
        cr.end(req.body.subarray(mid));
      } else {
        cr.end(req.body);
      }
    } else {
      cr.end();
    }
  });
}

/**
 * Sends req. A reset on a reused keep-alive socket (the server closed it
 * between two requests) is retried once on a fresh connection, so that only
 * a failure of this request counts.
 */
export async function send(opts: SendOptions, req: FuzzRequest): Promise<Outcome> {
  // A HEAD answer ends at its headers for the client, but a HEAD that started a watch still runs on the server (as
  // in kube): a request sent after it on the same connection would wait behind it. So HEAD gets its own connection.
  if (req.method === 'HEAD') return once(opts, req, false);
  const first = await once(opts, req, opts.agent);
  if (first.kind === 'error' && first.reused && ['ECONNRESET', 'EPIPE'].includes(first.code)) return once(opts, req, false);
  if (first.kind === 'error' && first.message === 'socket hang up' && first.reused) return once(opts, req, false);
  return first;
}
