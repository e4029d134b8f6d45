// The segments of a request path, as kube-apiserver sees them: the raw path
// is split on `/` (the only separator; `\` is a character like any other),
// leading and trailing slashes trimmed as kube's splitPath trims them, and
// each segment percent-decoded on its own, so `%2F` or `%2e%2e` inside a
// segment stay part of that one segment and never move the request to
// another path.
import { badRequest, StatusError } from '../../shared/api/errors.ts';
import { goQuote } from '../../shared/patch/go-format.ts';

// ignoreBOM keeps a leading U+FEFF in the name: dropping it would make `%EF%BB%BFx` name the object `x`.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

const NEEDS_DECODING = /[%\u0080-\uffff]/;

/**
 * Percent-decodes one segment. A malformed escape is a 400 worded as Go's
 * url.EscapeError (`invalid URL escape "%zz"`), where decodeURIComponent
 * would throw a URIError that surfaced as a 500.
 */
export function decodeSegment(segment: string): string {
  // Plain ASCII without escapes, nearly every segment, is itself.
  if (!NEEDS_DECODING.test(segment)) return segment;
  // Node hands the request line over byte for byte as latin1: read it back as the bytes that were sent
  // (a code unit above 0xff means it was not, and the segment is plain UTF-16 text).
  const raw = Buffer.from(segment, /[\u0100-\uffff]/.test(segment) ? 'utf8' : 'latin1');
  if (!raw.includes(0x25) && raw.every((b) => b < 0x80)) return segment;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] !== 0x25) {
      bytes.push(raw[i]);
      continue;
    }
    if (i + 2 >= raw.length || !isHex(raw[i + 1]) || !isHex(raw[i + 2])) {
      throw badRequest(`invalid URL escape ${goQuote(raw.subarray(i, i + 3).toString('latin1'))}`);
    }
    bytes.push(parseInt(String.fromCharCode(raw[i + 1], raw[i + 2]), 16));
    i += 2;
  }
  try {
    return utf8.decode(Uint8Array.from(bytes));
  } catch {
    // Go keeps the bytes as they are; a JS string cannot, and a lossy decoding could name another object.
    throw badRequest(`invalid UTF-8 in URL path segment ${goQuote(segment)}`);
  }
}

/** kube's bare 404 for a path no route serves (details empty, as its go-restful error handler sends it). */
export function notFoundPath(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/**
 * The decoded segments of `pathname` (raw, as sent). An empty segment inside
 * the path (`/namespaces//configmaps`) is a 404: no route has one, and
 * skipping it would read the path as another.
 */
export function splitPath(pathname: string): string[] {
  const trimmed = pathname.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return [];
  const raw = trimmed.split('/');
  // Every escape is checked before the path is routed, as Go rejects the whole request line.
  const parts = raw.map(decodeSegment);
  if (raw.includes('')) throw notFoundPath();
  return parts;
}
