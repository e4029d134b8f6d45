// WebSocket upgrades on the API port: watches (served here) and pods/exec
// and pods/attach (proxied to the Pod's kubelet). Anything else that asks
// for an upgrade gets a metav1.Status on the raw socket.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { StatusError } from '../../shared/api/errors.ts';
import { parseRequest } from '../request-info.ts';
import { checkWatchParams, runWatch } from '../handlers/watch.ts';
import { proxyExecUpgrade } from '../handlers/subresources/kubelet-proxy.ts';
import type { ApiContext } from '../handlers/context.ts';
import { parseRequestUrl } from './request-url.ts';
import { wsWatchTransport } from './watch-transports.ts';

/** The server's 'upgrade' listener. */
export function upgradeHandler(ctx: ApiContext, wss: WebSocketServer): (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { log, store } = ctx;
  return (req, socket, head) => {
    const url = parseRequestUrl(req.url);
    try {
      const parsed = parseRequest('GET', url.pathname, true);
      if (parsed.kind === 'resource' && (parsed.info.subresource === 'exec' || parsed.info.subresource === 'attach')) {
        proxyExecUpgrade(store, req, socket, head, url, parsed.info.namespace, parsed.info.name);
        return;
      }
      if (parsed.kind !== 'resource' || parsed.info.verb !== 'watch') throw new StatusError(400, 'BadRequest', 'only watch, exec and attach requests can be upgraded to a WebSocket');
      const params = { rt: parsed.info.resource, namespace: parsed.info.namespace, name: parsed.info.name, query: url.searchParams };
      checkWatchParams(params);
      wss.handleUpgrade(req, socket, head, (ws) => {
        runWatch(ctx, params, wsWatchTransport(ws)).catch((err) => {
          log.error({ err }, 'websocket watch failed');
          ws.close(1011);
        });
      });
    } catch (err) {
      const status = err instanceof StatusError ? err : new StatusError(500, 'InternalError', 'upgrade failed');
      const body = JSON.stringify(status.toStatus());
      socket.end(`HTTP/1.1 ${status.code} ${http.STATUS_CODES[status.code]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    }
  };
}
