// The control plane's static Pod manifests, as kubeadm writes them to
// /etc/kubernetes/manifests (cmd/kubeadm/app/phases/controlplane and
// util/staticpod: component and tier labels, hostNetwork,
// system-node-critical, RuntimeDefault seccomp, the component's resource
// requests, and liveness/readiness/startup probes on its health endpoints),
// and the mirror Pod kubelet creates for each in the apiserver: named
// <component>-<node>, bound to the node, owned by its Node, with the
// config.hash/mirror/seen/source annotations and kubelet's NoExecute
// toleration for static Pods. Pure.
import { createHash } from 'node:crypto';
import type { Container, Pod, Probe } from 'kubernetes-types/core/v1.js';
import type { Component, ComponentEndpoint } from './control-plane.ts';

/** What kubelet puts on a mirror Pod: the static Pod's hash (which says whether the mirror is up to date). */
export const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const HASH_ANNOTATION = 'kubernetes.io/config.hash';

/** The node a mirror Pod belongs to. */
export interface MirrorNode {
  name: string;
  uid: string;
  /** The node's InternalIP: the apiserver's advertise address. */
  hostIP: string;
}

/** kubeadm's per-component parts: CPU request, and the health paths of its probes (no readiness probe for the controller-manager). */
const SHAPES: Record<
  Component,
  { cpu: string; liveness: string; readiness?: string; startup: string; flags: (e: ComponentEndpoint) => string[] }
> = {
  'kube-apiserver': {
    cpu: '250m',
    liveness: '/livez',
    readiness: '/readyz',
    startup: '/livez',
    flags: (e) => [
      `--secure-port=${e.port}`,
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      '--service-cluster-ip-range=10.96.0.0/12',
    ],
  },
  'kube-controller-manager': {
    cpu: '200m',
    liveness: '/healthz',
    startup: '/healthz',
    flags: () => ['--leader-elect=true', '--use-service-account-credentials=true', '--cluster-cidr=10.244.0.0/16'],
  },
  'kube-scheduler': {
    cpu: '100m',
    liveness: '/livez',
    readiness: '/readyz',
    startup: '/livez',
    flags: () => ['--leader-elect=true', '--kubeconfig=/etc/kubernetes/scheduler.conf'],
  },
};

/** util/staticpod's createHTTPProbe. */
function httpProbe(
  e: ComponentEndpoint,
  path: string,
  initialDelaySeconds: number,
  failureThreshold: number,
  periodSeconds: number,
): Probe {
  return {
    httpGet: { host: e.host, path, port: e.port, scheme: e.scheme },
    initialDelaySeconds,
    timeoutSeconds: 15,
    failureThreshold,
    periodSeconds,
    successThreshold: 1,
  };
}

/** The container of a component's static Pod (`version` as kubelet's, v1.35.0). */
export function componentContainer(e: ComponentEndpoint, version: string): Container {
  const shape = SHAPES[e.component];
  return {
    name: e.component,
    image: `registry.k8s.io/${e.component}:${version}`,
    imagePullPolicy: 'IfNotPresent',
    command: [e.component, ...shape.flags(e)],
    resources: { requests: { cpu: shape.cpu } },
    // kubeadm's LivenessProbe, ReadinessProbe and StartupProbe (240 s of startup at a 10 s period: 24 failures).
    livenessProbe: httpProbe(e, shape.liveness, 10, 8, 10),
    ...(shape.readiness ? { readinessProbe: httpProbe(e, shape.readiness, 0, 3, 1) } : {}),
    startupProbe: httpProbe(e, shape.startup, 10, 24, 10),
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  };
}

/** kubelet's hash of a static Pod: it changes when the manifest does. */
function manifestHash(pod: Pod): string {
  return createHash('sha256').update(JSON.stringify(pod)).digest('hex').slice(0, 32);
}

/** The mirror Pod of component `e`'s static Pod on `node`; `seen` is when kubelet read the manifest. */
export function mirrorPod(e: ComponentEndpoint, node: MirrorNode, version: string, seen: number): Pod {
  const manifest: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: e.component,
      namespace: 'kube-system',
      labels: { component: e.component, tier: 'control-plane' },
      ...(e.component === 'kube-apiserver'
        ? { annotations: { 'kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint': `${node.hostIP}:${e.port}` } }
        : {}),
    },
    spec: {
      containers: [componentContainer(e, version)],
      hostNetwork: true,
      priorityClassName: 'system-node-critical',
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
    },
  };
  const hash = manifestHash(manifest);
  return {
    ...manifest,
    metadata: {
      ...manifest.metadata,
      name: `${e.component}-${node.name}`,
      annotations: {
        ...manifest.metadata!.annotations,
        [HASH_ANNOTATION]: hash,
        [MIRROR_ANNOTATION]: hash,
        'kubernetes.io/config.seen': new Date(seen).toISOString().replace('Z', '000000Z'),
        'kubernetes.io/config.source': 'file',
      },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid, controller: true }],
    },
    spec: {
      ...manifest.spec!,
      nodeName: node.name,
      // kubelet's config for static Pods: they tolerate every NoExecute taint.
      tolerations: [{ operator: 'Exists', effect: 'NoExecute' }],
    },
  };
}

/** True when `pod` is a mirror Pod of the static Pod `want` (same manifest hash): kubelet recreates one that is not. */
export function mirrorUpToDate(pod: Pod, want: Pod): boolean {
  return pod.metadata?.annotations?.[MIRROR_ANNOTATION] === want.metadata?.annotations?.[MIRROR_ANNOTATION];
}
