// Writes a kubeconfig: cluster "ksim", a user ("admin" unless named),
// context "ksim". Used for the cluster's kubeconfigs (shared/pki/kubeconfigs.ts)
// and by the tests; https with embedded CA and client certificate, or a token.
import { stringify } from 'yaml';
import { writeFileAtomic } from '../pki/atomic-file.ts';

/** Credentials and TLS settings; each *Data value is PEM text (or bytes). */
export interface KubeconfigAuth {
  /** CA bundle that signed the server certificate. */
  caData?: string | Buffer;
  /** Client certificate and key (CN = user, O = groups). */
  certData?: string | Buffer;
  keyData?: string | Buffer;
  /** Bearer token (ServiceAccount or static token). */
  token?: string;
  /** Skip server certificate verification (only when no CA is given). */
  insecureSkipTlsVerify?: boolean;
  /** Default namespace of the context. */
  namespace?: string;
  /** The user entry's name (default "admin"); kubeadm names it after the identity, e.g. "kubernetes-admin". */
  user?: string;
}

const b64 = (v: string | Buffer): string => Buffer.from(v).toString('base64');

/** Builds the kubeconfig object (exported for tests that want to tweak it). */
export function kubeconfigObject(serverUrl: string, auth: KubeconfigAuth = {}): Record<string, unknown> {
  const cluster: Record<string, unknown> = { server: serverUrl };
  if (auth.caData !== undefined) cluster['certificate-authority-data'] = b64(auth.caData);
  else if (auth.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;

  const user: Record<string, unknown> = {};
  if (auth.certData !== undefined) user['client-certificate-data'] = b64(auth.certData);
  if (auth.keyData !== undefined) user['client-key-data'] = b64(auth.keyData);
  if (auth.token !== undefined) user.token = auth.token;

  const userName = auth.user ?? 'admin';
  const context: Record<string, unknown> = { cluster: 'ksim', user: userName };
  if (auth.namespace !== undefined) context.namespace = auth.namespace;

  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'ksim', cluster }],
    users: [{ name: userName, user }],
    contexts: [{ name: 'ksim', context }],
    'current-context': 'ksim',
    preferences: {},
  };
}

/** The kubeconfig's YAML text. */
export function kubeconfigText(serverUrl: string, auth: KubeconfigAuth = {}): string {
  return stringify(kubeconfigObject(serverUrl, auth));
}

/**
 * Writes a minimal kubeconfig for serverUrl to path (mode 0600, atomically,
 * creating parent directories) and returns path.
 */
export async function writeKubeconfig(path: string, serverUrl: string, auth: KubeconfigAuth = {}): Promise<string> {
  await writeFileAtomic(path, kubeconfigText(serverUrl, auth), 0o600);
  return path;
}
