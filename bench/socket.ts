// The raw sockets of the benchmark clients (load.ts, watch-stream.ts): plain
// TCP to an http:// server, TLS to an https:// one, showing the target's
// client certificate (an apiserver's admin, or the floor server's throwaway
// client). Reads go into the caller's one reused buffer (`onread`) either way,
// so the client costs the same per request over both.
import net from 'node:net';
import tls from 'node:tls';
import { tlsFor, type ApiTarget } from '../test/helpers/index.ts';

/** A base URL (plain http) or a target with TLS material. */
export type BenchTarget = string | ApiTarget;

/** The target as { url, tls }. */
export function targetOf(target: BenchTarget): ApiTarget {
  return typeof target === 'string' ? { url: target } : target;
}

/** Connects to the target's host and port; over https the TLS handshake runs before the first write goes out. */
export function openSocket(target: BenchTarget, onread: net.OnReadOpts): net.Socket {
  const t = targetOf(target);
  const u = new URL(t.url);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const { tls: options } = tlsFor(t);
  // node's tls.connect takes `onread` as net.connect does; its type declarations leave it out.
  if (options) return tls.connect({ host, port: Number(u.port || 443), onread, ...options } as tls.ConnectionOptions);
  return net.connect({ host, port: Number(u.port || 80), onread });
}
