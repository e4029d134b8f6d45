// The path and query of an incoming request's target, read from the raw
// request line. Every HTTP and upgrade request goes through this one parser.
//
// Not WHATWG `new URL`: that resolves `.` and `..` segments (also their
// percent-encoded forms), turns `\` into `/`, and reads a leading `//` as a
// host, so `/api/v1/namespaces/default/configmaps/%2e%2e` would become the
// Namespace `default`. A request target is taken as sent, like Go's
// url.ParseRequestURI: the path stays percent-encoded and is split on `/`
// only by the request parser (request-info.ts), which then decodes each
// segment. This function never throws: a malformed target is the parser's
// 400 to answer, not an exception in the request listener.

/** A request target: its path (still percent-encoded, as sent) and its query parameters. */
export interface RequestUrl {
  pathname: string;
  searchParams: URLSearchParams;
}

// An absolute-form target (`http://host/path`, RFC 9112 3.2.2) carries an authority before its path.
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?]*/;

/** Splits a raw request target (`/api/v1/pods?watch=1`) into path and query. */
export function parseRequestUrl(rawUrl: string | undefined): RequestUrl {
  let target = rawUrl ?? '/';
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute) target = target.slice(absolute[0].length);
  const q = target.indexOf('?');
  const pathname = q < 0 ? target : target.slice(0, q);
  // URLSearchParams keeps a bad escape in the query as sent (Go's url.ParseQuery drops the pair); neither fails the request.
  const searchParams = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
  return { pathname: pathname === '' ? '/' : pathname, searchParams };
}
