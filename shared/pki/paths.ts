// Where the cluster PKI and the kubeconfigs live in a data dir. Kept apart
// from the code that makes them, so that a process that only needs the paths
// (ksim up, ksim status, the components) does not load the certificate
// library.
import path from 'node:path';

/** DIR/pki/NAME.crt and .key, whether or not they exist yet. */
export function pkiPaths(dataDir: string, name: string): { certPath: string; keyPath: string } {
  const dir = path.join(dataDir, 'pki');
  return { certPath: path.join(dir, `${name}.crt`), keyPath: path.join(dir, `${name}.key`) };
}

/** The kubeconfig paths of a data dir, whether or not they exist yet. */
export function kubeconfigPaths(dataDir: string): {
  admin: string;
  controllerManager: string;
  scheduler: string;
  kubeletSim: string;
  ui: string;
} {
  return {
    admin: path.join(dataDir, 'kubeconfig'),
    controllerManager: path.join(dataDir, 'controller-manager.kubeconfig'),
    scheduler: path.join(dataDir, 'scheduler.kubeconfig'),
    kubeletSim: path.join(dataDir, 'kubelet-sim.kubeconfig'),
    ui: path.join(dataDir, 'ui.kubeconfig'),
  };
}
