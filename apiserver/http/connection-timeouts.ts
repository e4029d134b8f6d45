// Connection timeouts as kube-apiserver's http.Server sets them: a request's
// headers must arrive within 32 s of the connection or of the previous
// response (ReadHeaderTimeout), and a kept-alive connection may idle for
// 90 s between requests (IdleTimeout). Node's headersTimeout only starts
// counting at a request's first byte, so a connection that never sends one
// is timed here.
import type http from 'node:http';
import type { Socket } from 'node:net';

/** kube-apiserver's ReadHeaderTimeout and IdleTimeout. */
export const KUBE_CONNECTION_TIMEOUTS = { headersMs: 32_000, idleMs: 90_000 };

/** Applies the timeouts to `server`; call before it listens. */
export function applyConnectionTimeouts(server: http.Server, t = KUBE_CONNECTION_TIMEOUTS): void {
  server.headersTimeout = t.headersMs;
  server.requestTimeout = Math.max(server.requestTimeout, t.headersMs + 1);
  server.keepAliveTimeout = t.idleMs;
  const firstRequestTimers = new WeakMap<Socket, NodeJS.Timeout>();
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), t.headersMs);
    timer.unref();
    firstRequestTimers.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  const started = (req: http.IncomingMessage) => clearTimeout(firstRequestTimers.get(req.socket));
  server.on('request', started);
  server.on('upgrade', started);
}
