// WebSocket upgrades on the API port: watches (served here) and pods/exec
// and pods/attach (proxied to the Pod's kubelet). Anything else that asks
// for an upgrade, and any handshake that is not a valid WebSocket one, gets a
// metav1.Status on the raw socket. Every raw socket has an error listener
// from the first moment: a client that resets must not take the server down.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { badRequest, StatusError } from '../../shared/api/errors.ts';
import { parseRequest } from '../request-info.ts';
import { checkWatchParams, runWatch } from '../handlers/watch.ts';
import { kubeletTarget, proxyStreamUpgrade } from '../handlers/subresources/kubelet-proxy.ts';
import type { ApiContext } from '../handlers/context.ts';
import { parseRequestUrl, type RequestUrl } from './request-url.ts';
import { wsWatchTransport } from './watch-transports.ts';
import { handshakeError, refuseUpgrade } from './ws-handshake.ts';

/** What an upgrade must pass first: authentication and authorization (auth/request-path.ts). */
export interface UpgradeGate {
  admit(req: http.IncomingMessage, url: RequestUrl, method: string): Promise<unknown>;
}

/** The server's 'upgrade' listener; every upgrade passes `gate` first, with the GET it is. */
export function upgradeHandler(
  ctx: ApiContext,
  wss: WebSocketServer,
  gate?: UpgradeGate,
): (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { log } = ctx;
  return (req, socket, head) => {
    socket.on('error', (err) => {
      log.debug({ err: err.message, url: req.url }, 'upgrade socket error');
      socket.destroy();
    });
    const url = parseRequestUrl(req.url);
    const admitted = gate ? gate.admit(req, url, 'GET') : Promise.resolve();
    admitted.then(
      () => upgrade(ctx, wss, req, socket, head, url),
      (err: unknown) => refuse(ctx, req, socket, err),
    );
  };
}

function refuse(ctx: ApiContext, req: http.IncomingMessage, socket: Duplex, err: unknown): void {
  if (!(err instanceof StatusError)) ctx.log.error({ err, url: req.url }, 'upgrade failed');
  refuseUpgrade(
    socket,
    err instanceof StatusError
      ? err
      : new StatusError(500, 'InternalError', 'an error on the server has prevented the request from succeeding'),
  );
}

function upgrade(ctx: ApiContext, wss: WebSocketServer, req: http.IncomingMessage, socket: Duplex, head: Buffer, url: RequestUrl): void {
  const { log, store } = ctx;
  try {
    const parsed = parseRequest('GET', url.pathname, true);
    const sub = parsed.kind === 'resource' ? parsed.info.subresource : '';
    if (parsed.kind === 'resource' && parsed.info.resource.plural === 'pods' && (sub === 'exec' || sub === 'attach')) {
      proxyStreamUpgrade(
        store,
        req,
        socket,
        head,
        url,
        parsed.info.namespace,
        parsed.info.name,
        sub,
        log.child({ stream: sub, pod: `${parsed.info.namespace}/${parsed.info.name}` }),
        ctx.kubeletClientTls,
      );
      return;
    }
    if (parsed.kind === 'resource' && parsed.info.resource.plural === 'pods' && sub === 'portforward') {
      // kube would proxy to the kubelet; simulated containers have no sockets to forward to.
      kubeletTarget(store, parsed.info.namespace, parsed.info.name, null);
      throw badRequest(
        `unable to upgrade connection: port forwarding is not supported by ksim's simulated kubelets (pod "${parsed.info.name}" has no network to forward to)`,
      );
    }
    if (parsed.kind !== 'resource' || parsed.info.verb !== 'watch')
      throw badRequest('only watch, exec and attach requests can be upgraded to a WebSocket');
    const params = { rt: parsed.info.resource, namespace: parsed.info.namespace, name: parsed.info.name, query: url.searchParams };
    checkWatchParams(params);
    const refused = handshakeError(req);
    if (refused) throw refused;
    wss.handleUpgrade(req, socket, head, (ws) => {
      runWatch(ctx, params, wsWatchTransport(ws)).catch((err) => {
        log.error({ err }, 'websocket watch failed');
        ws.close(1011);
      });
    });
  } catch (err) {
    refuse(ctx, req, socket, err);
  }
}
