// Connection timeouts as kube-apiserver's http.Server sets them: a request's
// headers must arrive within 32 s of the connection or of the previous
// response (ReadHeaderTimeout), and a kept-alive connection may idle for
// 90 s between requests (IdleTimeout). Node's headersTimeout only starts
// counting at a request's first byte, so a connection that never sends one
// is timed here. Over TLS the timer starts once the handshake is done (the
// handshake has its own limit, the server's handshakeTimeout) and is kept by
// the TLS socket, the one requests arrive on.
import type http from 'node:http';
import type https from 'node:https';
import type { Socket } from 'node:net';
import tls from 'node:tls';

/** kube-apiserver's ReadHeaderTimeout and IdleTimeout. */
export const KUBE_CONNECTION_TIMEOUTS = { headersMs: 32_000, idleMs: 90_000 };

/** Applies the timeouts to `server`; call before it listens. */
export function applyConnectionTimeouts(server: http.Server | https.Server, t = KUBE_CONNECTION_TIMEOUTS): void {
  server.headersTimeout = t.headersMs;
  server.requestTimeout = Math.max(server.requestTimeout, t.headersMs + 1);
  server.keepAliveTimeout = t.idleMs;
  const firstRequestTimers = new WeakMap<Socket, NodeJS.Timeout>();
  // A TLS server's 'connection' socket is the raw one; requests come on the TLS socket over it.
  server.on(server instanceof tls.Server ? 'secureConnection' : 'connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), t.headersMs);
    timer.unref();
    firstRequestTimers.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  const started = (req: http.IncomingMessage) => clearTimeout(firstRequestTimers.get(req.socket));
  server.on('request', started);
  server.on('upgrade', started);
}
