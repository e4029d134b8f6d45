// The ServiceAccount issuer's OIDC discovery document and keys, served as
// kube-apiserver serves them (pkg/serviceaccount/openidmetadata.go), so an
// outside party can verify a ServiceAccount token: GET only, cacheable for an hour.
import type { ServerResponse } from 'node:http';

/** Where the documents come from (authentication's issuer). */
export interface IssuerDocuments {
  openidConfiguration(): object;
  jwks(): object;
}

const PATHS: Record<string, { type: string; body: (d: IssuerDocuments) => object }> = {
  '/.well-known/openid-configuration': { type: 'application/json', body: (d) => d.openidConfiguration() },
  '/openid/v1/jwks': { type: 'application/jwk-set+json', body: (d) => d.jwks() },
};

/** Answers `pathname` when it is one of the issuer's documents; false otherwise. */
export function serveIssuerDiscovery(docs: IssuerDocuments, method: string, pathname: string, res: ServerResponse): boolean {
  const doc = PATHS[pathname];
  if (!doc) return false;
  if (method !== 'GET' && method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' });
    res.end('Method Not Allowed');
    return true;
  }
  const body = JSON.stringify(doc.body(docs));
  res.writeHead(200, { 'Content-Type': doc.type, 'Cache-Control': 'public, max-age=3600', 'Content-Length': Buffer.byteLength(body) });
  res.end(method === 'HEAD' ? undefined : body);
  return true;
}
