// The TLS side of the end-to-end helpers: the credentials a test client shows
// (the admin's client certificate from the cluster's kubeconfig, none, or a
// bearer token), and raw sockets that speak TLS with them, for tests that
// write HTTP by hand (the parser, slow readers) or the fuzzer.
import net from 'node:net';
import tls from 'node:tls';
import type { ClientConfig } from '../../shared/client/kubeconfig.ts';

/** The CA that verifies the server, and the client certificate and key shown to it (PEM). */
export interface TlsMaterial {
  ca: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/** Something to talk to: a base URL and, over https, its TLS material (an Apiserver or a Cluster is one). */
export interface ApiTarget {
  url: string;
  tls?: TlsMaterial;
}

/**
 * Whom a client is: 'default' shows the target's client certificate (the
 * cluster admin); 'anonymous' shows nothing (401 tests); { token } sends a
 * bearer token and no certificate; { cert, key } shows another certificate.
 */
export type Credentials = 'default' | 'anonymous' | { token: string } | { cert: Buffer | string; key: Buffer | string };

/** The node TLS options and extra headers for `credentials` against `target`. */
export function tlsFor(
  target: ApiTarget,
  credentials: Credentials = 'default',
): { tls?: tls.ConnectionOptions; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  if (typeof credentials === 'object' && 'token' in credentials) headers.authorization = `Bearer ${credentials.token}`;
  if (!target.url.startsWith('https:')) return { headers };
  const m = target.tls;
  const options: tls.ConnectionOptions = { ca: m?.ca };
  if (credentials === 'default') Object.assign(options, { cert: m?.cert, key: m?.key });
  else if (typeof credentials === 'object' && 'cert' in credentials)
    Object.assign(options, { cert: credentials.cert, key: credentials.key });
  return { tls: options, headers };
}

/** The TLS material of a kubeconfig's client config (undefined for plain http). */
export function tlsMaterialOf(config: ClientConfig): TlsMaterial | undefined {
  if (!config.server.startsWith('https:') || !config.ca) return undefined;
  return { ca: config.ca, cert: config.cert, key: config.key };
}

/**
 * A socket to the target's host and port, connecting now; over https a TLS
 * socket showing `credentials`. What is written before the handshake is done
 * is sent after it, so the raw-bytes tests write HTTP on it exactly as they
 * would on a plain TCP socket.
 */
export function openRaw(target: ApiTarget, credentials: Credentials = 'default'): net.Socket {
  const url = new URL(target.url);
  const port = Number(url.port);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const { tls: options } = tlsFor(target, credentials);
  return options ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...options }) : net.connect(port, host);
}

/** openRaw, resolved once connected (and, over https, once the handshake is done). */
export function connectRaw(target: ApiTarget, credentials: Credentials = 'default'): Promise<net.Socket> {
  const socket = openRaw(target, credentials);
  return new Promise((resolve, reject) => {
    socket.once(socket instanceof tls.TLSSocket ? 'secureConnect' : 'connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}
