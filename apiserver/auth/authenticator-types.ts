// What an authenticator is given and what it answers: kube's
// authenticator.Request / Token interfaces. The chain (authenticate.ts) tries
// the client certificate, then the bearer token against each token
// authenticator, and falls back to anonymous only when the request carries
// no credentials at all.
import type { TLSSocket } from 'node:tls';
import type { IncomingHttpHeaders } from 'node:http';
import type { UserInfo } from './user-info.ts';

/** The parts of a request that authenticators read. */
export interface AuthnRequest {
  headers: IncomingHttpHeaders;
  /** The TLS socket (undefined on --insecure-http). */
  tls?: TLSSocket;
}

/** A successful authentication. */
export interface Authenticated {
  user: UserInfo;
  /** Which authenticator said so (for audit): x509, serviceaccount, token-file, oidc. */
  authenticator: string;
  /** The audiences a token was valid for (kube's authenticator.Response.Audiences). */
  audiences?: string[];
}

/**
 * A bearer token authenticator. `undefined`: the token is not of this kind
 * (another may know it); throws an AuthenticationError when it is of this
 * kind and invalid (expired, wrong audience, badly signed, owner gone).
 */
export interface TokenAuthenticator {
  name: string;
  authenticateToken(token: string, audiences: string[]): Promise<Authenticated | undefined>;
}

/** Why credentials were refused; the message is logged and audited, the client sees kube's plain 401. */
export class AuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthenticationError';
  }
}
