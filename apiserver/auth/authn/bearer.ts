// Where a request's bearer token is: the Authorization header (kube's
// bearertoken authenticator), or for WebSocket requests, which browsers cannot
// give headers, the `base64url.bearer.authorization.k8s.io.` subprotocol.
import type { IncomingHttpHeaders } from 'node:http';

const WS_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/** The bearer token of `headers`, or undefined when there is none (other schemes are not credentials here). */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const auth = (headers.authorization ?? '').trim();
  if (auth) {
    const parts = auth.split(' ');
    if (parts.length >= 2 && parts[0].toLowerCase() === 'bearer' && parts[1]) return parts[1];
  }
  if ((headers.upgrade ?? '').toLowerCase() !== 'websocket') return undefined;
  const protocols = headers['sec-websocket-protocol'];
  for (const p of (protocols ?? '').split(',')) {
    const proto = p.trim();
    if (!proto.startsWith(WS_PREFIX)) continue;
    const encoded = proto.slice(WS_PREFIX.length);
    if (!encoded || !/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined;
    return Buffer.from(encoded, 'base64url').toString('utf8') || undefined;
  }
  return undefined;
}
