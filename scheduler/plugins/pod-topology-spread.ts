// PodTopologySpread: DoNotSchedule constraints keep the skew of matching
// Pods across topology domains within maxSkew (filter); ScheduleAnyway
// constraints, or the system default constraints (hostname maxSkew 3, zone
// maxSkew 5, for Pods selected by a Service, ReplicaSet or StatefulSet)
// prefer the emptier domains (score, weight 2 by default).
import type { Pod, TopologySpreadConstraint } from 'kubernetes-types/core/v1.js';
import type { Handle, Plugin } from '../framework/types.ts';
import { MAX_NODE_SCORE, SKIP, status } from '../framework/types.ts';
import type { NodeInfo } from '../node-info.ts';
import { matchesLabels, selectorFromLabelSelector, type LabelSelector } from '../../shared/labels/index.ts';
import { podMatchesNodeSelectorAndAffinity } from './node-affinity.ts';
import { firstUntolerated } from './taint-toleration.ts';

export const ERR_REASON_CONSTRAINTS = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)";

const HOSTNAME = 'kubernetes.io/hostname';

/** A constraint ready to evaluate. */
interface Constraint {
  maxSkew: number;
  topologyKey: string;
  selector: LabelSelector;
  minDomains: number;
  honorAffinity: boolean;
  honorTaints: boolean;
}

/** pluginConfig args. */
export interface SpreadArgs {
  defaultingType?: 'System' | 'List';
  defaultConstraints?: DefaultConstraint[];
}

/** A default constraint: a TopologySpreadConstraint without a selector (the Pod's owners give it). */
export type DefaultConstraint = Omit<TopologySpreadConstraint, 'labelSelector'> & Partial<Pick<TopologySpreadConstraint, 'labelSelector'>>;

const SYSTEM_DEFAULTS: DefaultConstraint[] = [
  { maxSkew: 3, topologyKey: HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway' },
  { maxSkew: 5, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' },
];

function toConstraint(pod: Pod, c: DefaultConstraint, selector?: LabelSelector): Constraint {
  let sel = selector;
  if (!sel) {
    try {
      sel = selectorFromLabelSelector(c.labelSelector);
      const labels = pod.metadata?.labels ?? {};
      const keys = (c.matchLabelKeys ?? []).filter((k) => k in labels);
      if (keys.length && !sel.matchesNothing) {
        const more = selectorFromLabelSelector({
          matchExpressions: keys.map((k) => ({ key: k, operator: 'In', values: [labels[k]] })),
        });
        sel = { requirements: [...sel.requirements, ...more.requirements], matchesNothing: false };
      }
    } catch {
      sel = selectorFromLabelSelector(null);
    }
  }
  return {
    maxSkew: c.maxSkew ?? 1,
    topologyKey: c.topologyKey,
    selector: sel,
    minDomains: c.minDomains ?? 1,
    honorAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
    honorTaints: c.nodeTaintsPolicy === 'Honor',
  };
}

function countMatching(node: NodeInfo, c: Constraint, namespace: string): number {
  let n = 0;
  for (const p of node.pods.values()) {
    const m = p.pod.metadata!;
    if (m.namespace === namespace && !m.deletionTimestamp && matchesLabels(c.selector, m.labels ?? {})) n++;
  }
  return n;
}

function hasAllKeys(node: NodeInfo, cs: Constraint[]): boolean {
  const labels = node.labels;
  return cs.every((c) => c.topologyKey in labels);
}

function included(c: Constraint, pod: Pod, node: NodeInfo): boolean {
  if (c.honorAffinity && !podMatchesNodeSelectorAndAffinity(pod, node.node)) return false;
  if (c.honorTaints && firstUntolerated(node.node?.spec?.taints ?? [], pod.spec?.tolerations ?? [], ['NoSchedule', 'NoExecute']))
    return false;
  return true;
}

const pairKey = (k: string, v: string) => `${k}\u0000${v}`;

interface FilterState {
  constraints: Constraint[];
  counts: Map<string, number>;
  /** Per constraint: the smallest count over its domains, and the number of domains. */
  min: number[];
  domains: number[];
}

interface ScoreState {
  constraints: Constraint[];
  counts: Map<string, number>;
  weights: number[];
  ignored: Set<string>;
}

/** The PodTopologySpread filter and score. */
export function podTopologySpread(handle: Handle, args: SpreadArgs = {}): Plugin {
  const defaults = args.defaultingType === 'List' ? (args.defaultConstraints ?? []) : SYSTEM_DEFAULTS;
  const systemDefaulted = args.defaultingType !== 'List';

  const constraintsFor = (pod: Pod, when: string): Constraint[] => {
    const own = pod.spec?.topologySpreadConstraints ?? [];
    if (own.length) return own.filter((c) => (c.whenUnsatisfiable ?? 'DoNotSchedule') === when).map((c) => toConstraint(pod, c));
    const wanted = defaults.filter((c) => (c.whenUnsatisfiable ?? 'DoNotSchedule') === when);
    if (!wanted.length) return [];
    const selectors = handle.defaultSelectorsFor(pod);
    if (!selectors.length) return [];
    const merged: LabelSelector = { requirements: selectors.flatMap((s) => s.requirements), matchesNothing: false };
    if (merged.requirements.length === 0) return [];
    return wanted.map((c) => toConstraint(pod, c, merged));
  };

  return {
    name: 'PodTopologySpread',
    events: ['NodeAdd', 'NodeLabel', 'NodeTaint', 'NodeDelete', 'AssignedPodAdd', 'AssignedPodUpdate', 'AssignedPodDelete'],
    preFilter(state, pod) {
      const constraints = constraintsFor(pod, 'DoNotSchedule');
      if (!constraints.length) return SKIP;
      const ns = pod.metadata?.namespace ?? 'default';
      const counts = new Map<string, number>();
      for (const node of handle.cache.nodeList()) {
        if (!hasAllKeys(node, constraints)) continue;
        for (const c of constraints) {
          if (!included(c, pod, node)) continue;
          const k = pairKey(c.topologyKey, node.labels[c.topologyKey]);
          counts.set(k, (counts.get(k) ?? 0) + countMatching(node, c, ns));
        }
      }
      const min = constraints.map(() => Infinity);
      const domains = constraints.map(() => 0);
      for (const [k, n] of counts) {
        const key = k.slice(0, k.indexOf('\u0000'));
        constraints.forEach((c, i) => {
          if (c.topologyKey !== key) return;
          domains[i]++;
          if (n < min[i]) min[i] = n;
        });
      }
      state.write('PodTopologySpread/filter', { constraints, counts, min, domains } satisfies FilterState);
      return null;
    },
    filter(state, pod, node) {
      const fs = state.read<FilterState>('PodTopologySpread/filter')!;
      const labels = node.labels;
      const podLabels = pod.metadata?.labels ?? {};
      for (let i = 0; i < fs.constraints.length; i++) {
        const c = fs.constraints[i];
        const v = labels[c.topologyKey];
        if (v === undefined) return status('UnschedulableAndUnresolvable', ERR_REASON_NODE_LABEL);
        let min = fs.min[i] === Infinity ? 0 : fs.min[i];
        if (fs.domains[i] < c.minDomains) min = 0;
        const self = matchesLabels(c.selector, podLabels) ? 1 : 0;
        const skew = (fs.counts.get(pairKey(c.topologyKey, v)) ?? 0) + self - min;
        if (skew > c.maxSkew) return status('Unschedulable', ERR_REASON_CONSTRAINTS);
      }
      return null;
    },
    preScore(state, pod, nodes) {
      const constraints = constraintsFor(pod, 'ScheduleAnyway');
      if (!constraints.length) return SKIP;
      const requireAll = (pod.spec?.topologySpreadConstraints ?? []).length > 0 || !systemDefaulted;
      const ignored = new Set<string>();
      const counts = new Map<string, number>();
      const sizes = constraints.map(() => 0);
      for (const node of nodes) {
        if (requireAll && !hasAllKeys(node, constraints)) {
          ignored.add(node.name);
          continue;
        }
        constraints.forEach((c, i) => {
          if (c.topologyKey === HOSTNAME) return;
          const v = node.labels[c.topologyKey];
          if (v === undefined) return;
          const k = pairKey(c.topologyKey, v);
          if (!counts.has(k)) {
            counts.set(k, 0);
            sizes[i]++;
          }
        });
      }
      const weights = constraints.map((c, i) => Math.log((c.topologyKey === HOSTNAME ? nodes.length - ignored.size : sizes[i]) + 2));
      const ns = pod.metadata?.namespace ?? 'default';
      if (constraints.some((c) => c.topologyKey !== HOSTNAME)) {
        for (const node of handle.cache.nodeList()) {
          if (requireAll && !hasAllKeys(node, constraints)) continue;
          for (const c of constraints) {
            if (c.topologyKey === HOSTNAME || !included(c, pod, node)) continue;
            const v = node.labels[c.topologyKey];
            if (v === undefined) continue;
            const k = pairKey(c.topologyKey, v);
            if (!counts.has(k)) continue;
            counts.set(k, counts.get(k)! + countMatching(node, c, ns));
          }
        }
      }
      state.write('PodTopologySpread/score', { constraints, counts, weights, ignored } satisfies ScoreState);
      return null;
    },
    score(state, pod, node) {
      const ss = state.read<ScoreState>('PodTopologySpread/score')!;
      if (ss.ignored.has(node.name)) return 0;
      const ns = pod.metadata?.namespace ?? 'default';
      let score = 0;
      ss.constraints.forEach((c, i) => {
        const v = node.labels[c.topologyKey];
        if (v === undefined) return;
        const cnt = c.topologyKey === HOSTNAME ? countMatching(node, c, ns) : (ss.counts.get(pairKey(c.topologyKey, v)) ?? 0);
        score += cnt * ss.weights[i] + (c.maxSkew - 1);
      });
      return Math.round(score);
    },
    normalizeScore(state, _pod, scores, nodes) {
      const ss = state.read<ScoreState>('PodTopologySpread/score')!;
      let min = Infinity;
      let max = 0;
      for (let i = 0; i < scores.length; i++) {
        if (ss.ignored.has(nodes[i].name)) continue;
        if (scores[i] < min) min = scores[i];
        if (scores[i] > max) max = scores[i];
      }
      for (let i = 0; i < scores.length; i++) {
        if (ss.ignored.has(nodes[i].name)) scores[i] = 0;
        else if (max === 0) scores[i] = MAX_NODE_SCORE;
        else scores[i] = Math.trunc((MAX_NODE_SCORE * (max + min - scores[i])) / max);
      }
    },
  };
}
