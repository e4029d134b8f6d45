// Writes a kubeconfig: cluster "ksim", user "admin", context "ksim". Used by
// `ksim up` for DIR/kubeconfig and by the tests. Plain http today; the TLS and
// token options are there for when the apiserver serves https.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

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

  const context: Record<string, unknown> = { cluster: 'ksim', user: 'admin' };
  if (auth.namespace !== undefined) context.namespace = auth.namespace;

  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'ksim', cluster }],
    users: [{ name: 'admin', user }],
    contexts: [{ name: 'ksim', context }],
    'current-context': 'ksim',
    preferences: {},
  };
}

/**
 * Writes a minimal admin kubeconfig for serverUrl to path (mode 0600,
 * creating parent directories) and returns path.
 */
export async function writeKubeconfig(path: string, serverUrl: string, auth: KubeconfigAuth = {}): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, stringify(kubeconfigObject(serverUrl, auth)), { mode: 0o600 });
  return path;
}
