// One scheduling profile: its plugins (filter and score, with weights) and
// the algorithm of kube-scheduler's schedulePod: PreFilter, then Filter over
// a rotating sample of nodes until enough feasible ones are found
// (percentageOfNodesToScore, adaptive by default), then PreScore, Score,
// NormalizeScore, weights, and the highest total (ties broken at random).
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { ClusterCache } from '../cache.ts';
import type { NodeInfo } from '../node-info.ts';
import type { PodInfo } from '../pod-info.ts';
import { podInfo as podInfoOf } from '../pod-info.ts';
import { newDiagnosis, type Diagnosis } from './diagnosis.ts';
import { CycleState, type Plugin, type Status } from './types.ts';

/** A score plugin and its weight. */
export interface WeightedPlugin {
  plugin: Plugin;
  weight: number;
}

/** What a profile is made of. */
export interface ProfileSpec {
  schedulerName: string;
  filters: Plugin[];
  scorers: WeightedPlugin[];
  /** 0 = adaptive (kube's default). */
  percentageOfNodesToScore: number;
  /** DefaultPreemption enabled. */
  preemption: boolean;
}

/** One node's scores, for the explanation. */
export interface NodeScore {
  node: string;
  total: number;
  plugins: Record<string, number>;
}

/** The outcome of one attempt. */
export interface ScheduleResult {
  node?: string;
  numAllNodes: number;
  evaluated: number;
  feasible: number;
  diagnosis: Diagnosis;
  /** The best-scored nodes, best first (at most 3). */
  top: NodeScore[];
  state: CycleState;
}

/** Pods nominated onto nodes by preemption, which lower-priority Pods must leave room for. */
export interface Nominator {
  nominatedOn(node: string): PodInfo[];
}

const MIN_FEASIBLE_NODES = 100;
const MIN_FEASIBLE_PERCENT = 5;

/** kube's numFeasibleNodesToFind. */
export function numFeasibleNodesToFind(numAllNodes: number, percentage: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES) return numAllNodes;
  let pct = percentage;
  if (!pct) pct = Math.max(MIN_FEASIBLE_PERCENT, 50 - Math.trunc(numAllNodes / 125));
  const n = Math.trunc((numAllNodes * pct) / 100);
  return n < MIN_FEASIBLE_NODES ? MIN_FEASIBLE_NODES : n;
}

/** The pod's priority, as the queue and preemption see it. */
export type PriorityOf = (pod: Pod) => number;

/** See the file comment. */
export class Profile {
  private nextStartNodeIndex = 0;
  private readonly preFilters: Plugin[];
  private readonly preScorers: Plugin[];

  constructor(
    readonly spec: ProfileSpec,
    private readonly cache: ClusterCache,
    private readonly nominator?: Nominator,
    private readonly priorityOf: PriorityOf = (p) => p.spec?.priority ?? 0,
    private readonly random: () => number = Math.random,
  ) {
    this.preFilters = spec.filters.filter((p) => p.preFilter !== undefined);
    this.preScorers = spec.scorers.map((w) => w.plugin).filter((p) => p.preScore !== undefined);
  }

  get name(): string {
    return this.spec.schedulerName;
  }

  /** Every plugin of the profile, once. */
  plugins(): Plugin[] {
    return [...new Set([...this.spec.filters, ...this.spec.scorers.map((s) => s.plugin)])];
  }

  /** Runs PreFilter; returns a Status if the Pod is rejected outright. */
  preFilter(state: CycleState, pod: Pod): Status | null {
    for (const p of this.preFilters) {
      const s = p.preFilter!(state, pod);
      if (!s) continue;
      if (s.code === 'Skip') state.skipFilter.add(p.name);
      else return { ...s, plugin: p.name };
    }
    return null;
  }

  /** Runs every Filter plugin on one node (with nominated higher-priority Pods counted); null if it fits. */
  filterNode(state: CycleState, pod: Pod, node: NodeInfo): Status | null {
    const nominated = this.nominator?.nominatedOn(node.name) ?? [];
    const added: PodInfo[] = [];
    if (nominated.length) {
      const prio = this.priorityOf(pod);
      for (const n of nominated) {
        if (n.key !== state.podInfo.key && this.priorityOf(n.pod) >= prio && !node.pods.has(n.key)) {
          node.addPod(n);
          added.push(n);
        }
      }
    }
    try {
      for (const p of this.spec.filters) {
        if (!p.filter || state.skipFilter.has(p.name)) continue;
        const s = p.filter(state, pod, node);
        if (s) return { ...s, plugin: p.name };
      }
      return null;
    } finally {
      for (const n of added) node.removePod(n.key);
    }
  }

  /** schedulePod: finds feasible nodes, scores them, picks one. */
  schedule(pod: Pod): ScheduleResult {
    const info = podInfoOf(pod);
    const state = new CycleState(pod, info);
    const nodes = this.cache.nodeList();
    const diagnosis = newDiagnosis();
    const result: ScheduleResult = { numAllNodes: nodes.length, evaluated: 0, feasible: 0, diagnosis, top: [], state };
    if (nodes.length === 0) return result;
    const pre = this.preFilter(state, pod);
    if (pre) {
      diagnosis.preFilterMsg = pre.reasons.join(', ');
      diagnosis.unschedulablePlugins.add(pre.plugin!);
      for (const n of nodes) diagnosis.nodeToStatus.set(n.name, pre);
      return result;
    }
    // A Pod nominated by an earlier preemption tries its node first.
    const nominatedName = pod.status?.nominatedNodeName;
    if (nominatedName) {
      const n = this.cache.getNode(nominatedName);
      if (n && !this.filterNode(state, pod, n)) {
        result.evaluated = 1;
        result.feasible = 1;
        result.node = n.name;
        return result;
      }
    }
    const feasible = this.findFeasible(state, pod, nodes, diagnosis);
    result.evaluated = feasible.length + diagnosis.nodeToStatus.size;
    result.feasible = feasible.length;
    if (feasible.length === 0) return result;
    if (feasible.length === 1) {
      result.node = feasible[0].name;
      result.top = [{ node: feasible[0].name, total: 0, plugins: {} }];
      return result;
    }
    const { totals, perPlugin } = this.score(state, pod, feasible);
    let best = -1;
    let ties = 0;
    for (let i = 0; i < feasible.length; i++) {
      if (best < 0 || totals[i] > totals[best]) {
        best = i;
        ties = 1;
      } else if (totals[i] === totals[best]) {
        ties++;
        if (this.random() * ties < 1) best = i;
      }
    }
    result.node = feasible[best].name;
    const order = [best, ...topIndexes(totals, 3).filter((i) => i !== best)].slice(0, 3);
    result.top = order.map((i) => {
      const plugins: Record<string, number> = {};
      for (const [name, arr] of perPlugin) plugins[name] = arr[i];
      return { node: feasible[i].name, total: totals[i], plugins };
    });
    return result;
  }

  private findFeasible(state: CycleState, pod: Pod, nodes: NodeInfo[], diagnosis: Diagnosis): NodeInfo[] {
    const want = numFeasibleNodesToFind(nodes.length, this.spec.percentageOfNodesToScore);
    const feasible: NodeInfo[] = [];
    const n = nodes.length;
    const start = this.nextStartNodeIndex % n;
    let processed = 0;
    for (let i = 0; i < n && feasible.length < want; i++) {
      const node = nodes[(start + i) % n];
      processed++;
      const s = this.filterNode(state, pod, node);
      if (!s) feasible.push(node);
      else {
        diagnosis.nodeToStatus.set(node.name, s);
        diagnosis.unschedulablePlugins.add(s.plugin!);
      }
    }
    this.nextStartNodeIndex = (start + processed) % n;
    return feasible;
  }

  private score(state: CycleState, pod: Pod, nodes: NodeInfo[]): { totals: number[]; perPlugin: Map<string, number[]> } {
    for (const p of this.preScorers) {
      const s = p.preScore!(state, pod, nodes);
      if (s?.code === 'Skip') state.skipScore.add(p.name);
    }
    const totals = new Array<number>(nodes.length).fill(0);
    const perPlugin = new Map<string, number[]>();
    for (const { plugin, weight } of this.spec.scorers) {
      if (!plugin.score || state.skipScore.has(plugin.name)) continue;
      const scores = new Array<number>(nodes.length);
      for (let i = 0; i < nodes.length; i++) scores[i] = plugin.score(state, pod, nodes[i]);
      plugin.normalizeScore?.(state, pod, scores, nodes);
      for (let i = 0; i < nodes.length; i++) {
        scores[i] *= weight;
        totals[i] += scores[i];
      }
      perPlugin.set(plugin.name, scores);
    }
    return { totals, perPlugin };
  }
}

function topIndexes(values: number[], k: number): number[] {
  const top: number[] = [];
  for (let i = 0; i < values.length; i++) {
    if (top.length < k) top.push(i);
    else if (values[i] > values[top[k - 1]]) top[k - 1] = i;
    else continue;
    top.sort((a, b) => values[b] - values[a]);
  }
  return top;
}
