// OIDC ID tokens (--oidc-* flags), as kube's OIDC / JWT authenticator checks
// them: iss must be the issuer URL, aud must hold the client ID, exp and the
// signature (keys from the issuer's JWKS, found through its discovery
// document, or from a local JWKS file); then the username and groups claims
// with kube's prefix rules. Only tokens of this issuer are looked at.
import { readFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { get as httpGet } from 'node:http';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  decodeProtectedHeader,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { goQuote, goQuoteList } from '../../../shared/patch/go-format.ts';
import { AuthenticationError, type Authenticated, type TokenAuthenticator } from '../authenticator-types.ts';
import type { UserInfo } from '../user-info.ts';

/** The --oidc-* flags. */
export interface OidcOptions {
  issuerUrl: string;
  clientId: string;
  /** Default "sub". */
  usernameClaim?: string;
  /** Unset: `ISSUER#` for claims other than email; "-": none. */
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  /** PEM CA bundle trusted for the issuer's discovery document and JWKS. */
  caFile?: string;
  /** A local JWKS file used instead of fetching the issuer's. */
  jwksFile?: string;
  requiredClaims?: Record<string, string>;
  /** --oidc-signing-algs, default RS256. */
  signingAlgs?: string[];
}

/** GETs `url` (trusting `ca` when given) as a fetch Response, for jose and discovery. */
function fetchWith(ca: string | undefined) {
  return (url: string, init?: { headers?: Headers; signal?: AbortSignal }): Promise<Response> =>
    new Promise((resolve, reject) => {
      const u = new URL(url);
      const headers = Object.fromEntries(init?.headers?.entries() ?? []);
      const onRes = (res: import('node:http').IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
          resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 500, headers: h }));
        });
        res.on('error', reject);
      };
      const req =
        u.protocol === 'https:'
          ? httpsGet(u, { ca, headers, signal: init?.signal }, onRes)
          : httpGet(u, { headers, signal: init?.signal }, onRes);
      req.on('error', reject);
    });
}

/** Go's time.Time String() in UTC. */
function goTime(unix: number): string {
  return new Date(unix * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d{3}Z$/, ' +0000 UTC');
}

/** The OIDC token authenticator (audience-agnostic: wrap it with audienceAgnostic). */
export function oidcAuthenticator(opts: OidcOptions, now: () => Date): TokenAuthenticator {
  const usernameClaim = opts.usernameClaim || 'sub';
  const usernamePrefix =
    opts.usernamePrefix === '-' ? '' : opts.usernamePrefix ? opts.usernamePrefix : usernameClaim === 'email' ? '' : `${opts.issuerUrl}#`;
  const groupsPrefix = opts.groupsPrefix ?? '';
  const algorithms = opts.signingAlgs?.length ? opts.signingAlgs : ['RS256'];
  const ca = opts.caFile ? readFileSync(opts.caFile, 'utf8') : undefined;
  const fetch = fetchWith(ca);
  let keys: JWTVerifyGetKey | undefined = opts.jwksFile
    ? createLocalJWKSet(JSON.parse(readFileSync(opts.jwksFile, 'utf8')) as JSONWebKeySet)
    : undefined;

  /** Finds the JWKS through the issuer's discovery document (once it answers). */
  async function keySet(): Promise<JWTVerifyGetKey> {
    if (keys) return keys;
    const discovery = `${opts.issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`;
    let doc: { issuer?: string; jwks_uri?: string };
    try {
      const res = await fetch(discovery);
      if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
      doc = (await res.json()) as typeof doc;
    } catch (err) {
      throw new AuthenticationError(`oidc: authenticator not initialized: fetching ${discovery}: ${(err as Error).message}`);
    }
    if (doc.issuer !== opts.issuerUrl) {
      throw new AuthenticationError(
        `oidc: authenticator not initialized: oidc: issuer did not match the issuer returned by provider, expected ${goQuote(opts.issuerUrl)} got ${goQuote(String(doc.issuer))}`,
      );
    }
    if (!doc.jwks_uri) throw new AuthenticationError('oidc: authenticator not initialized: discovery document has no jwks_uri');
    keys = createRemoteJWKSet(new URL(doc.jwks_uri), { [customFetch]: fetch });
    return keys;
  }

  function refusal(err: unknown, payload: JWTPayload): AuthenticationError {
    const v = (why: string) => new AuthenticationError(`oidc: verify token: ${why}`);
    if (err instanceof AuthenticationError) return err;
    if (err instanceof joseErrors.JWTExpired) return v(`oidc: token is expired (Token Expiry: ${goTime(Number(payload.exp))})`);
    if (err instanceof joseErrors.JWTClaimValidationFailed) {
      if (err.claim === 'aud') {
        const aud = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
        return v(`oidc: expected audience ${goQuote(opts.clientId)} got ${goQuoteList(aud)}`);
      }
      if (err.claim === 'nbf')
        return v(
          `oidc: current time ${goTime(Math.floor(now().getTime() / 1000))} before the nbf (not before) time: ${goTime(Number(payload.nbf))}`,
        );
      return v(`oidc: ${err.message}`);
    }
    if (err instanceof joseErrors.JWSSignatureVerificationFailed || err instanceof joseErrors.JWKSNoMatchingKey) {
      return v('failed to verify signature: failed to verify id token signature');
    }
    if (err instanceof joseErrors.JOSEError) return v(err.message);
    throw err;
  }

  function claimString(payload: JWTPayload, claim: string): string {
    const value = payload[claim];
    if (value === undefined) throw new AuthenticationError(`oidc: parse username claims ${goQuote(claim)}: claim not present`);
    if (typeof value !== 'string') throw new AuthenticationError(`oidc: parse username claims ${goQuote(claim)}: claim is not a string`);
    return value;
  }

  return {
    name: 'oidc',
    async authenticateToken(token: string): Promise<Authenticated | undefined> {
      if (token.split('.').length !== 3) return undefined;
      let unverified: JWTPayload;
      let alg: string | undefined;
      try {
        unverified = decodeJwt(token);
        alg = decodeProtectedHeader(token).alg;
      } catch {
        return undefined;
      }
      // Tokens of other issuers are not this authenticator's (kube checks iss before anything else).
      if (unverified.iss !== opts.issuerUrl) return undefined;
      if (!alg || !algorithms.includes(alg)) {
        throw new AuthenticationError(
          `oidc: verify token: oidc: id token signed with unsupported algorithm, expected ${goQuoteList(algorithms)} got ${goQuote(String(alg))}`,
        );
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, await keySet(), {
          issuer: opts.issuerUrl,
          audience: opts.clientId,
          algorithms,
          currentDate: now(),
        }));
      } catch (err) {
        throw refusal(err, unverified);
      }
      if (usernameClaim === 'email' && payload.email_verified !== undefined) {
        if (typeof payload.email_verified !== 'boolean') {
          throw new AuthenticationError(`oidc: parse 'email_verified' claim: not a boolean`);
        }
        if (!payload.email_verified) throw new AuthenticationError('oidc: email not verified');
      }
      const username = usernamePrefix + claimString(payload, usernameClaim);
      let groups: string[] = [];
      if (opts.groupsClaim && payload[opts.groupsClaim] !== undefined) {
        const g = payload[opts.groupsClaim];
        if (typeof g === 'string') groups = [g];
        else if (Array.isArray(g) && g.every((x) => typeof x === 'string')) groups = g;
        else throw new AuthenticationError(`oidc: parse groups claim ${goQuote(opts.groupsClaim)}: not a string or a list of strings`);
        groups = groups.map((x) => groupsPrefix + x);
      }
      for (const [claim, want] of Object.entries(opts.requiredClaims ?? {})) {
        const got = payload[claim];
        if (got === undefined) throw new AuthenticationError(`oidc: required claim ${claim} not present in ID token`);
        if (got !== want) {
          throw new AuthenticationError(
            `oidc: required claim ${claim} value does not match. Got = ${typeof got === 'string' ? got : JSON.stringify(got)}, want = ${want}`,
          );
        }
      }
      const user: UserInfo = { username, groups };
      return { user, authenticator: 'oidc' };
    },
  };
}
