// The control-plane node as kubeadm registers it: one more simulated node,
// with kube's role label and NoSchedule taint, whose kubelet runs the
// control plane's static Pods. ksim's control plane is its own processes
// (the apiserver, controller-manager and scheduler `ksim up` starts), so
// what this kubelet learns of each is where its health port is: the
// `--static-pods` flag, `kube-scheduler=http://127.0.0.1:PORT,...`.
import type { NodeIdentity } from '../node/node-object.ts';

/** kube's role label (and taint key) of a control-plane node. */
export const CONTROL_PLANE_ROLE = 'node-role.kubernetes.io/control-plane';

/** The control-plane components kubeadm runs as static Pods, in its order. */
export const COMPONENTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;

/** One of them. */
export type Component = (typeof COMPONENTS)[number];

/** Where a component's health endpoints are served. */
export interface ComponentEndpoint {
  component: Component;
  scheme: 'HTTP' | 'HTTPS';
  host: string;
  port: number;
}

/** The labels kubeadm's mark-control-plane phase puts on the node (a kubelet may not set the role label itself). */
export const CONTROL_PLANE_LABELS: Record<string, string> = {
  [CONTROL_PLANE_ROLE]: '',
  'node.kubernetes.io/exclude-from-external-load-balancers': '',
};

/** The taint the control-plane node's kubelet registers with (kubeadm's nodeRegistration.taints). */
export const CONTROL_PLANE_TAINT = { key: CONTROL_PLANE_ROLE, effect: 'NoSchedule' };

/** The Node identity of the control-plane node as its kubelet registers it: tainted; kubeadm labels it after. */
export function controlPlaneIdentity(name: string, index: number): NodeIdentity {
  return { name, index, taints: [{ ...CONTROL_PLANE_TAINT }] };
}

/** Parses `--static-pods`: comma-separated COMPONENT=URL; throws on a component or URL it does not know. */
export function parseComponentEndpoints(spec: string): ComponentEndpoint[] {
  const out: ComponentEndpoint[] = [];
  for (const item of spec.split(',').filter((s) => s.trim() !== '')) {
    const eq = item.indexOf('=');
    const component = item.slice(0, eq).trim() as Component;
    if (eq < 0 || !COMPONENTS.includes(component))
      throw new Error(`--static-pods: "${item}" is not COMPONENT=URL with COMPONENT one of ${COMPONENTS.join(', ')}`);
    let url: URL;
    try {
      url = new URL(item.slice(eq + 1).trim());
    } catch {
      throw new Error(`--static-pods: "${item.slice(eq + 1)}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--static-pods: ${url.href} is not http or https`);
    const scheme = url.protocol === 'https:' ? 'HTTPS' : 'HTTP';
    out.push({ component, scheme, host: url.hostname, port: Number(url.port || (scheme === 'HTTPS' ? 443 : 80)) });
  }
  return COMPONENTS.flatMap((c) => out.filter((e) => e.component === c).slice(0, 1));
}
