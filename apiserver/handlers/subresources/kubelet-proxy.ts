// pods/log and pods/exec|attach: the apiserver finds the Pod's node and
// proxies to that node's kubelet (/containerLogs, /exec, /attach), as
// kube-apiserver does; a side that breaks ends the other side's stream. For ksim's
// simulated nodes the kubelet's address is the Node annotation
// `ksim.dev/kubelet-endpoint` (the InternalIPs are simulated), else
// 127.0.0.1 and status.daemonEndpoints.kubeletEndpoint.Port.
//
// An https:// kubelet is dialed with the apiserver's kubelet client
// certificate (ctx.kubeletClientTls, kube's --kubelet-client-certificate and
// --kubelet-client-key), which the kubelet authenticates and authorizes with a
// SubjectAccessReview. The kubelet's serving certificate is not verified: kube-
// apiserver verifies it only when --kubelet-certificate-authority is set, and
// kubelets (kubelet-sim's too) serve a self-signed one by default.
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { RequestUrl } from '../../http/request-url.ts';
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { badRequest, notFound, StatusError } from '../../../shared/api/errors.ts';
import type { Logger } from '../../../shared/log/logger.ts';
import { sendableCloseCode } from '../../../shared/util/ws-close.ts';
import { handshakeError, refuseUpgrade } from '../../http/ws-handshake.ts';
import type { Store } from '../../storage/store.ts';
import type { ApiContext, ApiRequest } from '../context.ts';

const ENDPOINT_ANNOTATION = 'ksim.dev/kubelet-endpoint';

interface Target {
  base: string;
  container: string;
}

/** Resolves the kubelet URL and container of a Pod, with kube's errors. */
export function kubeletTarget(store: Store, namespace: string, podName: string, container: string | null): Target {
  const pod = storedPod(store, namespace, podName);
  const names = (pod.spec?.containers ?? []).map((c) => c.name);
  const all = [
    ...names,
    ...(pod.spec?.initContainers ?? []).map((c) => c.name),
    ...(pod.spec?.ephemeralContainers ?? []).map((c) => c.name),
  ];
  let chosen = container ?? '';
  if (!chosen) {
    const annotated = pod.metadata?.annotations?.['kubectl.kubernetes.io/default-container'];
    if (annotated && names.includes(annotated)) chosen = annotated;
    else if (names.length === 1) chosen = names[0];
    else throw badRequest(`a container name must be specified for pod ${podName}, choose one of: [${names.join(' ')}]`);
  } else if (!all.includes(chosen)) {
    throw badRequest(`container ${chosen} is not valid for pod ${podName}`);
  }
  return { base: podKubeletBase(store, pod), container: chosen };
}

/** The stored Pod, or kube's 404. */
export function storedPod(store: Store, namespace: string, podName: string): Pod {
  const entry = store.get(`/registry/core/pods/${namespace}/${podName}`);
  if (!entry) throw notFound({ group: '', resource: 'pods' }, podName);
  return JSON.parse(entry.json) as Pod;
}

/** The kubelet URL of the node a Pod runs on, with kube's errors. */
export function podKubeletBase(store: Store, pod: Pod): string {
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw badRequest(`pod ${pod.metadata?.name} does not have a host assigned`);
  return nodeKubeletBase(store, nodeName);
}

/** The kubelet URL of a node (see the file comment), with kube's errors. */
export function nodeKubeletBase(store: Store, nodeName: string): string {
  const nodeEntry = store.get(`/registry/core/nodes/${nodeName}`);
  if (!nodeEntry) throw notFound({ group: '', resource: 'nodes' }, nodeName);
  const node = JSON.parse(nodeEntry.json) as Node;
  const annotated = node.metadata?.annotations?.[ENDPOINT_ANNOTATION];
  const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
  const base = annotated ?? (port ? `http://127.0.0.1:${port}` : undefined);
  if (!base) throw new StatusError(503, 'ServiceUnavailable', `no kubelet endpoint is known for node ${nodeName}`);
  return base.replace(/\/+$/, '');
}

/** The apiserver's client certificate for the kubelets (undefined on --insecure-http). */
export type KubeletClientTls = ApiContext['kubeletClientTls'];

/** TLS options for dialing an https kubelet: the client certificate, and no check of the kubelet's own (see the file comment). */
export function kubeletTlsOptions(tls: KubeletClientTls): https.RequestOptions {
  return { cert: tls?.certPem, key: tls?.keyPem, rejectUnauthorized: false };
}

/** Streams a container's log from its kubelet (follow keeps the stream open). */
export function proxyLog(ctx: ApiContext, r: ApiRequest): Promise<void> {
  const { namespace, name } = r.info;
  const target = kubeletTarget(ctx.store, namespace, name, r.query.get('container'));
  const query = new URLSearchParams(r.query);
  query.delete('container');
  const url = `${target.base}/containerLogs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(target.container)}?${query}`;
  return new Promise((resolve, reject) => {
    let upstream: http.ClientRequest;
    try {
      upstream = url.startsWith('https:') ? https.get(url, kubeletTlsOptions(ctx.kubeletClientTls), onResponse) : http.get(url, onResponse);
    } catch {
      return reject(
        new StatusError(502, 'InternalError', `error talking to the kubelet of pod ${name}: invalid kubelet address ${target.base}`),
      );
    }
    function onResponse(res: http.IncomingMessage): void {
      const headers: http.OutgoingHttpHeaders = {
        'Content-Type': res.headers['content-type'] ?? 'text/plain',
        'Cache-Control': 'no-cache, private',
      };
      r.res.writeHead(res.statusCode ?? 502, headers);
      // pipe() pauses the kubelet's stream while the client is slow: back-pressure, not buffering here.
      res.pipe(r.res);
      res.on('end', resolve);
      // The kubelet went away mid-stream (killed, say): end the client's stream now rather than leave it hanging.
      res.on('close', () => {
        if (!res.complete && !r.res.writableEnded) r.res.end();
        resolve();
      });
      res.on('error', () => {});
    }
    upstream.on('error', (err) => {
      if (r.res.headersSent) {
        if (!r.res.writableEnded) r.res.end();
        return resolve();
      }
      reject(new StatusError(502, 'InternalError', `error talking to the kubelet of pod ${name}: ${err.message}`));
    });
    r.res.on('close', () => upstream.destroy());
  });
}

/** Status reasons for the codes kubelet refuses a stream with. */
const KUBELET_REASONS: Record<number, string> = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound' };

/** Bytes waiting for one side of a stream before the other side is paused. */
const HIGH_WATER = 1024 * 1024;
/** The largest message either side may send (kubelets send output in small frames). */
const MAX_PAYLOAD = 8 * 1024 * 1024;

/**
 * Proxies a WebSocket exec or attach (kubectl 1.35 speaks v5.channel.k8s.io)
 * to the Pod's kubelet, message for message, keeping the subprotocol. Refusals
 * before the upgrade throw a StatusError for the caller to answer with.
 */
export function proxyStreamUpgrade(
  store: Store,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  url: RequestUrl,
  namespace: string,
  name: string,
  subresource: 'exec' | 'attach',
  log: Logger,
  tls?: KubeletClientTls,
): void {
  const target = kubeletTarget(store, namespace, name, url.searchParams.get('container'));
  const refused = handshakeError(req);
  if (refused) throw refused;
  const query = new URLSearchParams(url.searchParams);
  query.delete('container');
  const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const upstreamUrl = `${target.base.replace(/^http/, 'ws')}/${subresource}/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(target.container)}?${query}`;
  let upstream: WebSocket;
  try {
    const secure = upstreamUrl.startsWith('wss:') ? kubeletTlsOptions(tls) : {};
    upstream = new WebSocket(upstreamUrl, protocols, { maxPayload: MAX_PAYLOAD, handshakeTimeout: 10_000, ...secure });
  } catch {
    // A Node annotation that is not a URL, or subprotocols that are not tokens.
    throw new StatusError(502, 'InternalError', `error dialing the kubelet of pod ${name}: invalid kubelet address or subprotocol`);
  }
  let dialing = true;
  const clientLeft = () => dialing && upstream.terminate();
  socket.once('close', clientLeft);
  upstream.on('error', (err) => {
    if (!dialing) return log.debug({ err: err.message }, 'kubelet stream error');
    dialing = false;
    refuseUpgrade(socket, new StatusError(502, 'InternalError', `error dialing the kubelet of pod ${name}: ${err.message}`));
  });
  upstream.once('unexpected-response', (_r, res) => {
    // The kubelet refused (its answer is a Status): pass it on with its code.
    dialing = false;
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => body.length < 64 * 1024 && (body += d));
    res.on('error', () => {});
    res.on('end', () => {
      let status: StatusError;
      const code = res.statusCode ?? 502;
      try {
        const parsed = JSON.parse(body);
        status = StatusError.fromStatus(parsed, code);
      } catch {
        // kubelet's auth filter answers in plain text ("Forbidden (user=..., verb=..., resource=nodes,
        // subresource=proxy)"); kube-apiserver hands the kubelet's answer on, and so does this.
        const text = body.trim();
        status = text
          ? new StatusError(code, KUBELET_REASONS[code] ?? 'InternalError', text)
          : new StatusError(502, 'InternalError', `the kubelet of pod ${name} refused the stream (${res.statusCode})`);
      }
      refuseUpgrade(socket, status);
      upstream.terminate();
    });
  });
  upstream.once('open', () => {
    dialing = false;
    socket.off('close', clientLeft);
    if (socket.destroyed) return upstream.terminate();
    const chosen = upstream.protocol;
    const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD, handleProtocols: () => chosen || false });
    wss.handleUpgrade(req, socket, head, (client) => splice(client, upstream, chosen, log));
  });
}

/** Joins two WebSockets: messages both ways with back-pressure, and a close on one side closes the other with a legal code. */
function splice(client: WebSocket, upstream: WebSocket, protocol: string, log: Logger): void {
  const forward = (from: WebSocket, to: WebSocket) => {
    from.on('message', (data, isBinary) => {
      if (to.readyState !== WebSocket.OPEN) return;
      to.send(data, { binary: isBinary }, () => {
        if (from.isPaused && to.bufferedAmount < HIGH_WATER / 2) from.resume();
      });
      if (to.bufferedAmount > HIGH_WATER && !from.isPaused) from.pause();
    });
  };
  forward(client, upstream);
  forward(upstream, client);
  client.on('error', (err) => log.debug({ err: err.message }, 'stream client error'));
  client.on('close', (code) => {
    if (upstream.readyState === WebSocket.OPEN) upstream.close(sendableCloseCode(code));
    else upstream.terminate();
  });
  upstream.on('close', (code) => {
    if (client.readyState !== WebSocket.OPEN) return;
    if (code === 1006 && protocol.endsWith('.channel.k8s.io')) {
      // The kubelet vanished (killed, say) without a final status: say so on the error channel and close
      // normally, as kube's stream translator does, so kubectl prints the reason rather than a close code.
      const status = {
        metadata: {},
        status: 'Failure',
        message: 'Internal error occurred: the connection to the kubelet was lost',
        reason: 'InternalError',
        code: 500,
      };
      client.send(Buffer.concat([Buffer.from([3]), Buffer.from(JSON.stringify(status))]));
      return client.close(1000);
    }
    client.close(sendableCloseCode(code));
  });
}
