// Bound ServiceAccount tokens, as kube's TokenRequest issues them and its
// service account authenticator checks them (pkg/serviceaccount jwt.go and
// claims.go): RS256 or ES256 JWTs with iss, sub, aud, exp, iat, nbf, jti and the
// `kubernetes.io` private claim naming the ServiceAccount and the Pod, Secret
// or Node the token is bound to. A token is good only while what it names
// still exists with the same uid (a minute of leeway for deletions, as kube).
import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { goQuote, goQuoteList } from '../../../shared/patch/go-format.ts';
import { AuthenticationError, type Authenticated, type TokenAuthenticator } from '../authenticator-types.ts';
import { serviceAccountGroups, serviceAccountUsername, type UserInfo } from '../user-info.ts';
import type { BoundObjects } from './objects.ts';
import type { SigningKey } from './sa-keys.ts';

/** go-jose's DefaultLeeway, which kube's validator uses for times and deletions. */
export const LEEWAY_SECONDS = 60;
/** The expiration kubelet asks for projected tokens, which kube extends (--service-account-extend-token-expiration). */
export const WARN_ONLY_EXPIRATION_SECONDS = 60 * 60 + 7;
/** What such a token's exp is extended to: a year. */
export const EXTENDED_EXPIRATION_SECONDS = 24 * 365 * 60 * 60;

/** The extra keys kube sets on ServiceAccount users (k8s.io/apiserver/pkg/authentication/serviceaccount). */
export const EXTRA = {
  podName: 'authentication.kubernetes.io/pod-name',
  podUid: 'authentication.kubernetes.io/pod-uid',
  nodeName: 'authentication.kubernetes.io/node-name',
  nodeUid: 'authentication.kubernetes.io/node-uid',
  credentialId: 'authentication.kubernetes.io/credential-id',
} as const;

interface Ref {
  name: string;
  uid?: string;
}

/** The `kubernetes.io` private claim. */
interface KubernetesClaims {
  namespace?: string;
  serviceaccount?: Ref;
  pod?: Ref;
  secret?: Ref;
  node?: Ref;
  warnafter?: number;
}

/** What a token is issued for. */
export interface TokenToIssue {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUid: string;
  audiences: string[];
  expirationSeconds: number;
  /** A Pod-bound token; its node (when scheduled) is named in the token as kube does. */
  boundPod?: { name: string; uid: string; nodeName?: string };
  boundSecret?: { name: string; uid: string };
  boundNode?: { name: string; uid: string };
}

/** An issued token and when it expires (RFC 3339, seconds), as TokenRequestStatus carries them. */
export interface IssuedToken {
  token: string;
  expirationTimestamp: string;
}

/** The collaborators of both halves. */
export interface ServiceAccountTokenOptions {
  key: SigningKey;
  issuer: string;
  apiAudiences: string[];
  objects: BoundObjects;
  now: () => Date;
  /** kube's --service-account-extend-token-expiration (true by default). */
  extendExpiration?: boolean;
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
const rfc3339 = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Issues a signed token with kube's claims. */
export async function issueToken(opts: ServiceAccountTokenOptions, req: TokenToIssue): Promise<IssuedToken> {
  const now = seconds(opts.now());
  const k8s: KubernetesClaims = {
    namespace: req.namespace,
    serviceaccount: { name: req.serviceAccountName, uid: req.serviceAccountUid },
  };
  const bound = [req.boundPod, req.boundSecret, req.boundNode].filter(Boolean).length;
  if (bound > 1) throw new Error('internal error, token can only be bound to one object type');
  if (req.boundPod) {
    k8s.pod = { name: req.boundPod.name, uid: req.boundPod.uid };
    const nodeName = req.boundPod.nodeName;
    // kube names the Pod's node even when the Node object is gone (then without a uid).
    if (nodeName) k8s.node = { name: nodeName, uid: opts.objects.node(nodeName)?.metadata.uid || undefined };
  } else if (req.boundSecret) k8s.secret = { ...req.boundSecret };
  else if (req.boundNode) k8s.node = { ...req.boundNode };
  let exp = req.expirationSeconds;
  const kubeAudiences = req.audiences.every((a) => opts.apiAudiences.includes(a));
  if ((opts.extendExpiration ?? true) && req.boundPod && exp === WARN_ONLY_EXPIRATION_SECONDS && kubeAudiences) {
    k8s.warnafter = now + exp;
    exp = EXTENDED_EXPIRATION_SECONDS;
  }
  const token = await new SignJWT({ 'kubernetes.io': k8s })
    .setProtectedHeader({ alg: opts.key.alg, kid: opts.key.kid })
    .setIssuer(opts.issuer)
    .setSubject(serviceAccountUsername(req.namespace, req.serviceAccountName))
    .setAudience(req.audiences)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(now + exp)
    .setJti(randomUUID())
    .sign(opts.key.privateKey);
  // The status carries the expiry asked for, not an extended one (as kube's TokenREST).
  return { token, expirationTimestamp: rfc3339(now + req.expirationSeconds) };
}

/** Why jose refused a token, in kube's words where kube has them. */
/**
 * The claims and header of a JWT, read without checking its signature (to
 * tell whose token it is before verifying it); undefined for a token that
 * does not parse as one.
 */
export function peekJwt(token: string): { unverified: JWTPayload; header: { alg?: string; kid?: string } } | undefined {
  if (token.split('.').length !== 3) return undefined;
  try {
    return { unverified: decodeJwt(token), header: decodeProtectedHeader(token) };
  } catch {
    return undefined;
  }
}

function refusal(err: unknown): AuthenticationError {
  if (err instanceof joseErrors.JWTExpired) return new AuthenticationError('service account token has expired');
  if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'nbf') {
    return new AuthenticationError('service account token is not valid yet');
  }
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
    return new AuthenticationError('go-jose/go-jose: error in cryptographic primitive');
  }
  if (err instanceof joseErrors.JOSEError)
    return new AuthenticationError(`service account token claims could not be validated: ${err.message}`);
  throw err;
}

function isRef(v: unknown): v is Ref {
  return (
    typeof v === 'object' && v !== null && typeof (v as Ref).name === 'string' && ['string', 'undefined'].includes(typeof (v as Ref).uid)
  );
}

/** The private claim, or why it is malformed. */
function kubernetesClaims(payload: JWTPayload): KubernetesClaims {
  const raw = payload['kubernetes.io'];
  const bad = new AuthenticationError('service account token claims could not be validated: malformed kubernetes.io claim');
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad;
  const k = raw as Record<string, unknown>;
  if (typeof k.namespace !== 'string' || !isRef(k.serviceaccount)) throw bad;
  for (const field of ['pod', 'secret', 'node'] as const) if (k[field] !== undefined && !isRef(k[field])) throw bad;
  if (k.warnafter !== undefined && typeof k.warnafter !== 'number') throw bad;
  return k;
}

/** True when `deletionTimestamp` is more than the leeway before `now`. */
function deletedBefore(deletionTimestamp: string | undefined, nowMs: number): boolean {
  return !!deletionTimestamp && Date.parse(deletionTimestamp) < nowMs - LEEWAY_SECONDS * 1000;
}

/** How long a checked signature is remembered: kube caches token results 10 s (--token-success-cache-ttl). */
const VERIFIED_TTL_MS = 10_000;
const VERIFIED_MAX = 4096;

/**
 * The authenticator of bound ServiceAccount tokens (kube's JWTTokenAuthenticator
 * with its validator). A verified signature is remembered for a few seconds
 * (an RSA verify costs about half a millisecond, on every request); the objects
 * the token names are checked on every request, so a deleted ServiceAccount's
 * token stops working at once.
 */
export function serviceAccountTokenAuthenticator(opts: ServiceAccountTokenOptions): TokenAuthenticator {
  const invalidated = () => new AuthenticationError('service account token has been invalidated');
  const verified = new Map<string, { payload: JWTPayload; untilMs: number }>();
  const remember = (token: string, payload: JWTPayload, nowMs: number) => {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
    const expMs = typeof payload.exp === 'number' ? payload.exp * 1000 : nowMs;
    verified.set(token, { payload, untilMs: Math.min(nowMs + VERIFIED_TTL_MS, expMs + LEEWAY_SECONDS * 1000) });
  };
  return {
    name: 'serviceaccount',
    async authenticateToken(token: string, audiences: string[]): Promise<Authenticated | undefined> {
      // Not a JWT of this issuer: another authenticator may know it (kube's hasCorrectIssuer).
      if (token.trimStart().startsWith('{')) return undefined;
      const peeked = peekJwt(token);
      if (!peeked) return undefined;
      const { unverified, header } = peeked;
      if (unverified.iss !== opts.issuer) return undefined;
      // kube parses with its allowed algorithms only: alg none or HS256 is not a token it knows.
      if (header.alg !== opts.key.alg) return undefined;
      if (header.kid && header.kid !== opts.key.kid) throw new AuthenticationError('invalid signature, no keys found');
      const now = opts.now();
      const cached = verified.get(token);
      let payload: JWTPayload;
      if (cached && cached.untilMs >= now.getTime()) payload = cached.payload;
      else {
        verified.delete(token);
        try {
          ({ payload } = await jwtVerify(token, opts.key.publicKey, {
            algorithms: [opts.key.alg],
            issuer: opts.issuer,
            currentDate: now,
            clockTolerance: LEEWAY_SECONDS,
          }));
        } catch (err) {
          throw refusal(err);
        }
        remember(token, payload, now.getTime());
      }
      if (typeof payload.iat === 'number' && payload.iat > seconds(now) + LEEWAY_SECONDS) {
        throw new AuthenticationError('service account token is issued in the future');
      }
      const tokenAudiences = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
      // Legacy tokens without aud are for the apiserver's own audiences.
      const effective = tokenAudiences.length > 0 ? tokenAudiences : opts.apiAudiences;
      const requested = audiences.length > 0 ? audiences : opts.apiAudiences;
      const granted = effective.filter((a) => requested.includes(a));
      if (granted.length === 0 && opts.apiAudiences.length > 0) {
        throw new AuthenticationError(
          `token audiences ${goQuoteList(effective)} is invalid for the target audiences ${goQuoteList(requested)}`,
        );
      }
      const k8s = kubernetesClaims(payload);
      const namespace = k8s.namespace!;
      const saRef = k8s.serviceaccount!;
      const nowMs = now.getTime();
      const sa = opts.objects.serviceAccount(namespace, saRef.name);
      if (!sa) throw new AuthenticationError(`serviceaccounts ${goQuote(saRef.name)} not found`);
      if ((sa.metadata.uid ?? '') !== (saRef.uid ?? '')) {
        throw new AuthenticationError(`service account UID (${sa.metadata.uid}) does not match claim (${saRef.uid ?? ''})`);
      }
      if (deletedBefore(sa.metadata.deletionTimestamp, nowMs)) {
        throw new AuthenticationError(`service account ${namespace}/${saRef.name} has been deleted`);
      }
      if (k8s.secret) {
        const secret = opts.objects.secret(namespace, k8s.secret.name);
        if (!secret) throw invalidated();
        if ((k8s.secret.uid ?? '') !== secret.metadata.uid) {
          throw new AuthenticationError(
            `secret UID (${secret.metadata.uid}) does not match service account secret ref claim (${k8s.secret.uid ?? ''})`,
          );
        }
        if (deletedBefore(secret.metadata.deletionTimestamp, nowMs)) throw invalidated();
      }
      const extra: Record<string, string[]> = {};
      if (k8s.pod) {
        const pod = opts.objects.pod(namespace, k8s.pod.name);
        if (!pod) throw invalidated();
        if ((k8s.pod.uid ?? '') !== pod.metadata.uid) {
          throw new AuthenticationError(
            `pod UID (${pod.metadata.uid}) does not match service account pod ref claim (${k8s.pod.uid ?? ''})`,
          );
        }
        if (deletedBefore(pod.metadata.deletionTimestamp, nowMs)) throw invalidated();
        if (k8s.pod.uid) {
          extra[EXTRA.podName] = [k8s.pod.name];
          extra[EXTRA.podUid] = [k8s.pod.uid];
        }
      }
      if (k8s.node) {
        if (!k8s.pod) {
          // A Node-bound token: the Node itself must still be there.
          const node = opts.objects.node(k8s.node.name);
          if (!node) throw invalidated();
          if ((k8s.node.uid ?? '') !== node.metadata.uid) {
            throw new AuthenticationError(
              `node UID (${node.metadata.uid}) does not match service account node ref claim (${k8s.node.uid ?? ''})`,
            );
          }
          if (deletedBefore(node.metadata.deletionTimestamp, nowMs)) throw invalidated();
        }
        extra[EXTRA.nodeName] = [k8s.node.name];
        if (k8s.node.uid) extra[EXTRA.nodeUid] = [k8s.node.uid];
      }
      if (typeof payload.jti === 'string' && payload.jti) extra[EXTRA.credentialId] = [`JTI=${payload.jti}`];
      const user: UserInfo = {
        username: serviceAccountUsername(namespace, saRef.name),
        uid: saRef.uid,
        groups: serviceAccountGroups(namespace),
      };
      if (Object.keys(extra).length > 0) user.extra = extra;
      return { user, authenticator: 'serviceaccount', audiences: granted };
    },
  };
}
