// The two HTTP faces of a kubelet-sim process, for every node it hosts.
// The kubelet API (kubelet's port 10250; --kubelet-port), HTTPS with client
// certificates and SubjectAccessReviews when the apiserver is HTTPS
// (kubelet-auth.ts), plain HTTP with no checks when it is not:
//   GET  /containerLogs/{ns}/{pod}/{container}   kubelet's logs endpoint (follow, previous,
//        tailLines, timestamps, sinceSeconds, sinceTime, limitBytes), for the apiserver to proxy pods/log
//   GET  /exec/{ns}/{pod}/{container}?command=.. kubelet's exec endpoint over WebSocket
//        (v5.channel.k8s.io, v4.channel.k8s.io), for the apiserver to proxy pods/exec
//   GET  /attach/{ns}/{pod}/{container}          kubelet's attach endpoint, the same protocol, for pods/attach
//   GET  /portForward/{ns}/{pod}                  kubelet's port-forward endpoint, SPDY/3.1 (port-forward.ts) or WebSocket (port-forward-ws.ts)
//   POST /run/{ns}/{pod}/{container}?cmd=..      one-shot exec returning the output (kwok's /run; tests, debugging)
//   GET  /metrics/resource, /stats/summary       resource metrics of one node (?node=NAME), for metrics.k8s.io
//   GET  /healthz                                 kubelet's health check (nodes/proxy/healthz)
// The control port (--port), plain HTTP on the loopback address, as the
// health and metrics ports of kube's components are: nothing on it reads or
// runs anything in a container.
//   GET  /nodes, POST /nodes/{name}/{stop|start|partition|heal}   chaos switches
//   /healthz /livez /readyz /metrics              the shared health server, forwarded
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { StatusError } from '../../shared/api/errors.ts';
import type { Clock } from '../../shared/clock/clock.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { NodeFleet } from '../node/node-fleet.ts';
import type { PodManager } from '../pod-manager.ts';
import { runProcess } from '../runtime/shell.ts';
import { attachSession } from './attach-session.ts';
import { CHANNEL_PROTOCOLS } from './channel-stream.ts';
import { containerLogs } from './container-logs.ts';
import { execSession, type StreamTarget } from './exec-session.ts';
import { authenticate, KubeletAuthError, requestAttributes, type SarAuthorizer } from './kubelet-auth.ts';
import { portForwardTarget, PortForwardRefusal, servePortForward } from './port-forward.ts';
import { parsePorts, PORT_FORWARD_WS_PROTOCOLS, webSocketPortForward } from './port-forward-ws.ts';
import { serveResourceMetrics } from './resource-metrics.ts';

/** The servers' collaborators. */
export interface KubeletServerOptions {
  host?: string;
  port: number;
  fleet: NodeFleet;
  pods: PodManager;
  clock: Clock;
  log: Logger;
  /** Port of the shared health server on 127.0.0.1, to forward health and metrics to (the control port). */
  healthPort: number;
}

/** The kubelet API's TLS: its serving certificate, the CA client certificates must verify against, and the authorizer. */
export interface KubeletTls {
  certPem: string;
  keyPem: string;
  clientCaPem: string | Buffer;
  authorizer: SarAuthorizer;
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

/** Starts the control server (chaos switches, health and metrics) on `opts.port`. */
export async function startControlServer(opts: KubeletServerOptions): Promise<KubeletServer> {
  const server = http.createServer((req, res) => respond(opts, req, res, () => handleControl(opts, req, res)));
  return listen(server, opts.port, opts.host, () => {});
}

/**
 * Starts the kubelet API on `port`: HTTPS with `tls` (every request authenticated
 * and authorized first, as kubelet's auth filter does), else plain HTTP.
 */
export async function startKubeletApiServer(opts: KubeletServerOptions, port: number, tls?: KubeletTls): Promise<KubeletServer> {
  // Clients send keystrokes and small stdin chunks: 8 MiB bounds what one frame may cost.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: 8 * 1024 * 1024,
    handleProtocols: (protocols) => CHANNEL_PROTOCOLS.find((p) => protocols.has(p)) ?? false,
  });
  const forwardWss = new WebSocketServer({
    noServer: true,
    maxPayload: 8 * 1024 * 1024,
    handleProtocols: (protocols) => PORT_FORWARD_WS_PROTOCOLS.find((p) => protocols.has(p)) ?? false,
  });
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) =>
    respond(opts, req, res, async () => {
      await checkAccess(opts, tls, req);
      await handleApi(opts, req, res);
    });
  const server = tls
    ? // The client CA is the cluster CA; a certificate that does not verify is refused by authenticate() with
      // kubelet's 401 rather than by the handshake, so that the caller learns why.
      https.createServer(
        { cert: tls.certPem, key: tls.keyPem, ca: tls.clientCaPem, requestCert: true, rejectUnauthorized: false },
        onRequest,
      )
    : http.createServer(onRequest);
  server.on('upgrade', (req, socket: Duplex, head) => {
    // A client that resets before or during the handshake must not take the process down.
    socket.on('error', () => socket.destroy());
    const target = streamTarget(req.url);
    const forward = portForwardTarget(safePath(req.url));
    checkAccess(opts, tls, req).then(
      () => {
        if (forward) {
          const log = opts.log.child({ stream: 'portforward', pod: `${forward.namespace}/${forward.pod}` });
          if (String(req.headers.upgrade ?? '').toLowerCase() === 'websocket') {
            if (!opts.pods.worker(forward.namespace, forward.pod)) return refuseText(socket, { code: 404, message: 'pod does not exist' });
            const ports = parsePorts(new URL(req.url ?? '/', 'http://x').searchParams);
            if (typeof ports === 'string') return refuseText(socket, { code: 400, message: ports });
            return forwardWss.handleUpgrade(req, socket, head, (ws) => webSocketPortForward(opts.pods, ws, forward, ports, log));
          }
          try {
            return servePortForward(opts.pods, req, socket, head, forward, log);
          } catch (err) {
            if (err instanceof PortForwardRefusal) return refuseText(socket, err);
            log.error({ err: (err as Error).message }, 'port-forward failed');
            return socket.destroy();
          }
        }
        if (!target) return refuse(socket, 404, 'the server could not find the requested resource');
        const log = opts.log.child({ stream: target.kind, pod: `${target.namespace}/${target.pod}`, container: target.container });
        wss.handleUpgrade(req, socket, head, (ws) => {
          try {
            if (target.kind === 'exec') execSession(opts.pods, ws, target, log);
            else attachSession(opts.pods, ws, target, log);
          } catch (err) {
            log.error({ err: (err as Error).message }, 'stream session failed');
            ws.close(1011);
          }
        });
      },
      (err: unknown) => refuseText(socket, err instanceof KubeletAuthError ? err : new KubeletAuthError(500, 'Internal Server Error')),
    );
  });
  return listen(server, port, opts.host, () => {
    wss.close();
    forwardWss.close();
  });
}

async function listen(server: http.Server, port: number, host: string | undefined, onClose: () => void): Promise<KubeletServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        onClose();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs a handler; its StatusError or KubeletAuthError is the answer, anything else a 500. */
function respond(opts: KubeletServerOptions, req: http.IncomingMessage, res: http.ServerResponse, fn: () => Promise<void>): void {
  fn().catch((err) => {
    if (err instanceof StatusError) return sendStatus(res, err);
    if (err instanceof KubeletAuthError) {
      res.writeHead(err.code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      return res.end(`${err.message}\n`);
    }
    opts.log.error({ err: (err as Error).message, url: req.url }, 'kubelet server request failed');
    if (!res.headersSent)
      sendStatus(res, new StatusError(500, 'InternalError', 'an error on the server has prevented the request from succeeding'));
    else res.end();
  });
}

/**
 * kubelet's auth filter: 401 without a verified client certificate, then a
 * review of the request's attributes for the node the Pod runs on. A path that
 * names no Pod of this process is checked against this process's first node,
 * so that an unauthorized caller cannot tell which Pods exist.
 */
async function checkAccess(opts: KubeletServerOptions, tls: KubeletTls | undefined, req: http.IncomingMessage): Promise<void> {
  if (!tls) return;
  const caller = authenticate(req);
  if (!caller) throw new KubeletAuthError(401, 'Unauthorized');
  let path = '/';
  try {
    path = new URL(req.url ?? '/', 'http://x').pathname;
  } catch {
    // authorized as '/', refused later as a bad path
  }
  const m = /^\/[^/]+\/([^/]+)\/([^/]+)(?:\/|$)/.exec(path);
  let node = m ? opts.pods.worker(safeDecode(m[1]), safeDecode(m[2]))?.pod.spec?.nodeName : undefined;
  node ??= opts.fleet.nodes.keys().next().value ?? '';
  await tls.authorizer.authorize(caller, requestAttributes(req.method ?? 'GET', path, node));
}

const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** The path of a request URL ('/' when it is not one). */
function safePath(rawUrl: string | undefined): string {
  try {
    return new URL(rawUrl ?? '/', 'http://x').pathname;
  } catch {
    return '/';
  }
}

/** The exec or attach session an upgrade URL names, or undefined. */
function streamTarget(rawUrl: string | undefined): (StreamTarget & { kind: 'exec' | 'attach' }) | undefined {
  let url: URL;
  try {
    url = new URL(rawUrl ?? '/', 'http://x');
    const m = /^\/(exec|attach)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (!m) return undefined;
    return {
      kind: m[1] as 'exec' | 'attach',
      namespace: decodeURIComponent(m[2]),
      pod: decodeURIComponent(m[3]),
      container: decodeURIComponent(m[4]),
      query: url.searchParams,
    };
  } catch {
    return undefined;
  }
}

/** A percent-decoded path segment; bad encoding is the client's error. */
function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw badRequest(`invalid percent-encoding in path segment "${s}"`);
  }
}

/** Answers a refused upgrade with kubelet's plain-text refusal on the raw socket. */
function refuseText(socket: Duplex, err: { code: number; message: string }): void {
  const body = `${err.message}\n`;
  socket.end(
    `HTTP/1.1 ${err.code} ${http.STATUS_CODES[err.code]}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Answers an upgrade that is not served with a Status on the raw socket. */
function refuse(socket: Duplex, code: number, message: string): void {
  const body = JSON.stringify(new StatusError(code, code === 404 ? 'NotFound' : 'BadRequest', message).toStatus());
  socket.end(
    `HTTP/1.1 ${code} ${http.STATUS_CODES[code]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** The kubelet API's paths. */
async function handleApi(opts: KubeletServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const path = url.pathname;
  // kubelet's own health check, as nodes/proxy/healthz reaches it.
  if (path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')) {
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    res.end('ok');
    return;
  }
  // kubelet's resource metrics and Summary API (resource-metrics.ts), for the apiserver's metrics API.
  if ((path === '/metrics/resource' || path === '/stats/summary') && req.method === 'GET')
    return serveResourceMetrics(opts, res, path, url.searchParams);
  let m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(path);
  if (m && req.method === 'GET')
    return containerLogs(opts, res, decodeSegment(m[1]), decodeSegment(m[2]), decodeSegment(m[3]), url.searchParams);
  m = /^\/run\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(path);
  if (m && req.method === 'POST') {
    const w = opts.pods.worker(m[1], m[2]);
    if (!w) throw notFound(`pods "${m[2]}" not found`);
    let out = '';
    // The one-shot form merges stdout and stderr, as `2>&1` would.
    const ctx = w.execContext(m[3], (t) => (out += t));
    if (!ctx) throw badRequest(`container ${m[3]} is not running`);
    const cmd = url.searchParams.getAll('cmd');
    const result = await runProcess(cmd.length === 1 ? ['sh', '-c', cmd[0]] : cmd, ctx);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Exit-Code': String(result.exitCode) });
    res.end(out);
    return;
  }
  throw notFound('the server could not find the requested resource');
}

/** The control port's paths. */
async function handleControl(opts: KubeletServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const path = url.pathname;
  if (['/healthz', '/livez', '/readyz', '/metrics'].includes(path)) return forward(opts.healthPort, req, res);
  if (path === '/nodes' && req.method === 'GET') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(
      JSON.stringify(
        [...opts.fleet.nodes.values()].map((n) => ({ name: n.name, mode: n.mode, registered: n.registered, hostIP: n.hostIP })),
      ),
    );
    return;
  }
  const m = /^\/nodes\/([^/]+)\/(stop|start|partition|heal)$/.exec(path);
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
