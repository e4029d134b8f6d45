// An httpGet probe against a real process, as kubelet's prober runs it:
// GET scheme://host:port/path with User-Agent kube-probe/<minor>, TLS not
// verified, success for 200-399, and Go's error texts for a refused
// connection or a timeout.
import http from 'node:http';
import https from 'node:https';
import type { HTTPGetAction } from 'kubernetes-types/core/v1.js';

/** A probe's result, with the message kubelet's Unhealthy event carries. */
export interface ProbeResult {
  ok: boolean;
  message: string;
}

/** Probes `action` (its port a number), waiting at most `timeoutMs`. */
export function httpProbe(action: HTTPGetAction, timeoutMs: number, userAgent: string): Promise<ProbeResult> {
  const scheme = (action.scheme ?? 'HTTP').toLowerCase();
  const host = action.host || '127.0.0.1';
  const port = Number(action.port);
  const path = action.path ?? '/';
  const url = `${scheme}://${host}:${port}${path}`;
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: ProbeResult) => {
      if (done) return;
      done = true;
      resolve(r);
    };
    const opts = { host, port, path, method: 'GET', headers: { 'User-Agent': userAgent, Accept: '*/*' }, agent: false as const };
    const req =
      scheme === 'https'
        ? https.request({ ...opts, rejectUnauthorized: false }, (res) => answered(res))
        : http.request(opts, (res) => answered(res));
    function answered(res: http.IncomingMessage) {
      const code = res.statusCode ?? 0;
      res.resume();
      finish(code >= 200 && code < 400 ? { ok: true, message: '' } : { ok: false, message: `HTTP probe failed with statuscode: ${code}` });
    }
    req.setTimeout(timeoutMs, () => {
      finish({ ok: false, message: `Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
      req.destroy();
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      const why = err.code === 'ECONNREFUSED' ? 'connect: connection refused' : err.message;
      finish({ ok: false, message: `Get "${url}": dial tcp ${host}:${port}: ${why}` });
    });
    req.end();
  });
}
