// The apiserver's authentication: kube's request authenticator union. The
// client certificate first, then the bearer token against the static token
// file, ServiceAccount tokens (legacy Secret-based, then bound) and OIDC, in
// kube's order. A request with no credentials is system:anonymous;
// credentials that no authenticator accepts are refused (401). Also issues ServiceAccount tokens and serves the issuer's
// discovery document and keys.
import { exportJWK } from 'jose';
import type { Logger } from 'pino';
import type { Store } from '../../storage/store.ts';
import { AuthenticationError, type Authenticated, type AuthnRequest, type TokenAuthenticator } from '../authenticator-types.ts';
import { ANONYMOUS, withAuthenticatedGroup } from '../user-info.ts';
import { audienceAgnostic } from './audiences.ts';
import { bearerToken } from './bearer.ts';
import { storeObjects } from './objects.ts';
import { oidcAuthenticator, type OidcOptions } from './oidc.ts';
import { issueLegacyToken, legacyTokenAuthenticator, type LegacyTokenToIssue } from './legacy-token.ts';
import { loadOrCreateSigningKey } from './sa-keys.ts';
import { issueToken, serviceAccountTokenAuthenticator, type IssuedToken, type TokenToIssue } from './service-account-token.ts';
import { authenticateClientCertificate } from './x509.ts';

export type { IssuedToken, TokenToIssue } from './service-account-token.ts';
export type { OidcOptions } from './oidc.ts';
export type { LegacyTokenToIssue } from './legacy-token.ts';

/** kube's default --service-account-issuer on kubeadm clusters. */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The flags and collaborators of authentication. */
export interface AuthnOptions {
  store: Store;
  /** The data dir: the ServiceAccount key pair lives in DIR/pki/sa.key and sa.pub. */
  dataDir: string;
  /** The client CA (the TLS server verifies chains with it; kept for callers that need it). */
  clientCaPem?: string;
  /** --service-account-issuer (default https://kubernetes.default.svc.cluster.local). */
  serviceAccountIssuer?: string;
  /** --service-account-jwks-uri; default https://EXTERNAL_ADDRESS/openid/v1/jwks. */
  serviceAccountJwksUri?: string;
  /** The apiserver's external host:port (kube's default external address), for the default JWKS URI; else the issuer's host. */
  externalAddress?: string;
  /** --api-audiences (default [issuer]). */
  apiAudiences?: string[];
  /** --service-account-max-token-expiration in seconds (none by default). */
  maxTokenExpirationSeconds?: number;
  /** --service-account-extend-token-expiration (default true). */
  extendTokenExpiration?: boolean;
  /** --token-auth-file. */
  tokenAuthFile?: string;
  /** --oidc-*. */
  oidc?: OidcOptions;
  now: () => Date;
  log: Logger;
}

/** Authentication as the request path, TokenReview and TokenRequest use it. */
export interface Authentication {
  /** The caller of `req`: anonymous without credentials; throws AuthenticationError for credentials nobody accepts. */
  authenticate(req: AuthnRequest): Promise<Authenticated>;
  /** A bearer token alone, for `audiences` (default the API audiences), as TokenReview asks; throws AuthenticationError. */
  authenticateToken(token: string, audiences?: string[]): Promise<Authenticated>;
  /** Signs a ServiceAccount token (TokenRequest, projected token volumes). */
  issueServiceAccountToken(req: TokenToIssue): Promise<IssuedToken>;
  /** Signs a legacy token for a kubernetes.io/service-account-token Secret (what kube's tokens controller writes in data.token). */
  issueLegacyServiceAccountToken(req: LegacyTokenToIssue): Promise<string>;
  /** /.well-known/openid-configuration. */
  openidConfiguration(): object;
  /** /openid/v1/jwks. */
  jwks(): object;
  readonly issuer: string;
  readonly apiAudiences: string[];
  readonly maxTokenExpirationSeconds?: number;
}

/** Go's utilerrors.NewAggregate message. */
function aggregate(errors: Error[]): string {
  return errors.length === 1 ? errors[0].message : `[${errors.map((e) => e.message).join(', ')}]`;
}

/** Builds the authenticators from the options (makes the ServiceAccount key pair on first start). */
export async function createAuthentication(opts: AuthnOptions): Promise<Authentication> {
  const log = opts.log.child({ component: 'authn' });
  const issuer = opts.serviceAccountIssuer || DEFAULT_ISSUER;
  const apiAudiences = opts.apiAudiences?.length ? [...opts.apiAudiences] : [issuer];
  const key = await loadOrCreateSigningKey(opts.dataDir);
  const saOptions = {
    key,
    issuer,
    apiAudiences,
    objects: storeObjects(opts.store),
    now: opts.now,
    extendExpiration: opts.extendTokenExpiration,
  };
  const tokenAuthenticators: TokenAuthenticator[] = [];
  if (opts.tokenAuthFile) {
    const { tokenFileAuthenticator } = await import('./token-file.ts');
    tokenAuthenticators.push(
      audienceAgnostic(
        tokenFileAuthenticator(opts.tokenAuthFile, (msg) => log.warn(msg)),
        apiAudiences,
      ),
    );
  }
  tokenAuthenticators.push(legacyTokenAuthenticator(saOptions), serviceAccountTokenAuthenticator(saOptions));
  if (opts.oidc) tokenAuthenticators.push(audienceAgnostic(oidcAuthenticator(opts.oidc, opts.now), apiAudiences));
  const { kty, crv, x, y, n, e } = await exportJWK(key.publicKey);
  // go-jose's field order (use, kty, kid, crv, alg, x, y, n, e), without the members the key type lacks.
  const jwk = Object.fromEntries(
    Object.entries({ use: 'sig', kty, kid: key.kid, crv, alg: key.alg, x, y, n, e }).filter(([, v]) => v !== undefined),
  );
  const jwksUri = opts.serviceAccountJwksUri || jwksUriOf(opts.externalAddress, issuer);

  /** The token union: the first that accepts wins; errors are kept only if none does. */
  async function tryToken(token: string, audiences: string[]): Promise<Authenticated> {
    const errors: Error[] = [];
    for (const a of tokenAuthenticators) {
      try {
        const found = await a.authenticateToken(token, audiences);
        if (found) return { ...found, user: withAuthenticatedGroup(found.user) };
      } catch (err) {
        if (!(err instanceof AuthenticationError)) throw err;
        errors.push(err);
      }
    }
    throw new AuthenticationError(errors.length > 0 ? aggregate(errors) : 'invalid bearer token');
  }

  return {
    issuer,
    apiAudiences,
    maxTokenExpirationSeconds: opts.maxTokenExpirationSeconds,
    async authenticate(req: AuthnRequest): Promise<Authenticated> {
      const errors: Error[] = [];
      try {
        const cert = authenticateClientCertificate(req.tls, opts.now().getTime());
        if (cert) return { ...cert, user: withAuthenticatedGroup(cert.user) };
      } catch (err) {
        if (!(err instanceof AuthenticationError)) throw err;
        errors.push(err);
      }
      const token = bearerToken(req.headers);
      if (token !== undefined) {
        try {
          return await tryToken(token, []);
        } catch (err) {
          if (!(err instanceof AuthenticationError)) throw err;
          errors.push(err);
        }
      }
      if (errors.length > 0) {
        const err = new AuthenticationError(aggregate(errors));
        log.debug({ err: err.message }, 'Unable to authenticate the request');
        throw err;
      }
      return { user: ANONYMOUS, authenticator: 'anonymous' };
    },
    authenticateToken: (token, audiences) => tryToken(token, audiences ?? []),
    issueServiceAccountToken: (req) => issueToken(saOptions, req),
    issueLegacyServiceAccountToken: (req) => issueLegacyToken(saOptions.key, req),
    openidConfiguration: () => ({
      issuer,
      jwks_uri: jwksUri,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [key.alg],
    }),
    jwks: () => ({ keys: [jwk] }),
  };
}

/** The JWKS address kube derives when --service-account-jwks-uri is unset: the external address's /openid/v1/jwks. */
function jwksUriOf(externalAddress: string | undefined, issuer: string): string {
  if (externalAddress) return `https://${externalAddress}/openid/v1/jwks`;
  try {
    return `https://${new URL(issuer).host}/openid/v1/jwks`;
  } catch {
    return '/openid/v1/jwks';
  }
}
