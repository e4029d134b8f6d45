// Whom a component's requests reach the apiserver as, for a watch fault on
// that component alone: over HTTPS the user its kubeconfig's client
// certificate names (CN: system:kube-controller-manager,
// system:kube-scheduler, kubelet-sim's), over --insecure-http (no users)
// the User-Agent it sends. Every replica of a component shares its identity.
import { X509Certificate } from 'node:crypto';
import type { RequestMatch } from '../../shared/chaos/protocol.ts';
import { loadKubeconfig } from '../../shared/client/kubeconfig.ts';
import { kubeconfigPaths } from '../../shared/pki/paths.ts';

const KUBECONFIG_OF: Record<string, keyof ReturnType<typeof kubeconfigPaths>> = {
  'controller-manager': 'controllerManager',
  scheduler: 'scheduler',
  'kubelet-sim': 'kubeletSim',
};

/** The user agents the components send (kubelet-sim's is kubelet/VERSION ...). */
const USER_AGENT_OF: Record<string, string> = {
  'controller-manager': 'kube-controller-manager',
  scheduler: 'kube-scheduler',
  'kubelet-sim': 'kubelet/',
};

/** The kinds a watch fault can name. */
export const WATCH_FAULT_KINDS = Object.keys(KUBECONFIG_OF);

/** The match that reaches `kind`'s requests only; throws a readable Error when its identity cannot be read. */
export function identityMatch(dataDir: string, kind: string, tls: boolean): RequestMatch {
  if (!tls) return { userAgent: USER_AGENT_OF[kind] };
  const file = kubeconfigPaths(dataDir)[KUBECONFIG_OF[kind]];
  const cert = loadKubeconfig(file).cert;
  if (!cert) throw new Error(`${file} has no client certificate`);
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(new X509Certificate(cert).subject)?.[1];
  if (!cn) throw new Error(`the client certificate of ${file} names no user (CN)`);
  return { user: cn };
}
