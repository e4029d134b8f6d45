// pods/portforward: the apiserver finds the Pod's kubelet and opens kubelet's
// /portForward/{ns}/{pod} with a SPDY/3.1 upgrade, then relays bytes. kubectl
// 1.35 first asks for a WebSocket with the subprotocol
// `SPDY/3.1+portforward.k8s.io` (kube's stream tunnel): the apiserver then
// answers the WebSocket with that subprotocol and carries the SPDY bytes
// inside binary messages, one way, and as raw bytes on the kubelet's side
// the other. A client that still speaks SPDY itself (the fallback) gets the
// kubelet's 101 and the raw socket spliced to the kubelet's. Either side
// ending ends the other; nothing either side sends is parsed here.
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { badRequest, StatusError } from '../../../shared/api/errors.ts';
import { sendableCloseCode } from '../../../shared/util/ws-close.ts';
import type { Logger } from '../../../shared/log/logger.ts';
import { handshakeError, refuseUpgrade } from '../../http/ws-handshake.ts';
import type { RequestUrl } from '../../http/request-url.ts';
import type { Store } from '../../storage/store.ts';
import { kubeletTlsOptions, podKubeletBase, storedPod, type KubeletClientTls } from './kubelet-proxy.ts';

/** The port-forward protocol kubelets speak (kube's PortForwardProtocolV1Name). */
export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';
/** kube's WebsocketsSPDYTunnelingPrefix. */
export const SPDY_TUNNEL_PREFIX = 'SPDY/3.1+';

/** An upgraded connection to a kubelet: its socket, the bytes that came with the 101, and the 101's headers. */
export interface KubeletUpgrade {
  socket: Duplex;
  head: Buffer;
  headers: http.IncomingHttpHeaders;
}

/** Status reasons for the codes a kubelet refuses with. */
const REASONS: Record<number, string> = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound' };

/** Opens a SPDY/3.1 port-forward upgrade to the kubelet at `base`; a refusal is a StatusError with the kubelet's words. */
export function dialKubeletPortForward(
  base: string,
  namespace: string,
  pod: string,
  tls: KubeletClientTls | undefined,
): Promise<KubeletUpgrade> {
  const url = `${base}/portForward/${encodeURIComponent(namespace)}/${encodeURIComponent(pod)}`;
  return new Promise((resolve, reject) => {
    let req: http.ClientRequest;
    const headers = { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': PORT_FORWARD_PROTOCOL };
    try {
      req = url.startsWith('https:')
        ? https.request(url, { ...kubeletTlsOptions(tls), headers, timeout: 10_000 })
        : http.request(url, { headers, timeout: 10_000 });
    } catch {
      return reject(new StatusError(502, 'InternalError', `error dialing backend: invalid kubelet address ${base}`));
    }
    req.on('upgrade', (res, socket, head) => resolve({ socket, head, headers: res.headers }));
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => body.length < 64 * 1024 && (body += d));
      res.on('error', () => {});
      res.on('end', () => {
        const code = res.statusCode ?? 502;
        let err: StatusError;
        try {
          err = StatusError.fromStatus(JSON.parse(body), code);
        } catch {
          err = new StatusError(code, REASONS[code] ?? 'InternalError', body.trim() || `the kubelet refused the stream (${code})`);
        }
        reject(err);
      });
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (e) => reject(new StatusError(502, 'InternalError', `error dialing backend: ${e.message}`)));
    req.end();
  });
}

/** The subprotocols a WebSocket request offers. */
function offeredProtocols(req: http.IncomingMessage): string[] {
  return String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/** True when an upgrade asks for WebSocket. */
function isWebSocket(req: http.IncomingMessage): boolean {
  return String(req.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/**
 * Serves a pods/portforward upgrade (see the file comment). Refusals before
 * the upgrade throw a StatusError or answer one on the socket.
 */
export function portForwardUpgrade(
  store: Store,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  url: RequestUrl,
  namespace: string,
  name: string,
  log: Logger,
  tls?: KubeletClientTls,
): void {
  const pod = storedPod(store, namespace, name);
  const base = podKubeletBase(store, pod);
  if (isWebSocket(req)) {
    const tunnel = offeredProtocols(req).find((p) => p === SPDY_TUNNEL_PREFIX + PORT_FORWARD_PROTOCOL);
    // `SPDY/3.1+...` is not an RFC 7230 token (the '/'), which ws refuses to parse; kube's WebSocket library
    // takes it. The handshake is checked and completed with a token in its place, and answered with the name.
    if (tunnel) req.headers['sec-websocket-protocol'] = PORT_FORWARD_PROTOCOL;
    const refused = handshakeError(req);
    if (refused) throw refused;
    if (!tunnel) return proxyWebSocket(req, socket, head, base, namespace, name, url, log, tls);
    return void dialThen(socket, log, dialKubeletPortForward(base, namespace, name, tls), (up) => {
      const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024, handleProtocols: () => tunnel });
      wss.handleUpgrade(req, socket, head, (ws) => tunnelWebSocket(ws, up, log));
    });
  }
  if (String(req.headers.upgrade ?? '').toLowerCase() !== 'spdy/3.1') throw badRequest('Upgrade request required');
  void dialThen(socket, log, dialKubeletPortForward(base, namespace, name, tls), (up) => {
    const proto = String(up.headers['x-stream-protocol-version'] ?? '');
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n' +
        (proto ? `X-Stream-Protocol-Version: ${proto}\r\n` : '') +
        '\r\n',
    );
    if (up.head.length) socket.write(up.head);
    if (head.length) up.socket.write(head);
    splice(socket, up.socket);
  });
}

/** Waits for the kubelet's 101; a refusal is answered on the client's socket. */
async function dialThen(socket: Duplex, log: Logger, dial: Promise<KubeletUpgrade>, then: (up: KubeletUpgrade) => void): Promise<void> {
  let up: KubeletUpgrade;
  try {
    up = await dial;
  } catch (err) {
    return refuseUpgrade(socket, err instanceof StatusError ? err : new StatusError(502, 'InternalError', String(err)));
  }
  up.socket.on('error', (err) => log.debug({ err: err.message }, 'kubelet port-forward socket error'));
  if (socket.destroyed) return void up.socket.destroy();
  then(up);
}

/** Joins two byte streams; one ending or breaking ends the other. */
function splice(a: Duplex, b: Duplex): void {
  a.pipe(b);
  b.pipe(a);
  const done = () => {
    a.destroy();
    b.destroy();
  };
  a.on('close', done);
  b.on('close', done);
}

/** Carries the kubelet's SPDY bytes in WebSocket binary messages and the client's messages back as bytes (kube's TunnelingConnection). */
function tunnelWebSocket(ws: WebSocket, up: KubeletUpgrade, log: Logger): void {
  const kubelet = up.socket;
  if (up.head.length) ws.send(up.head, { binary: true });
  kubelet.on('data', (b: Buffer) => {
    if (ws.readyState !== WebSocket.OPEN) return;
    ws.send(b, { binary: true });
    // A slow client: stop reading the kubelet until the WebSocket drains.
    if (ws.bufferedAmount > 1024 * 1024) {
      kubelet.pause();
      const wait = setInterval(() => {
        if (ws.readyState !== WebSocket.OPEN || ws.bufferedAmount < 256 * 1024) {
          clearInterval(wait);
          kubelet.resume();
        }
      }, 20);
    }
  });
  ws.on('message', (data, isBinary) => {
    // kube's tunnel accepts binary messages only; anything else ends the tunnel.
    if (!isBinary) {
      log.debug('non-binary message on a port-forward tunnel');
      return ws.close(1003);
    }
    kubelet.write(Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer));
  });
  ws.on('error', (err) => log.debug({ err: err.message }, 'port-forward tunnel error'));
  ws.on('close', () => kubelet.destroy());
  kubelet.on('close', () => {
    if (ws.readyState === WebSocket.OPEN) ws.close(1000);
  });
}

/**
 * A WebSocket port-forward in kubelet's own protocol (channels per port, what
 * client libraries speak): passed to the kubelet message for message with the
 * client's subprotocols, its `ports` turned into the kubelet's `port`
 * parameters as kube's PortForwardLocation does.
 */
function proxyWebSocket(
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  base: string,
  namespace: string,
  name: string,
  url: RequestUrl,
  log: Logger,
  tls: KubeletClientTls | undefined,
): void {
  const query = new URLSearchParams();
  for (const v of url.searchParams.getAll('ports')) for (const p of v.split(',')) query.append('port', p.trim());
  const protocols = offeredProtocols(req);
  const target = `${base.replace(/^http/, 'ws')}/portForward/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}?${query}`;
  let upstream: WebSocket;
  try {
    upstream = new WebSocket(target, protocols, {
      maxPayload: 16 * 1024 * 1024,
      handshakeTimeout: 10_000,
      ...(target.startsWith('wss:') ? kubeletTlsOptions(tls) : {}),
    });
  } catch {
    throw new StatusError(502, 'InternalError', `error dialing backend: invalid kubelet address ${base}`);
  }
  let dialing = true;
  socket.once('close', () => dialing && upstream.terminate());
  upstream.on('error', (err) => {
    if (!dialing) return log.debug({ err: err.message }, 'kubelet port-forward error');
    dialing = false;
    refuseUpgrade(socket, new StatusError(502, 'InternalError', `error dialing backend: ${err.message}`));
  });
  upstream.once('unexpected-response', (_r, res) => {
    dialing = false;
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => body.length < 64 * 1024 && (body += d));
    res.on('error', () => {});
    res.on('end', () => {
      const code = res.statusCode ?? 502;
      refuseUpgrade(
        socket,
        new StatusError(code, REASONS[code] ?? 'InternalError', body.trim() || `the kubelet refused the stream (${code})`),
      );
      upstream.terminate();
    });
  });
  upstream.once('open', () => {
    dialing = false;
    if (socket.destroyed) return upstream.terminate();
    const chosen = upstream.protocol;
    const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024, handleProtocols: () => chosen || false });
    wss.handleUpgrade(req, socket, head, (client) => {
      const pipe = (from: WebSocket, to: WebSocket) =>
        from.on('message', (data, isBinary) => to.readyState === WebSocket.OPEN && to.send(data, { binary: isBinary }));
      pipe(client, upstream);
      pipe(upstream, client);
      client.on('error', () => {});
      const closeOther = (other: WebSocket) => (code: number) => {
        if (other.readyState === WebSocket.OPEN) other.close(sendableCloseCode(code));
        else other.terminate();
      };
      client.on('close', closeOther(upstream));
      upstream.on('close', closeOther(client));
    });
  });
}
