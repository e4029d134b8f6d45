// The cluster's kubeconfigs in DIR, one per identity as kubeadm writes them
// in /etc/kubernetes: DIR/kubeconfig (the admin, the one users export), and
// one for each component, each with the CA and its own client certificate
// embedded, so a file alone is enough to talk to the cluster.
import fs from 'node:fs/promises';
import { kubeconfigText } from '../client/kubeconfig-file.ts';
import { writeFileAtomic } from './atomic-file.ts';
import { LEAVES, type ClusterPki } from './cluster-pki.ts';
import { kubeconfigPaths } from './paths.ts';

/**
 * Writes (mode 0600, atomically) the four kubeconfigs for serverUrl, each
 * user named after its certificate's CN ("kubernetes-admin", ...), and
 * returns their paths. A file that already says the same is left alone.
 */
export async function writeClusterKubeconfigs(
  dataDir: string,
  serverUrl: string,
  pki: ClusterPki,
): Promise<ReturnType<typeof kubeconfigPaths>> {
  const paths = kubeconfigPaths(dataDir);
  await Promise.all(
    (Object.keys(paths) as (keyof typeof paths)[]).map(async (name) => {
      const pair = pki[name];
      const text = kubeconfigText(serverUrl, {
        caData: pki.ca.certPem,
        certData: pair.certPem,
        keyData: pair.keyPem,
        user: LEAVES[name].commonName,
      });
      const old = await fs.readFile(paths[name], 'utf8').catch(() => undefined);
      if (old !== text) await writeFileAtomic(paths[name], text, 0o600);
      else if (((await fs.stat(paths[name])).mode & 0o777) !== 0o600) await fs.chmod(paths[name], 0o600);
    }),
  );
  return paths;
}
