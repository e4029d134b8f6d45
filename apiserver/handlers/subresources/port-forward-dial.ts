// The apiserver's dial to a port of a simulated Pod, for pods/proxy and
// services/proxy. kube-apiserver dials the Pod IP itself; ksim's Pod network
// lives inside kubelet-sim, so the dial is a port-forward stream pair on the
// Pod's kubelet (what `kubectl port-forward` opens), and the data stream is
// the TCP connection. A port nothing listens on shows up as the kubelet's
// message on the error stream, turned into the dial error kube reports.
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Duplex } from 'node:stream';
import { SpdySession, type SpdyStream } from '../../../shared/streams/spdy/session.ts';
import type { Store } from '../../storage/store.ts';
import { podKubeletBase, type KubeletClientTls } from './kubelet-proxy.ts';
import { dialKubeletPortForward } from './port-forward.ts';

/** A connection to a Pod's port: the byte stream, and what the kubelet said went wrong (empty while nothing did). */
export interface PodConnection {
  stream: SpdyStream;
  /** Resolves with the kubelet's error text when the dial failed ('' when the connection ended without one). */
  failure: Promise<string>;
  close(): void;
}

/** Opens a connection to `port` of `pod` through its kubelet. */
export async function dialPod(store: Store, pod: Pod, port: number, tls: KubeletClientTls | undefined): Promise<PodConnection> {
  const base = podKubeletBase(store, pod);
  const up = await dialKubeletPortForward(base, pod.metadata!.namespace!, pod.metadata!.name!, tls);
  const socket: Duplex = up.socket;
  const session = new SpdySession(socket, { role: 'client', onClose: () => socket.destroy() });
  socket.on('data', (b: Buffer) => session.receive(b));
  socket.on('close', () => session.transportClosed());
  socket.on('error', () => session.transportClosed());
  if (up.head.length) session.receive(up.head);
  const headers = (type: string) => ({ streamtype: [type], port: [String(port)], requestid: ['0'] });
  const error = session.openStream(headers('error'));
  error.end();
  const stream = session.openStream(headers('data'));
  stream.on('error', () => {});
  error.on('error', () => {});
  let text = '';
  const failure = new Promise<string>((resolve) => {
    error.on('data', (d: Buffer) => text.length < 4096 && (text += d.toString('utf8')));
    error.on('end', () => resolve(text));
    error.on('close', () => resolve(text));
  });
  return { stream, failure, close: () => session.close() };
}
