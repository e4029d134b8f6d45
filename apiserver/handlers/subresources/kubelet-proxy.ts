// pods/log and pods/exec|attach: the apiserver finds the Pod's node and
// proxies to that node's kubelet, as kube-apiserver does. For ksim's
// simulated nodes the kubelet's address is the Node annotation
// `ksim.dev/kubelet-endpoint` (the InternalIPs are simulated), else
// 127.0.0.1 and status.daemonEndpoints.kubeletEndpoint.Port.
import type { RequestUrl } from '../../http/request-url.ts';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { badRequest, notFound, StatusError } from '../../../shared/api/errors.ts';
import type { Store } from '../../storage/store.ts';
import type { ApiContext, ApiRequest } from '../context.ts';

const ENDPOINT_ANNOTATION = 'ksim.dev/kubelet-endpoint';

interface Target {
  base: string;
  container: string;
}

/** Resolves the kubelet URL and container of a Pod, with kube's errors. */
export function kubeletTarget(store: Store, namespace: string, podName: string, container: string | null): Target {
  const entry = store.get(`/registry/core/pods/${namespace}/${podName}`);
  if (!entry) throw notFound({ group: '', resource: 'pods' }, podName);
  const pod = JSON.parse(entry.json);
  const names: string[] = (pod.spec?.containers ?? []).map((c: any) => c.name);
  const all = [...names, ...(pod.spec?.initContainers ?? []).map((c: any) => c.name), ...(pod.spec?.ephemeralContainers ?? []).map((c: any) => c.name)];
  let chosen = container ?? '';
  if (!chosen) {
    const annotated = pod.metadata?.annotations?.['kubectl.kubernetes.io/default-container'];
    if (annotated && names.includes(annotated)) chosen = annotated;
    else if (names.length === 1) chosen = names[0];
    else throw badRequest(`a container name must be specified for pod ${podName}, choose one of: [${names.join(' ')}]`);
  } else if (!all.includes(chosen)) {
    throw badRequest(`container ${chosen} is not valid for pod ${podName}`);
  }
  const nodeName = pod.spec?.nodeName;
  if (!nodeName) throw badRequest(`pod ${podName} does not have a host assigned`);
  const nodeEntry = store.get(`/registry/core/nodes/${nodeName}`);
  if (!nodeEntry) throw notFound({ group: '', resource: 'nodes' }, nodeName);
  const node = JSON.parse(nodeEntry.json);
  const annotated = node.metadata?.annotations?.[ENDPOINT_ANNOTATION];
  const port = node.status?.daemonEndpoints?.kubeletEndpoint?.Port;
  const base = annotated ?? (port ? `http://127.0.0.1:${port}` : undefined);
  if (!base) throw new StatusError(503, 'ServiceUnavailable', `no kubelet endpoint is known for node ${nodeName}`);
  return { base: base.replace(/\/+$/, ''), container: chosen };
}

/** Streams a container's log from its kubelet (follow keeps the stream open). */
export function proxyLog(ctx: ApiContext, r: ApiRequest): Promise<void> {
  const { namespace, name } = r.info;
  const target = kubeletTarget(ctx.store, namespace, name, r.query.get('container'));
  const query = new URLSearchParams(r.query);
  query.delete('container');
  const url = `${target.base}/containerLogs/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(target.container)}?${query}`;
  return new Promise((resolve, reject) => {
    const upstream = http.get(url, (res) => {
      const headers: http.OutgoingHttpHeaders = { 'Content-Type': res.headers['content-type'] ?? 'text/plain', 'Cache-Control': 'no-cache, private' };
      r.res.writeHead(res.statusCode ?? 502, headers);
      res.pipe(r.res);
      res.on('end', resolve);
      res.on('error', resolve);
    });
    upstream.on('error', (err) => reject(new StatusError(502, 'InternalError', `error talking to the kubelet of pod ${name}: ${err.message}`)));
    r.res.on('close', () => upstream.destroy());
  });
}

/**
 * Proxies a WebSocket exec or attach (kubectl 1.35 speaks v5.channel.k8s.io)
 * to the Pod's kubelet, message for message, keeping the subprotocol.
 */
export function proxyExecUpgrade(store: Store, req: http.IncomingMessage, socket: Duplex, head: Buffer, url: RequestUrl, namespace: string, name: string): void {
  const target = kubeletTarget(store, namespace, name, url.searchParams.get('container'));
  const query = new URLSearchParams(url.searchParams);
  query.delete('container');
  const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const upstreamUrl = `${target.base.replace(/^http/, 'ws')}/exec/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(target.container)}?${query}`;
  const upstream = new WebSocket(upstreamUrl, protocols);
  const fail = (why: string) => {
    const body = JSON.stringify(new StatusError(502, 'InternalError', why).toStatus());
    socket.end(`HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  };
  upstream.once('error', (err) => fail(`error dialing the kubelet of pod ${name}: ${err.message}`));
  upstream.once('open', () => {
    const chosen = upstream.protocol;
    const wss = new WebSocketServer({ noServer: true, handleProtocols: () => chosen || false });
    wss.handleUpgrade(req, socket, head, (client) => {
      client.on('message', (data, isBinary) => upstream.readyState === WebSocket.OPEN && upstream.send(data, { binary: isBinary }));
      upstream.on('message', (data, isBinary) => client.readyState === WebSocket.OPEN && client.send(data, { binary: isBinary }));
      client.on('close', () => upstream.close());
      upstream.on('close', (code) => client.close(code === 1005 ? 1000 : code));
    });
  });
}
