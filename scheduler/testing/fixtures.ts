// Builders for Nodes and Pods in scheduler tests: plain objects shaped as
// the apiserver stores them, with just the fields scheduling reads.
import type { Affinity, Node, Pod, PodSpec, Toleration, TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';

/** A test Node: its name is always set. */
export type TestNode = Node & { metadata: ObjectMeta & { name: string } };

/** A test Pod: metadata (name, namespace) and spec are always set. */
export type TestPod = Pod & { metadata: ObjectMeta & { name: string; namespace: string }; spec: PodSpec };

/** Options of a test Node. */
export interface NodeOptions {
  cpu?: string;
  memory?: string;
  pods?: string;
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: string }[];
  unschedulable?: boolean;
  extra?: Record<string, string>;
}

/** A Ready Node with allocatable = capacity. */
export function makeNode(name: string, o: NodeOptions = {}): TestNode {
  const resources = { cpu: o.cpu ?? '4', memory: o.memory ?? '8Gi', pods: o.pods ?? '110', ...o.extra };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', ...o.labels } },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: { capacity: resources, allocatable: resources, conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/** Options of a test Pod. */
export interface PodOptions {
  namespace?: string;
  cpu?: string;
  memory?: string;
  labels?: Record<string, string>;
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
  affinity?: Affinity;
  topologySpreadConstraints?: TopologySpreadConstraint[];
  schedulerName?: string;
  priority?: number;
  priorityClassName?: string;
  hostPort?: number;
  uid?: string;
}

/** A Pod with one container. */
export function makePod(name: string, o: PodOptions = {}): TestPod {
  const requests: Record<string, string> = {};
  if (o.cpu) requests.cpu = o.cpu;
  if (o.memory) requests.memory = o.memory;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      labels: o.labels ?? {},
      uid: o.uid ?? `uid-${name}`,
      creationTimestamp: '2026-01-01T00:00:00Z',
    },
    spec: {
      containers: [
        {
          name: 'c',
          image: 'busybox',
          resources: { requests },
          ...(o.hostPort ? { ports: [{ containerPort: 80, hostPort: o.hostPort }] } : {}),
        },
      ],
      ...(o.nodeName ? { nodeName: o.nodeName } : {}),
      ...(o.nodeSelector ? { nodeSelector: o.nodeSelector } : {}),
      ...(o.tolerations ? { tolerations: o.tolerations } : {}),
      ...(o.affinity ? { affinity: o.affinity } : {}),
      ...(o.topologySpreadConstraints ? { topologySpreadConstraints: o.topologySpreadConstraints } : {}),
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.priorityClassName ? { priorityClassName: o.priorityClassName } : {}),
      schedulerName: o.schedulerName ?? 'default-scheduler',
    },
    status: { phase: 'Pending' },
  };
}
