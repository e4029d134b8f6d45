// kubelet's port-forward endpoint (/portForward/{namespace}/{pod}), SPDY/3.1
// with the portforward.k8s.io protocol, as kubelet's streaming server runs
// it: the client opens a pair of streams per forwarded connection (headers
// `streamtype: error|data`, `port`, `requestid`), and once both are there the
// data stream is a TCP connection to localhost:PORT inside the Pod's network
// namespace, here the simulated process listening on that port of the Pod IP
// (sim-connection.ts). A port nothing listens on gets containerd's dial error
// on the error stream, prefixed as kubelet prefixes it. Several pairs run at
// once on one connection; a client that goes away ends them all.
import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../shared/log/logger.ts';
import { SpdySession, type SpdyStream } from '../../shared/streams/spdy/session.ts';
import type { PodManager } from '../pod-manager.ts';
import { openSimConnection } from './sim-connection.ts';

/** The subprotocol of port-forward streams (kube's PortForwardProtocolV1Name). */
export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';

/** How long a request waits for the other stream of its pair (kubelet's --streaming-connection-idle... stream creation timeout). */
const STREAM_CREATION_TIMEOUT_MS = 30_000;

/** The error for a stream whose headers are missing or wrong, as kubelet words them; undefined when it is valid. */
export function streamHeaderError(port: string, streamType: string): string | undefined {
  if (!port) return '"port" header is required';
  if (!/^\d+$/.test(port) || Number(port) > 65535)
    return `unable to parse "${port}" as a port: strconv.ParseUint: parsing "${port}": invalid syntax`;
  if (Number(port) < 1) return `port "${port}" must be > 0`;
  if (!streamType) return '"streamType" header is required';
  if (streamType !== 'error' && streamType !== 'data') return `invalid stream type "${streamType}"`;
  return undefined;
}

/** containerd's sandbox id of a Pod (a digest of its UID here), which names the Pod in port-forward errors. */
export function sandboxId(uid: string): string {
  return createHash('sha256').update(`sandbox/${uid}`).digest('hex');
}

/** The error a dial to a closed port gives, as kubelet and containerd word it together. */
export function refusedMessage(port: number, uid: string): string {
  const id = sandboxId(uid);
  return (
    `error forwarding port ${port} to pod ${id}, uid : failed to execute portforward in network namespace "/var/run/netns/cni-${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20, 32)}": ` +
    `failed to connect to localhost:${port} inside namespace "${id}", IPv4: dial tcp4 127.0.0.1:${port}: connect: connection refused IPv6 dial tcp6 [::1]:${port}: connect: connection refused `
  );
}

/** The port-forward request an upgrade URL names, or undefined. */
export function portForwardTarget(pathname: string): { namespace: string; pod: string } | undefined {
  const m = /^\/portForward\/([^/]+)\/([^/]+)(?:\/[^/]+)?$/.exec(pathname);
  if (!m) return undefined;
  try {
    return { namespace: decodeURIComponent(m[1]), pod: decodeURIComponent(m[2]) };
  } catch {
    return undefined;
  }
}

/** A refusal before the upgrade: kubelet's status code and plain-text message. */
export class PortForwardRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Checks the SPDY upgrade request (kube's httpstream.Handshake) and answers
 * 101, then serves the connection. Throws a PortForwardRefusal before
 * anything is written when the request cannot be served.
 */
export function servePortForward(
  pods: PodManager,
  req: http.IncomingMessage,
  socket: Duplex,
  head: Buffer,
  target: { namespace: string; pod: string },
  log: Logger,
): void {
  if (String(req.headers.upgrade ?? '').toLowerCase() !== 'spdy/3.1' || !/\bupgrade\b/i.test(String(req.headers.connection ?? '')))
    throw new PortForwardRefusal(400, 'unable to upgrade: missing upgrade headers in request');
  const offered = String(req.headers['x-stream-protocol-version'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (offered.length && !offered.includes(PORT_FORWARD_PROTOCOL))
    throw new PortForwardRefusal(
      403,
      `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${PORT_FORWARD_PROTOCOL}]`,
    );
  const worker = pods.worker(target.namespace, target.pod);
  if (!worker) throw new PortForwardRefusal(404, 'pod does not exist');
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n' +
      (offered.length ? `X-Stream-Protocol-Version: ${PORT_FORWARD_PROTOCOL}\r\n` : '') +
      '\r\n',
  );
  runPortForward(pods, socket, head, target, log);
}

/** Runs the SPDY port-forward protocol on an upgraded byte stream. */
export function runPortForward(
  pods: PodManager,
  socket: Duplex,
  head: Buffer,
  target: { namespace: string; pod: string },
  log: Logger,
): void {
  const pairs = new Map<string, { data?: SpdyStream; error?: SpdyStream; timer: NodeJS.Timeout }>();
  const session = new SpdySession(socket, {
    role: 'server',
    onStream: (s) => {
      const port = s.header('port');
      const type = s.header('streamtype');
      const invalid = streamHeaderError(port, type);
      if (invalid) throw new Error(invalid);
      // An old client without request ids: pair the streams by their ids, as kubelet does.
      const id = s.header('requestid') || String(type === 'error' ? s.id : s.id - 2);
      let pair = pairs.get(id);
      if (!pair) {
        const timer = setTimeout(() => {
          const p = pairs.get(id);
          pairs.delete(id);
          p?.error?.end(`(conn=${target.pod}, request=${id}) timed out waiting for streams`);
          p?.data?.destroy();
        }, STREAM_CREATION_TIMEOUT_MS);
        timer.unref();
        pair = { timer };
        pairs.set(id, pair);
      }
      s.on('error', () => {});
      if (pair[type as 'data' | 'error']) {
        pair.error?.write(`error processing stream for request ${id}: ${type} stream already assigned`);
        s.destroy();
        return;
      }
      pair[type as 'data' | 'error'] = s;
      if (pair.data && pair.error) {
        clearTimeout(pair.timer);
        pairs.delete(id);
        forward(pair.data, pair.error, Number(port));
      }
    },
    onClose: () => {
      for (const p of pairs.values()) clearTimeout(p.timer);
      pairs.clear();
      socket.destroy();
    },
    onError: (err) => log.debug({ err: err.message }, 'port-forward protocol error'),
  });
  const forward = (data: SpdyStream, error: SpdyStream, port: number) => {
    const worker = pods.worker(target.namespace, target.pod);
    const listener = worker?.portListener(port);
    // The client half-closes its error stream at once; kubelet closes its side when the forward is done.
    error.resume();
    if (!listener) {
      error.end(refusedMessage(port, worker?.pod.metadata?.uid ?? ''));
      data.end();
      return;
    }
    const conn = openSimConnection(
      listener,
      {
        write: (b) => !data.destroyed && data.write(b),
        end: () => {
          if (!data.destroyed) data.end();
          if (!error.destroyed) error.end();
        },
      },
      '127.0.0.1',
    );
    data.on('data', (b: Buffer) => conn.write(b));
    data.on('end', () => conn.end());
    data.on('close', () => conn.end());
  };
  socket.on('data', (b: Buffer) => session.receive(b));
  socket.on('close', () => session.transportClosed());
  socket.on('end', () => session.transportClosed());
  if (head.length) session.receive(head);
}
