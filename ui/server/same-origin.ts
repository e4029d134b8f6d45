// Whether a request comes from the UI's own page. A browser names the page
// that made a request in its Origin header; another site's page must not
// read the cluster with the UI's identity (the /live WebSocket) nor drive
// the controllers (the step-through POSTs). A request with no Origin is not
// a browser's cross-site one.
import type http from 'node:http';

/** True when `req` has no Origin or the UI's own host as its Origin. */
export function sameOrigin(req: http.IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}
