// The Node and Lease objects a simulated kubelet writes, as pure functions of
// the node's index, its profile and the time: labels, addresses, capacity,
// nodeInfo, conditions, podCIDR and the kubelet endpoint the apiserver uses
// to reach this process for logs and exec.
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { Node, NodeCondition } from 'kubernetes-types/core/v1.js';
import { nodeIP, podCIDRFor } from './ipam.ts';

/** What a node looks like; a profile file may set any of it. */
export interface NodeProfile {
  cpu: string;
  memory: string;
  pods: string;
  ephemeralStorage: string;
  /** Extra labels, e.g. topology.kubernetes.io/zone. */
  labels: Record<string, string>;
  annotations: Record<string, string>;
  taints: NonNullable<Node['spec']>['taints'];
  kubeletVersion: string;
  containerRuntimeVersion: string;
  osImage: string;
  kernelVersion: string;
  architecture: string;
  /** Zones spread round-robin over nodes, as topology.kubernetes.io/zone (and region from the first part). */
  zones: string[];
}

/** Kubelet-like defaults: 4 CPU, 16 GiB, 110 pods. */
export const DEFAULT_PROFILE: NodeProfile = {
  cpu: '4',
  memory: '16Gi',
  pods: '110',
  ephemeralStorage: '100Gi',
  labels: {},
  annotations: {},
  taints: undefined,
  kubeletVersion: 'v1.35.0',
  containerRuntimeVersion: 'containerd://2.1.4',
  osImage: 'Debian GNU/Linux 12 (bookworm)',
  kernelVersion: '6.1.0-ksim',
  architecture: 'amd64',
  zones: [],
};

/** Where the apiserver reaches this kubelet-sim process (see the README: it hosts many nodes on one port). */
export interface KubeletEndpoint {
  host: string;
  port: number;
  /** https when the kubelet API serves TLS (the apiserver is HTTPS), else http. */
  scheme?: 'http' | 'https';
}

const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const microStamp = (ms: number) => new Date(ms).toISOString().replace(/Z$/, '000Z');

/** A node's identity: its name and its index (which fixes its addresses); a node of its own kind (the control plane) adds labels and taints. */
export interface NodeIdentity {
  name: string;
  index: number;
  labels?: Record<string, string>;
  taints?: NonNullable<Node['spec']>['taints'];
}

/** A pressure condition kubelet reports (chaos: `ksim chaos pressure`). */
export type PressureKind = 'memory' | 'disk' | 'pid';

/** Each pressure condition's state: on or off, and since when (its lastTransitionTime). */
export type PressureState = Partial<Record<PressureKind, { on: boolean; since: number }>>;

/** kubelet's setters.go: each pressure condition's type, and its reason and message when True and when False. */
export const PRESSURE_CONDITIONS: Record<
  PressureKind,
  { type: string; on: [reason: string, message: string]; off: [reason: string, message: string] }
> = {
  memory: {
    type: 'MemoryPressure',
    on: ['KubeletHasInsufficientMemory', 'kubelet has insufficient memory available'],
    off: ['KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
  },
  disk: {
    type: 'DiskPressure',
    on: ['KubeletHasDiskPressure', 'kubelet has disk pressure'],
    off: ['KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
  },
  pid: {
    type: 'PIDPressure',
    on: ['KubeletHasInsufficientPID', 'kubelet has insufficient PID available'],
    off: ['KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
  },
};

/** The four conditions kubelet reports: healthy, unless `pressure` says a pressure condition is on. */
export function nodeConditions(now: number, since: number, ready = true, pressure: PressureState = {}): NodeCondition[] {
  const c = (type: string, status: string, reason: string, message: string, from = since): NodeCondition => ({
    type,
    status,
    lastHeartbeatTime: stamp(now),
    lastTransitionTime: stamp(from),
    reason,
    message,
  });
  const pressureCondition = (kind: PressureKind) => {
    const def = PRESSURE_CONDITIONS[kind];
    const st = pressure[kind];
    const [reason, message] = st?.on ? def.on : def.off;
    return c(def.type, st?.on ? 'True' : 'False', reason, message, st ? Math.max(st.since, since) : since);
  };
  return [
    pressureCondition('memory'),
    pressureCondition('disk'),
    pressureCondition('pid'),
    ready
      ? c('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status')
      : c('Ready', 'False', 'KubeletNotReady', 'container runtime status check may not have completed yet'),
  ];
}

/** The Node object kubelet registers. */
export function buildNode(id: NodeIdentity, profile: NodeProfile, endpoint: KubeletEndpoint, now: number): Node {
  const zone = profile.zones.length ? profile.zones[id.index % profile.zones.length] : undefined;
  const labels: Record<string, string> = {
    'beta.kubernetes.io/arch': profile.architecture,
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': profile.architecture,
    'kubernetes.io/hostname': id.name,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': 'ksim',
    ...(zone ? { 'topology.kubernetes.io/zone': zone, 'topology.kubernetes.io/region': zone.replace(/-[a-z]$/, '') } : {}),
    ...profile.labels,
    ...id.labels,
  };
  const taints = [...(profile.taints ?? []), ...(id.taints ?? [])];
  const capacity = {
    cpu: profile.cpu,
    memory: profile.memory,
    pods: profile.pods,
    'ephemeral-storage': profile.ephemeralStorage,
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
  };
  const cidr = podCIDRFor(id.index);
  const ip = nodeIP(id.index);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: id.name,
      labels,
      annotations: {
        'node.alpha.kubernetes.io/ttl': '0',
        'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        // Not a kube annotation: how an apiserver proxies pods/log and exec to a process hosting many nodes.
        'ksim.dev/kubelet-endpoint': `${endpoint.scheme ?? 'http'}://${endpoint.host}:${endpoint.port}`,
        ...profile.annotations,
      },
    },
    spec: { podCIDR: cidr, podCIDRs: [cidr], providerID: `ksim://${id.name}`, ...(taints.length ? { taints } : {}) },
    status: {
      capacity,
      allocatable: { ...capacity },
      conditions: nodeConditions(now, now),
      addresses: [
        { type: 'InternalIP', address: ip },
        { type: 'Hostname', address: id.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: endpoint.port } },
      nodeInfo: {
        machineID: hex(id.name, 32),
        systemUUID: uuid(id.name),
        bootID: uuid(`${id.name}/boot/${now}`),
        kernelVersion: profile.kernelVersion,
        osImage: profile.osImage,
        containerRuntimeVersion: profile.containerRuntimeVersion,
        kubeletVersion: profile.kubeletVersion,
        kubeProxyVersion: '',
        operatingSystem: 'linux',
        architecture: profile.architecture,
      },
      images: [],
    },
  };
}

/** The node's Lease in kube-node-lease. */
export function buildLease(nodeName: string, nodeUid: string | undefined, durationSeconds: number, now: number): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: nodeName,
      namespace: 'kube-node-lease',
      ...(nodeUid ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid }] } : {}),
    },
    spec: { holderIdentity: nodeName, leaseDurationSeconds: durationSeconds, renewTime: microStamp(now) },
  };
}

/** MicroTime, as a Lease's renewTime. */
export { microStamp };

function hex(seed: string, n: number): string {
  let h = 2166136261;
  let out = '';
  for (let round = 0; out.length < n; round++) {
    for (const ch of `${seed}#${round}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out.slice(0, n);
}

function uuid(seed: string): string {
  const h = hex(seed, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
