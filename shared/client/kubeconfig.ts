// Reads a kubeconfig (the current context, or a named one) into what the
// client needs to connect: server URL, TLS material and credentials.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import YAML from 'yaml';

/** Connection settings resolved from a kubeconfig. */
export interface ClientConfig {
  server: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  insecureSkipTlsVerify?: boolean;
  namespace?: string;
}

function material(entry: Record<string, unknown>, dataKey: string, fileKey: string, base: string): Buffer | undefined {
  const data = entry[dataKey];
  if (typeof data === 'string') return Buffer.from(data, 'base64');
  const file = entry[fileKey];
  if (typeof file === 'string') return readFileSync(resolve(base, file));
  return undefined;
}

/** The parts of a kubeconfig read here, as kubectl names them (the file is trusted as written: not validated). */
interface KubeconfigDoc {
  'current-context'?: string;
  contexts?: { name?: string; context?: { cluster?: string; user?: string; namespace?: string } }[];
  clusters?: { name?: string; cluster?: { server?: string; 'insecure-skip-tls-verify'?: boolean; [key: string]: unknown } }[];
  users?: { name?: string; user?: { token?: string; tokenFile?: string; [key: string]: unknown } }[];
}

/** Loads `path` and resolves `context` (default: current-context). Throws a readable Error when it cannot. */
export function loadKubeconfig(path: string, context?: string): ClientConfig {
  const doc = (YAML.parse(readFileSync(path, 'utf8')) ?? {}) as KubeconfigDoc;
  const ctxName = context ?? doc['current-context'];
  const ctx = (doc.contexts ?? []).find((c) => c.name === ctxName)?.context;
  if (!ctx) throw new Error(`kubeconfig ${path}: context "${ctxName}" not found`);
  const cluster = (doc.clusters ?? []).find((c) => c.name === ctx.cluster)?.cluster;
  if (!cluster?.server) throw new Error(`kubeconfig ${path}: cluster "${ctx.cluster}" has no server`);
  const user = (doc.users ?? []).find((u) => u.name === ctx.user)?.user ?? {};
  const base = dirname(path);
  return {
    server: String(cluster.server).replace(/\/+$/, ''),
    ca: material(cluster, 'certificate-authority-data', 'certificate-authority', base),
    cert: material(user, 'client-certificate-data', 'client-certificate', base),
    key: material(user, 'client-key-data', 'client-key', base),
    token: user.token ?? (user.tokenFile ? readFileSync(resolve(base, user.tokenFile), 'utf8').trim() : undefined),
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
    namespace: ctx.namespace,
  };
}
