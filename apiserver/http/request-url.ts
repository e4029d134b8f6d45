// The path and query of an incoming request's target, read from the raw
// request line. Every HTTP and upgrade request goes through this one parser.

/** A request target: its path (still percent-encoded) and its query parameters. */
export interface RequestUrl {
  pathname: string;
  searchParams: URLSearchParams;
}

/** Splits a raw request target (`/api/v1/pods?watch=1`) into path and query. */
export function parseRequestUrl(rawUrl: string | undefined): RequestUrl {
  const url = new URL(rawUrl ?? '/', 'http://localhost');
  return { pathname: url.pathname, searchParams: url.searchParams };
}
