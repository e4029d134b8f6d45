// One Node as the scheduler sees it: the Node object plus the Pods on it
// (bound or assumed), with resource totals kept up to date incrementally so
// that a filter or a score is O(1) per node, never a walk over its Pods.
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { toResources, type Resources } from './resources.ts';
import { hasAffinity, type PodInfo } from './pod-info.ts';

/** See the file comment. */
export class NodeInfo {
  node: Node | undefined;
  readonly pods = new Map<string, PodInfo>();
  /** Sum of the Pods' effective requests. */
  readonly requested: Resources = new Map();
  nonZeroCpu = 0;
  nonZeroMem = 0;
  allocatable: Resources = new Map();
  /** Pods on the node that carry any inter-pod affinity term. */
  readonly podsWithAffinity = new Set<PodInfo>();
  /** Pods on the node with required anti-affinity terms. */
  readonly podsWithRequiredAntiAffinity = new Set<PodInfo>();
  /** hostPort keys in use: "protocol/hostIP/port". */
  readonly usedPorts = new Map<string, number>();
  /** Bumped on every change. */
  generation = 0;

  constructor(readonly name: string) {}

  /** Sets (or replaces) the Node object. */
  setNode(node: Node): void {
    this.node = node;
    this.allocatable = toResources(node.status?.allocatable ?? node.status?.capacity);
    this.generation++;
  }

  get labels(): Record<string, string> {
    return this.node?.metadata?.labels ?? {};
  }

  addPod(p: PodInfo): void {
    if (this.pods.has(p.key)) this.removePod(p.key);
    this.pods.set(p.key, p);
    this.account(p, 1);
  }

  removePod(key: string): PodInfo | undefined {
    const p = this.pods.get(key);
    if (!p) return undefined;
    this.pods.delete(key);
    this.account(p, -1);
    return p;
  }

  private account(p: PodInfo, sign: 1 | -1): void {
    for (const [k, v] of p.request.res) this.requested.set(k, (this.requested.get(k) ?? 0) + sign * v);
    this.nonZeroCpu += sign * p.request.nonZeroCpu;
    this.nonZeroMem += sign * p.request.nonZeroMem;
    if (hasAffinity(p)) {
      if (sign > 0) this.podsWithAffinity.add(p);
      else this.podsWithAffinity.delete(p);
    }
    if (p.requiredAntiAffinity.length) {
      if (sign > 0) this.podsWithRequiredAntiAffinity.add(p);
      else this.podsWithRequiredAntiAffinity.delete(p);
    }
    for (const port of hostPorts(p.pod)) {
      const n = (this.usedPorts.get(port) ?? 0) + sign;
      if (n <= 0) this.usedPorts.delete(port);
      else this.usedPorts.set(port, n);
    }
    this.generation++;
  }
}

/** The hostPort keys a Pod needs: "protocol/hostIP/port". */
export function hostPorts(pod: Pod): string[] {
  const out: string[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) if (p.hostPort) out.push(`${p.protocol ?? 'TCP'}/${p.hostIP || '0.0.0.0'}/${p.hostPort}`);
  }
  return out;
}
