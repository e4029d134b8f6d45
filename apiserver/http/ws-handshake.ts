// Checks a WebSocket opening handshake (RFC 6455 section 4.2.1) before ws
// sees it, so that a bad one gets a metav1.Status like every other refusal
// instead of ws's plain-text 400; and writes such a refusal on the raw socket.
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { badRequest, type StatusError } from '../../shared/api/errors.ts';

/** The versions ws speaks (13 is RFC 6455; 8 is the last draft, still sent by some clients). */
const VERSIONS = new Set(['13', '8']);

/** An RFC 7230 token, the form every offered subprotocol must have (RFC 6455 section 4.1). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Whether a Sec-WebSocket-Protocol value lists distinct tokens, as ws requires before it upgrades. */
function validSubprotocols(value: string): boolean {
  const offered = value.split(',').map((p) => p.trim());
  return offered.every((p) => TOKEN.test(p)) && new Set(offered).size === offered.length;
}

/** The refusal for a request that is not a valid WebSocket handshake, or undefined when it is one. */
export function handshakeError(req: http.IncomingMessage): StatusError | undefined {
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
  if (upgrade !== 'websocket')
    return badRequest(
      `unable to upgrade connection: upgrade to "${req.headers.upgrade ?? ''}" is not supported, only to "websocket" (v5.channel.k8s.io)`,
    );
  if (req.method !== 'GET') return badRequest(`unable to upgrade connection: a WebSocket handshake must be a GET, not ${req.method}`);
  const key = req.headers['sec-websocket-key'];
  // A base64-encoded 16-byte nonce is 24 characters ending in "==".
  if (typeof key !== 'string' || !/^[+/0-9A-Za-z]{22}==$/.test(key.trim()))
    return badRequest('unable to upgrade connection: missing or invalid Sec-WebSocket-Key header (a base64-encoded 16-byte value)');
  const version = req.headers['sec-websocket-version'];
  if (typeof version !== 'string' || !VERSIONS.has(version.trim()))
    return badRequest('unable to upgrade connection: unsupported Sec-WebSocket-Version (13 and 8 are supported)');
  const protocols = req.headers['sec-websocket-protocol'];
  if (protocols !== undefined && !validSubprotocols(protocols))
    return badRequest('unable to upgrade connection: invalid Sec-WebSocket-Protocol header (a comma-separated list of distinct tokens)');
  return undefined;
}

/** Answers an upgrade request with a Status and closes the socket (a no-op on a socket already gone). */
export function refuseUpgrade(socket: Duplex, err: StatusError, headers: Record<string, string> = {}): void {
  if (socket.destroyed || !socket.writable) return void socket.destroy();
  const body = JSON.stringify(err.toStatus());
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${err.code} ${http.STATUS_CODES[err.code] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}
