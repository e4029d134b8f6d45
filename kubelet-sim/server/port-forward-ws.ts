// kubelet's WebSocket port-forward (what client libraries such as
// @kubernetes/client-node open): the ports come in the query (`port=80`,
// repeated or comma-separated), each port gets two channels, data (2i) and
// error (2i+1), and every message is a channel byte and its payload (the
// binary v4.channel.k8s.io framing, or the same without a subprotocol). The
// first message on each channel from the kubelet is the port number, two
// bytes little-endian. Each port is one connection to the simulated process
// listening there; when all of them have ended the WebSocket is closed.
import type { WebSocket } from 'ws';
import type { Logger } from '../../shared/log/logger.ts';
import type { PodManager } from '../pod-manager.ts';
import { refusedMessage } from './port-forward.ts';
import { openSimConnection, type SimConnection } from './sim-connection.ts';

/** The subprotocols kubelet's WebSocket port-forward accepts (binary only here; '' is the absent header). */
export const PORT_FORWARD_WS_PROTOCOLS = ['v4.channel.k8s.io'];

/** The ports a WebSocket port-forward asks for, or kube's error for the query. */
export function parsePorts(query: URLSearchParams): number[] | string {
  const values = query.getAll('port');
  if (values.length === 0) return 'query parameter "port" is required';
  const ports: number[] = [];
  for (const v of values)
    for (const p of v.split(',')) {
      if (!/^\d+$/.test(p) || Number(p) > 65535)
        return `unable to parse "${v}" as a port: strconv.ParseUint: parsing "${p}": invalid syntax`;
      if (Number(p) < 1) return `port "${v}" must be > 0`;
      ports.push(Number(p));
    }
  return ports;
}

/** Serves one WebSocket port-forward session. */
export function webSocketPortForward(
  pods: PodManager,
  ws: WebSocket,
  target: { namespace: string; pod: string },
  ports: number[],
  log: Logger,
): void {
  const send = (channel: number, data: Buffer) => {
    if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), data]));
  };
  const worker = pods.worker(target.namespace, target.pod);
  let open = ports.length;
  const done = () => {
    if (--open === 0 && ws.readyState === ws.OPEN) ws.close(1000);
  };
  const conns: (SimConnection | undefined)[] = ports.map((port, i) => {
    const portBytes = Buffer.alloc(2);
    portBytes.writeUInt16LE(port);
    send(2 * i, portBytes);
    send(2 * i + 1, portBytes);
    const listener = worker?.portListener(port);
    if (!listener) {
      send(2 * i + 1, Buffer.from(refusedMessage(port, worker?.pod.metadata?.uid ?? '')));
      done();
      return undefined;
    }
    let ended = false;
    return openSimConnection(
      listener,
      {
        write: (b) => send(2 * i, b),
        end: () => {
          if (ended) return;
          ended = true;
          done();
        },
      },
      '127.0.0.1',
    );
  });
  ws.on('message', (data, isBinary) => {
    const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (!isBinary || buf.length === 0) return;
    const channel = buf[0];
    // Only the data channels are readable; a byte for another channel is ignored, as kube's wsstream does.
    if (channel % 2 === 0) conns[channel / 2]?.write(buf.subarray(1));
  });
  ws.on('error', (err) => log.debug({ err: err.message }, 'port-forward websocket error'));
  ws.on('close', () => {
    for (const c of conns) c?.end();
  });
}
