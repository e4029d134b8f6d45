// What `ksim up` runs: the apiserver's flags and each other component's
// (controller-manager and scheduler replicas, kubelet-sim), built from the
// cluster's settings. A component started again (chaos `start`, a restart)
// gets exactly the flags it first had, so its port and endpoint stay.
import path from 'node:path';
import { kubeconfigPaths, pkiPaths } from '../../shared/pki/paths.ts';

/** What a component's flags are made from. */
export interface ClusterSettings {
  dataDir: string;
  /** Over HTTPS each component has its own identity; over plain HTTP all share DIR/kubeconfig. */
  tls: boolean;
  speed: number;
  nodes: number;
  /** --image-catalog, absolute ('' for none). */
  imageCatalog: string;
  /** The control-plane node's name ('' for none). */
  controlPlaneNode: string;
  /** Where each component serves its health endpoints, as the control-plane node's static Pods probe them. */
  healthEndpoints: Record<string, string>;
}

/** kubeadm's name of each component's static Pod (and of its mirror Pod, before "-NODE"). */
export const STATIC_POD_OF: Record<string, string> = {
  apiserver: 'kube-apiserver',
  'controller-manager': 'kube-controller-manager',
  scheduler: 'kube-scheduler',
};

/** The kind of a component name: controller-manager-1 is a controller-manager. */
export function kindOf(name: string): string {
  return name.replace(/-\d+$/, '');
}

/** kubelet-sim's flags for the control-plane node and its static Pods. */
function controlPlaneArgs(c: ClusterSettings): string[] {
  if (!c.controlPlaneNode) return [];
  const pods = Object.entries(c.healthEndpoints).map(([name, url]) => `${STATIC_POD_OF[name]}=${url}`);
  return ['--control-plane-node', c.controlPlaneNode, '--static-pods', pods.join(',')];
}

const kubeconfigOf = (c: ClusterSettings, name: keyof ReturnType<typeof kubeconfigPaths>) =>
  c.tls ? kubeconfigPaths(c.dataDir)[name] : kubeconfigPaths(c.dataDir).admin;

/** The flags of each kind of component besides the apiserver (without --port). */
export const COMPONENT_ARGS: Record<string, (c: ClusterSettings) => string[]> = {
  'controller-manager': (c) => [
    '--kubeconfig',
    kubeconfigOf(c, 'controllerManager'),
    '--speed',
    String(c.speed),
    // The CSR signer issues from the cluster CA, as kubeadm configures kube-controller-manager.
    ...(c.tls
      ? [
          '--cluster-signing-cert-file',
          pkiPaths(c.dataDir, 'ca').certPath,
          '--cluster-signing-key-file',
          pkiPaths(c.dataDir, 'ca').keyPath,
          // The tokens controller signs with the apiserver's ServiceAccount key, as kubeadm configures it.
          '--service-account-private-key-file',
          path.join(c.dataDir, 'pki', 'sa.key'),
          '--root-ca-file',
          pkiPaths(c.dataDir, 'ca').certPath,
        ]
      : []),
  ],
  scheduler: (c) => ['--kubeconfig', kubeconfigOf(c, 'scheduler'), '--speed', String(c.speed)],
  // The web UI: its page, API and health endpoints are all on its --port; the data dir names the step-through gates.
  ui: (c) => ['--kubeconfig', kubeconfigOf(c, 'ui'), '--data-dir', c.dataDir],
  'kubelet-sim': (c) => [
    '--kubeconfig',
    kubeconfigOf(c, 'kubeletSim'),
    '--nodes',
    String(c.nodes),
    '--speed',
    String(c.speed),
    ...(c.imageCatalog ? ['--image-catalog', c.imageCatalog] : []),
    ...controlPlaneArgs(c),
    // The kubelet API's serving certificate, issued by the cluster CA with the others at first start.
    ...(c.tls
      ? [
          '--tls-cert-file',
          pkiPaths(c.dataDir, 'kubelet-sim-serving').certPath,
          '--tls-private-key-file',
          pkiPaths(c.dataDir, 'kubelet-sim-serving').keyPath,
        ]
      : []),
  ],
};

/**
 * The components to start after the apiserver, in order: `controllerManagers`
 * controller-managers (controller-manager, controller-manager-1, ...), as many
 * schedulers, then kubelet-sim when there are nodes, then the web UI when asked for.
 */
export function componentNames(opts: { controllerManagers: number; schedulers: number; nodes: number; ui?: boolean }): string[] {
  const replicas = (kind: string, n: number) => Array.from({ length: Math.max(0, n) }, (_, i) => (i === 0 ? kind : `${kind}-${i}`));
  return [
    ...replicas('controller-manager', opts.controllerManagers),
    ...replicas('scheduler', opts.schedulers),
    ...(opts.nodes > 0 ? ['kubelet-sim'] : []),
    ...(opts.ui ? ['ui'] : []),
  ];
}

/**
 * V8 flags per component. kubelet-sim allocates a short-lived object graph
 * for every Pod status it writes; a 32 MiB young generation (Node's default
 * is 16) let 10,000 Pods run in 17 s instead of 25 s in bench/kubelet-sim.ts.
 */
const NODE_FLAGS: Record<string, string[]> = { 'kubelet-sim': ['--max-semi-space-size=32'] };

/** Node's own flags for running `component` (benchmarks start components the same way). */
export function componentNodeFlags(component: string): string[] {
  return NODE_FLAGS[kindOf(component)] ?? [];
}
