// The tokens controller's decisions (kube's serviceaccount TokensController,
// as it runs since v1.24: it generates no Secrets of its own, it fills the
// ones users create). A Secret of type kubernetes.io/service-account-token
// names its ServiceAccount in the kubernetes.io/service-account.name
// annotation (and, once filled, its uid): the controller writes data.token (a
// legacy, non-expiring token), data["ca.crt"] and data.namespace into it, and
// deletes it when its ServiceAccount does not exist or was replaced by one
// with another uid.
import type { Secret, ServiceAccount } from 'kubernetes-types/core/v1.js';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
export const SERVICE_ACCOUNT_UID_ANNOTATION = 'kubernetes.io/service-account.uid';

/** The base64 of `text`, as a Secret's data holds it. */
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The ServiceAccount a token Secret is for: name and (once filled) uid. */
export function referencedAccount(secret: Secret): { name: string; uid: string } | undefined {
  if (secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return undefined;
  const name = secret.metadata?.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION];
  if (!name) return undefined;
  return { name, uid: secret.metadata?.annotations?.[SERVICE_ACCOUNT_UID_ANNOTATION] ?? '' };
}

/** kube's IsServiceAccountToken: a token Secret naming this account, with no uid or this one's. */
export function isTokenOf(secret: Secret, sa: { name: string; uid: string }): boolean {
  const ref = referencedAccount(secret);
  return !!ref && ref.name === sa.name && (ref.uid === '' || ref.uid === sa.uid);
}

/** What the token Secret `secret` needs, given its ServiceAccount as far as anyone knows (undefined: there is none). */
export type TokenSecretAction =
  | { op: 'none' }
  | { op: 'delete' }
  /** Write `secret` back with the missing parts; `needsToken`: sign a token into data.token first. */
  | { op: 'fill'; secret: Secret; needsToken: boolean };

/** kube's secretUpdateNeeded and generateTokenIfNeeded, for a Secret whose account is `sa`. */
export function tokenSecretAction(secret: Secret, sa: ServiceAccount | undefined, rootCaPem: string | undefined): TokenSecretAction {
  const ref = referencedAccount(secret);
  if (!ref || secret.metadata?.deletionTimestamp) return { op: 'none' };
  if (!sa || (ref.uid !== '' && ref.uid !== sa.metadata?.uid)) return { op: 'delete' };
  const data = secret.data ?? {};
  const needsCa = !!rootCaPem && data['ca.crt'] !== b64(rootCaPem);
  const needsNamespace = !data.namespace;
  const needsToken = !data.token;
  if (!needsCa && !needsNamespace && !needsToken) return { op: 'none' };
  const next: Secret = structuredClone(secret);
  next.data = { ...next.data };
  if (needsCa) next.data['ca.crt'] = b64(rootCaPem);
  if (needsNamespace) next.data.namespace = b64(secret.metadata?.namespace ?? '');
  next.metadata = {
    ...next.metadata,
    annotations: {
      ...next.metadata?.annotations,
      [SERVICE_ACCOUNT_NAME_ANNOTATION]: sa.metadata!.name!,
      [SERVICE_ACCOUNT_UID_ANNOTATION]: sa.metadata!.uid!,
    },
  };
  return { op: 'fill', secret: next, needsToken };
}
