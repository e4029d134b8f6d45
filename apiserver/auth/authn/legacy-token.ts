// Legacy ServiceAccount tokens: the long-lived JWTs kube's tokens controller
// writes into Secrets of type kubernetes.io/service-account-token (issuer
// "kubernetes/serviceaccount", no audience, no expiry). Good only while the
// Secret still holds that very token and the ServiceAccount keeps its uid, as
// kube's legacy validator checks (pkg/serviceaccount/legacy.go).
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { goQuote, goQuoteList } from '../../../shared/patch/go-format.ts';
import { AuthenticationError, type Authenticated, type TokenAuthenticator } from '../authenticator-types.ts';
import { parseServiceAccountUsername, serviceAccountGroups, serviceAccountUsername } from '../user-info.ts';
import type { SigningKey } from './sa-keys.ts';
import { peekJwt, type ServiceAccountTokenOptions } from './service-account-token.ts';

/** kube's LegacyIssuer. */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

const CLAIM = {
  namespace: 'kubernetes.io/serviceaccount/namespace',
  secretName: 'kubernetes.io/serviceaccount/secret.name',
  name: 'kubernetes.io/serviceaccount/service-account.name',
  uid: 'kubernetes.io/serviceaccount/service-account.uid',
} as const;

/** What a tokens controller signs a Secret's token for. */
export interface LegacyTokenToIssue {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUid: string;
  secretName: string;
}

/** Signs a legacy token (for the data.token of a kubernetes.io/service-account-token Secret) with `key`. */
export function issueLegacyToken(key: SigningKey, req: LegacyTokenToIssue): Promise<string> {
  return new SignJWT({
    [CLAIM.namespace]: req.namespace,
    [CLAIM.secretName]: req.secretName,
    [CLAIM.name]: req.serviceAccountName,
    [CLAIM.uid]: req.serviceAccountUid,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid })
    .setIssuer(LEGACY_ISSUER)
    .setSubject(serviceAccountUsername(req.namespace, req.serviceAccountName))
    .sign(key.privateKey);
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The authenticator of legacy tokens. */
export function legacyTokenAuthenticator(opts: ServiceAccountTokenOptions): TokenAuthenticator {
  const invalidated = () => new AuthenticationError('Token has been invalidated');
  return {
    name: 'serviceaccount-legacy',
    async authenticateToken(token: string, audiences: string[]): Promise<Authenticated | undefined> {
      const peeked = peekJwt(token);
      if (!peeked) return undefined;
      const { unverified, header } = peeked;
      if (unverified.iss !== LEGACY_ISSUER || header.alg !== opts.key.alg) return undefined;
      if (header.kid && header.kid !== opts.key.kid) throw new AuthenticationError('invalid signature, no keys found');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, opts.key.publicKey, {
          algorithms: [opts.key.alg],
          issuer: LEGACY_ISSUER,
          currentDate: opts.now(),
        }));
      } catch (err) {
        if (err instanceof joseErrors.JWSSignatureVerificationFailed) {
          throw new AuthenticationError('go-jose/go-jose: error in cryptographic primitive');
        }
        if (err instanceof joseErrors.JOSEError) throw new AuthenticationError(err.message);
        throw err;
      }
      // Legacy tokens carry no audience: they are for the apiserver's own.
      const requested = audiences.length > 0 ? audiences : opts.apiAudiences;
      const granted = opts.apiAudiences.filter((a) => requested.includes(a));
      if (granted.length === 0 && opts.apiAudiences.length > 0) {
        throw new AuthenticationError(
          `token audiences ${goQuoteList(opts.apiAudiences)} is invalid for the target audiences ${goQuoteList(requested)}`,
        );
      }
      const sub = str(payload.sub);
      const namespace = str(payload[CLAIM.namespace]);
      const secretName = str(payload[CLAIM.secretName]);
      const name = str(payload[CLAIM.name]);
      const uid = str(payload[CLAIM.uid]);
      if (!sub) throw new AuthenticationError('sub claim is missing');
      if (!namespace) throw new AuthenticationError('namespace claim is missing');
      if (!secretName) throw new AuthenticationError('secretName claim is missing');
      if (!name) throw new AuthenticationError('serviceAccountName claim is missing');
      if (!uid) throw new AuthenticationError('serviceAccountUID claim is missing');
      const subject = parseServiceAccountUsername(sub);
      if (!subject || subject.namespace !== namespace || subject.name !== name) throw new AuthenticationError('sub claim is invalid');
      const secret = opts.objects.secret(namespace, secretName);
      if (!secret || secret.metadata.deletionTimestamp) throw invalidated();
      const stored = secret.data?.token;
      if (!stored || Buffer.from(stored, 'base64').toString('utf8') !== token) {
        throw new AuthenticationError("Token does not match server's copy");
      }
      if (secret.metadata.labels?.['kubernetes.io/legacy-token-invalid-since']) throw invalidated();
      const sa = opts.objects.serviceAccount(namespace, name);
      if (!sa) throw new AuthenticationError(`serviceaccounts ${goQuote(name)} not found`);
      if (sa.metadata.deletionTimestamp) throw new AuthenticationError(`ServiceAccount ${namespace}/${name} has been deleted`);
      if (sa.metadata.uid !== uid) throw new AuthenticationError(`ServiceAccount UID (${sa.metadata.uid}) does not match claim (${uid})`);
      return {
        user: { username: serviceAccountUsername(namespace, name), uid, groups: serviceAccountGroups(namespace) },
        authenticator: 'serviceaccount',
        audiences: granted,
      };
    },
  };
}
