// The scheduler's view of the cluster: NodeInfos by name (Pods indexed by
// the node they run on, totals kept incrementally) and the Pods it has
// "assumed" onto a node before the binding was confirmed, as kube-scheduler's
// cache does, so the next Pod sees the previous decision without waiting for
// the apiserver.
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import { keyOf } from '../shared/informer/cache.ts';
import { NodeInfo } from './node-info.ts';
import { podInfo, type AffinityTerm, type PodInfo } from './pod-info.ts';

/** A required anti-affinity term of a placed Pod. */
export interface PlacedTerm {
  info: PodInfo;
  term: AffinityTerm;
}

const labelKey = (k: string, v: string) => `${k}\u0000${v}`;

/** The label key=value pair a term's selector requires exactly, if any: the index to look candidates up by. */
function indexableValues(term: AffinityTerm): { key: string; values: readonly string[] } | undefined {
  for (const r of term.selector.requirements)
    if (r.operator === '=' || r.operator === '==' || r.operator === 'in') return { key: r.key, values: r.values };
  return undefined;
}

interface PodState {
  info: PodInfo;
  node: string;
  assumed: boolean;
}

/** See the file comment. */
export class ClusterCache {
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly podStates = new Map<string, PodState>();
  private ordered: NodeInfo[] | undefined;
  /** Namespace labels, for namespaceSelector terms. */
  readonly namespaceLabels = new Map<string, Record<string, string>>();
  /** Number of Pods in the cluster carrying any inter-pod affinity term. */
  podsWithAffinity = 0;
  podsWithRequiredAntiAffinity = 0;
  /** Placed Pods by each of their labels. */
  private readonly podsByLabel = new Map<string, Set<PodInfo>>();
  /** Required anti-affinity terms of placed Pods, by the label pair their selector requires. */
  private readonly antiTermsByLabel = new Map<string, Set<PlacedTerm>>();
  private readonly antiTermsOther = new Set<PlacedTerm>();
  private readonly placedTerms = new Map<string, PlacedTerm[]>();

  /** Nodes that exist (have a Node object), in a stable order. */
  nodeList(): NodeInfo[] {
    if (!this.ordered) this.ordered = [...this.nodes.values()].filter((n) => n.node).sort((a, b) => (a.name < b.name ? -1 : 1));
    return this.ordered;
  }

  getNode(name: string): NodeInfo | undefined {
    const n = this.nodes.get(name);
    return n?.node ? n : undefined;
  }

  private nodeInfo(name: string): NodeInfo {
    let n = this.nodes.get(name);
    if (!n) {
      n = new NodeInfo(name);
      this.nodes.set(name, n);
    }
    return n;
  }

  addOrUpdateNode(node: Node): void {
    const n = this.nodeInfo(node.metadata!.name!);
    const isNew = !n.node;
    n.setNode(node);
    if (isNew) this.ordered = undefined;
  }

  removeNode(node: Node): void {
    const n = this.nodes.get(node.metadata!.name!);
    if (!n) return;
    n.node = undefined;
    if (n.pods.size === 0) this.nodes.delete(n.name);
    this.ordered = undefined;
  }

  /** Whether the Pod with `key` is assumed (decided but not yet seen bound). */
  isAssumed(key: string): boolean {
    return this.podStates.get(key)?.assumed ?? false;
  }

  /** Where the cache holds `key`, if anywhere. */
  nodeOf(key: string): string | undefined {
    return this.podStates.get(key)?.node;
  }

  /** The NodeInfo a placed Pod is on. */
  nodeInfoOf(key: string): NodeInfo | undefined {
    const n = this.podStates.get(key)?.node;
    return n === undefined ? undefined : this.getNode(n);
  }

  /** Records a scheduling decision before the binding is confirmed. */
  assume(pod: Pod, nodeName: string): void {
    const assumedPod: Pod = { ...pod, spec: { ...pod.spec!, nodeName } };
    this.place(podInfo(assumedPod), nodeName, true);
  }

  /** Undoes assume() after a failed binding. */
  forget(key: string): void {
    const s = this.podStates.get(key);
    if (s?.assumed) this.unplace(key);
  }

  /** Adds or updates a Pod that the informer reports bound to a node. */
  addOrUpdatePod(pod: Pod): void {
    if (isTerminal(pod)) return this.removePod(pod);
    this.place(podInfo(pod), pod.spec!.nodeName!, false);
  }

  removePod(pod: Pod): void {
    this.unplace(keyOf(pod));
  }

  /** Every Pod the cache holds (bound or assumed). */
  *pods(): Iterable<PodInfo> {
    for (const s of this.podStates.values()) yield s.info;
  }

  /** Placed Pods that may match `term` (a superset: callers still match). */
  candidatesFor(term: AffinityTerm): Iterable<PodInfo> {
    if (term.selector.matchesNothing) return [];
    const idx = indexableValues(term);
    if (!idx) return this.pods();
    if (idx.values.length === 1) return this.podsByLabel.get(labelKey(idx.key, idx.values[0])) ?? [];
    const out = new Set<PodInfo>();
    for (const v of idx.values) for (const p of this.podsByLabel.get(labelKey(idx.key, v)) ?? []) out.add(p);
    return out;
  }

  /** Required anti-affinity terms of placed Pods that may select a Pod with `labels` (a superset). */
  *antiTermsFor(labels: Record<string, string>): Iterable<PlacedTerm> {
    yield* this.antiTermsOther;
    for (const [k, v] of Object.entries(labels)) {
      const set = this.antiTermsByLabel.get(labelKey(k, v));
      if (set) yield* set;
    }
  }

  private place(info: PodInfo, node: string, assumed: boolean): void {
    if (this.podStates.has(info.key)) this.unplace(info.key);
    this.podStates.set(info.key, { info, node, assumed });
    this.nodeInfo(node).addPod(info);
    this.count(info, 1);
    for (const [k, v] of Object.entries(info.pod.metadata?.labels ?? {})) {
      const lk = labelKey(k, v);
      let set = this.podsByLabel.get(lk);
      if (!set) this.podsByLabel.set(lk, (set = new Set()));
      set.add(info);
    }
    if (info.requiredAntiAffinity.length) {
      const placed: PlacedTerm[] = [];
      for (const term of info.requiredAntiAffinity) {
        const pt = { info, term };
        placed.push(pt);
        const idx = indexableValues(term);
        if (!idx) this.antiTermsOther.add(pt);
        else
          for (const v of idx.values) {
            const lk = labelKey(idx.key, v);
            let set = this.antiTermsByLabel.get(lk);
            if (!set) this.antiTermsByLabel.set(lk, (set = new Set()));
            set.add(pt);
          }
      }
      this.placedTerms.set(info.key, placed);
    }
  }

  private unplace(key: string): void {
    const s = this.podStates.get(key);
    if (!s) return;
    this.podStates.delete(key);
    const n = this.nodes.get(s.node);
    n?.removePod(key);
    if (n && !n.node && n.pods.size === 0) this.nodes.delete(n.name);
    this.count(s.info, -1);
    for (const [k, v] of Object.entries(s.info.pod.metadata?.labels ?? {})) {
      const lk = labelKey(k, v);
      const set = this.podsByLabel.get(lk);
      set?.delete(s.info);
      if (set?.size === 0) this.podsByLabel.delete(lk);
    }
    for (const pt of this.placedTerms.get(key) ?? []) {
      this.antiTermsOther.delete(pt);
      const idx = indexableValues(pt.term);
      for (const v of idx?.values ?? []) {
        const lk = labelKey(idx!.key, v);
        const set = this.antiTermsByLabel.get(lk);
        set?.delete(pt);
        if (set?.size === 0) this.antiTermsByLabel.delete(lk);
      }
    }
    this.placedTerms.delete(key);
  }

  private count(info: PodInfo, sign: 1 | -1): void {
    if (
      info.requiredAffinity.length + info.requiredAntiAffinity.length + info.preferredAffinity.length + info.preferredAntiAffinity.length >
      0
    )
      this.podsWithAffinity += sign;
    if (info.requiredAntiAffinity.length > 0) this.podsWithRequiredAntiAffinity += sign;
  }
}

/** A Pod that has finished no longer holds resources. */
export function isTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}
