// The HTTP face of a kubelet-sim process, for every node it hosts, on --port:
//   GET  /containerLogs/{ns}/{pod}/{container}   kubelet's logs endpoint (follow, previous,
//        tailLines, timestamps, sinceSeconds, sinceTime, limitBytes), for the apiserver to proxy pods/log
//   GET  /exec/{ns}/{pod}/{container}?command=.. kubelet's exec endpoint over WebSocket
//        (v5.channel.k8s.io, v4.channel.k8s.io), for the apiserver to proxy pods/exec
//   POST /run/{ns}/{pod}/{container}?cmd=..      one-shot exec returning the output (kwok's /run; tests, debugging)
//   GET  /nodes, POST /nodes/{name}/{stop|start|partition|heal}   chaos switches
//   /healthz /livez /readyz /metrics              the shared health server, forwarded
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { StatusError } from '../../shared/api/errors.ts';
import { queryFlag } from '../../shared/api/query-bool.ts';
import type { Clock } from '../../shared/clock/clock.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { NodeFleet } from '../node/node-fleet.ts';
import type { PodManager } from '../pod-manager.ts';
import { formatLine, selectLines, type LogQuery } from '../runtime/log-store.ts';
import { runProcess } from '../runtime/shell.ts';

/** The server's collaborators. */
export interface KubeletServerOptions {
  host?: string;
  port: number;
  fleet: NodeFleet;
  pods: PodManager;
  clock: Clock;
  log: Logger;
  /** Port of the shared health server on 127.0.0.1, to forward health and metrics to. */
  healthPort: number;
}

/** A running server. */
export interface KubeletServer {
  port: number;
  close(): Promise<void>;
}

function sendStatus(res: http.ServerResponse, err: StatusError): void {
  res.writeHead(err.code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(err.toStatus()));
}

const badRequest = (msg: string) => new StatusError(400, 'BadRequest', msg);
const notFound = (msg: string) => new StatusError(404, 'NotFound', msg);

/** Starts the server. */
export async function startKubeletServer(opts: KubeletServerOptions): Promise<KubeletServer> {
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => ['v5.channel.k8s.io', 'v4.channel.k8s.io'].find((p) => protocols.has(p)) ?? false });
  const server = http.createServer((req, res) => {
    handle(opts, req, res).catch((err) => {
      if (err instanceof StatusError) return sendStatus(res, err);
      opts.log.error({ err: (err as Error).message, url: req.url }, 'kubelet server request failed');
      if (!res.headersSent) sendStatus(res, new StatusError(500, 'InternalError', 'an error on the server has prevented the request from succeeding'));
      else res.end();
    });
  });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/exec\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (!m) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => void execStream(opts, ws, m[1], m[2], m[3], url.searchParams));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(opts: KubeletServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const path = url.pathname;
  if (['/healthz', '/livez', '/readyz', '/metrics'].includes(path)) return forward(opts.healthPort, req, res);
  let m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(path);
  if (m && req.method === 'GET') return containerLogs(opts, res, decodeURIComponent(m[1]), decodeURIComponent(m[2]), decodeURIComponent(m[3]), url.searchParams);
  m = /^\/run\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(path);
  if (m && req.method === 'POST') {
    const w = opts.pods.worker(m[1], m[2]);
    if (!w) throw notFound(`pods "${m[2]}" not found`);
    let out = '';
    const ctx = w.execContext(m[3], (t) => (out += t));
    if (!ctx) throw badRequest(`container ${m[3]} is not running`);
    const cmd = url.searchParams.getAll('cmd');
    const result = await runProcess(cmd.length === 1 ? ['sh', '-c', cmd[0]] : cmd, ctx);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Exit-Code': String(result.exitCode) });
    res.end(out);
    return;
  }
  if (path === '/nodes' && req.method === 'GET') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify([...opts.fleet.nodes.values()].map((n) => ({ name: n.name, mode: n.mode, registered: n.registered, hostIP: n.hostIP }))));
    return;
  }
  m = /^\/nodes\/([^/]+)\/(stop|start|partition|heal)$/.exec(path);
  if (m && req.method === 'POST') {
    if (!opts.fleet.nodes.has(m[1])) throw notFound(`nodes "${m[1]}" not found in this kubelet-sim`);
    try {
      const mode = await opts.fleet.chaos(m[1], m[2] as 'stop');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ name: m[1], mode }));
    } catch (err) {
      throw err instanceof StatusError ? err : badRequest((err as Error).message);
    }
    return;
  }
  throw notFound('the server could not find the requested resource');
}

function forward(port: number, req: http.IncomingMessage, res: http.ServerResponse): void {
  const up = http.request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  up.on('error', () => sendStatus(res, new StatusError(503, 'ServiceUnavailable', 'health server unavailable')));
  req.pipe(up);
}

function logQuery(q: URLSearchParams): LogQuery {
  const num = (k: string) => (q.has(k) ? Number(q.get(k)) : undefined);
  return {
    previous: queryFlag(q, 'previous'),
    timestamps: queryFlag(q, 'timestamps'),
    tailLines: num('tailLines'),
    sinceSeconds: num('sinceSeconds'),
    sinceTime: q.has('sinceTime') ? Date.parse(q.get('sinceTime')!) : undefined,
    limitBytes: num('limitBytes'),
  };
}

function containerLogs(opts: KubeletServerOptions, res: http.ServerResponse, ns: string, podName: string, container: string, q: URLSearchParams): void {
  const w = opts.pods.worker(ns, podName);
  if (!w) throw notFound(`pods "${podName}" not found`);
  if (!w.containerNames().includes(container)) throw badRequest(`container ${container} is not valid for pod ${podName}`);
  const query = logQuery(q);
  const log = opts.pods.logs.get(ns, podName, container);
  const status = [...(w.pod.status?.containerStatuses ?? []), ...(w.pod.status?.initContainerStatuses ?? [])].find((c) => c.name === container);
  const own = w.status();
  const cur = [...(own.containerStatuses ?? []), ...(own.initContainerStatuses ?? [])].find((c) => c.name === container) ?? status;
  if (query.previous) {
    if (!log?.previous) throw badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
  } else if (cur?.state?.waiting && !cur.lastState?.terminated && !log?.current.length) {
    throw badRequest(`container "${container}" in pod "${podName}" is waiting to start: ${cur.state.waiting.reason}`);
  }
  const lines = query.previous ? log!.previous! : (log?.current ?? []);
  let budget = query.limitBytes ?? Infinity;
  const write = (text: string): boolean => {
    if (budget <= 0) return false;
    const chunk = Buffer.byteLength(text) > budget ? Buffer.from(text).subarray(0, budget).toString() : text;
    budget -= Buffer.byteLength(chunk);
    res.write(chunk);
    return budget > 0;
  };
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
  for (const l of selectLines(lines, query, opts.clock.now())) if (!write(formatLine(l, query.timestamps))) return void res.end();
  const running = !!cur?.state?.running;
  if (!queryFlag(q, 'follow') || query.previous || !log || !running) return void res.end();
  const stop = log.follow(
    (l) => {
      if (!write(formatLine(l, query.timestamps))) {
        stop();
        res.end();
      }
    },
    () => {
      stop();
      res.end();
    },
  );
  res.on('close', stop);
}

/** kubectl exec over the Kubernetes WebSocket channel protocol: 0 stdin, 1 stdout, 2 stderr, 3 status, 4 resize, 255 close. */
async function execStream(opts: KubeletServerOptions, ws: WebSocket, ns: string, podName: string, container: string, q: URLSearchParams): Promise<void> {
  const send = (ch: number, text: string) => ws.readyState === ws.OPEN && ws.send(Buffer.concat([Buffer.from([ch]), Buffer.from(text)]));
  const finish = (code: number) => {
    const status =
      code === 0
        ? { metadata: {}, status: 'Success' }
        : { metadata: {}, status: 'Failure', message: `command terminated with non-zero exit code: error executing command [${q.getAll('command').join(' ')}], exit code ${code}`, reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: String(code) }] } };
    send(3, JSON.stringify(status));
    ws.close(1000);
  };
  const w = opts.pods.worker(decodeURIComponent(ns), decodeURIComponent(podName));
  const tty = queryFlag(q, 'tty');
  const ctx = w?.execContext(decodeURIComponent(container), (t) => send(1, tty ? t.replace(/\n/g, '\r\n') : t));
  if (!ctx) {
    send(3, JSON.stringify({ metadata: {}, status: 'Failure', message: `container not found ("${container}")`, reason: 'InternalError', code: 500 }));
    ws.close(1000);
    return;
  }
  const argv = q.getAll('command');
  const interactive = queryFlag(q, 'stdin') && argv.length === 1 && /^(\/bin\/)?(ba|a)?sh$/.test(argv[0]);
  if (!interactive) {
    let stdin = '';
    if (queryFlag(q, 'stdin')) {
      // Non-interactive stdin: collect until the client closes it (v5 sends 255,0).
      await new Promise<void>((resolve) => {
        ws.on('message', (data: Buffer) => {
          if (data[0] === 0) stdin += data.subarray(1).toString();
          if (data[0] === 255) resolve();
        });
        ws.on('close', () => resolve());
        opts.clock.setTimeout(resolve, 200);
      });
    }
    const res = await runProcess(argv, ctx, stdin);
    finish(res.exitCode);
    return;
  }
  // An interactive shell: a line editor with echo (the terminal is raw), one command per line.
  const prompt = () => send(1, tty ? '/ # ' : '');
  let line = '';
  let busy = Promise.resolve();
  prompt();
  ws.on('message', (data: Buffer) => {
    if (data[0] !== 0) return;
    for (const ch of data.subarray(1).toString()) {
      if (ch === '\r' || ch === '\n') {
        const cmd = line;
        line = '';
        if (tty) send(1, '\r\n');
        busy = busy.then(async () => {
          if (cmd.trim() === 'exit') return finish(0);
          const r = await runProcess(['sh', '-c', cmd], ctx);
          ctx.env.set('?', String(r.exitCode));
          prompt();
        });
      } else if (ch === '\u0004') busy = busy.then(() => finish(0));
      else if (ch === '\u007f') {
        if (line) {
          line = line.slice(0, -1);
          if (tty) send(1, '\b \b');
        }
      } else {
        line += ch;
        if (tty) send(1, ch);
      }
    }
  });
}
