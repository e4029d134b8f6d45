// WebSocket upgrades on the API port: watches (served here), pods/exec
// and pods/attach (proxied to the Pod's kubelet), and pods/portforward
// (WebSocket-tunneled or plain SPDY, relayed to the kubelet's SPDY). Anything else that asks
// for an upgrade, and any handshake that is not a valid WebSocket one, gets a
// metav1.Status on the raw socket. Every raw socket has an error listener
// from the first moment: a client that resets must not take the server down.
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { badRequest, StatusError } from '../../shared/api/errors.ts';
import { parseRequest } from '../request-info.ts';
import { checkWatchParams, runWatch, type WatchParams } from '../handlers/watch.ts';
import { proxyStreamUpgrade } from '../handlers/subresources/kubelet-proxy.ts';
import { portForwardUpgrade } from '../handlers/subresources/port-forward.ts';
import type { ApiContext } from '../handlers/context.ts';
import { parseRequestUrl, type RequestUrl } from './request-url.ts';
import { wsWatchTransport } from './watch-transports.ts';
import { handshakeError, refuseUpgrade } from './ws-handshake.ts';

/** What an upgrade must pass first: authentication and authorization (auth/request-path.ts). */
export interface UpgradeGate {
  /** Resolves with the user the request acts as (for the watch faults that name one), or refuses it. */
  admit(req: http.IncomingMessage, url: RequestUrl, method: string): Promise<{ user?: { username?: string } } | void>;
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
      (who) => upgrade(ctx, wss, req, socket, head, url, { user: who?.user?.username, userAgent: req.headers['user-agent'] }),
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

function upgrade(
  ctx: ApiContext,
  wss: WebSocketServer,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  url: RequestUrl,
  client: WatchParams['client'],
): void {
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
      portForwardUpgrade(
        store,
        req,
        socket,
        head,
        url,
        parsed.info.namespace,
        parsed.info.name,
        log.child({ stream: sub, pod: `${parsed.info.namespace}/${parsed.info.name}` }),
        ctx.kubeletClientTls,
      );
      return;
    }
    if (parsed.kind !== 'resource' || parsed.info.verb !== 'watch')
      throw badRequest('only watch, exec, attach and portforward requests can be upgraded');
    const params = { rt: parsed.info.resource, namespace: parsed.info.namespace, name: parsed.info.name, query: url.searchParams, client };
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
