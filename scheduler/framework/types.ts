// The scheduling framework's vocabulary, after kube-scheduler's: a plugin
// implements some of preFilter / filter / preScore / score / normalizeScore;
// a Status says why a node was rejected; CycleState carries one attempt's
// precomputed data between extension points; cluster events say which
// changes may make a rejected Pod fit, so the queue retries it only then.
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { LabelSelector } from '../../shared/labels/index.ts';
import type { ClusterCache } from '../cache.ts';
import type { NodeInfo } from '../node-info.ts';
import type { PodInfo } from '../pod-info.ts';

/** kube's framework.Code, the ones the scheduler uses. */
export type Code = 'Unschedulable' | 'UnschedulableAndUnresolvable' | 'Error' | 'Skip';

/** A non-success result; success is `null` (no allocation on the hot path). */
export interface Status {
  code: Code;
  reasons: string[];
  /** The plugin that returned it (set by the framework). */
  plugin?: string;
}

/** Builds a Status. */
export function status(code: Code, ...reasons: string[]): Status {
  return { code, reasons };
}

/** The Status that skips a plugin's later extension points for this attempt. */
export const SKIP: Status = Object.freeze({ code: 'Skip', reasons: [] });

/** Highest score a plugin gives a node (kube's MaxNodeScore). */
export const MAX_NODE_SCORE = 100;

/** Cluster changes that can make a rejected Pod schedulable. */
export type ClusterEvent =
  | 'NodeAdd'
  | 'NodeDelete'
  | 'NodeLabel'
  | 'NodeTaint'
  | 'NodeAllocatable'
  | 'NodeUnschedulable'
  | 'NodeCondition'
  | 'AssignedPodAdd'
  | 'AssignedPodUpdate'
  | 'AssignedPodDelete'
  | 'PersistentVolumeClaimChange'
  | 'PersistentVolumeChange'
  | 'StorageClassChange';

/** Data for one scheduling attempt of one Pod. */
export class CycleState {
  private readonly data = new Map<string, unknown>();
  /** Plugins whose PreFilter/PreScore returned Skip. */
  readonly skipFilter = new Set<string>();
  readonly skipScore = new Set<string>();
  constructor(
    readonly pod: Pod,
    readonly podInfo: PodInfo,
  ) {}
  read<T>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  write(key: string, value: unknown): void {
    this.data.set(key, value);
  }
}

/** What plugins may use from the scheduler. */
export interface Handle {
  cache: ClusterCache;
  /** A namespace's labels (for namespaceSelector terms). */
  namespaceLabels(ns: string): Record<string, string> | undefined;
  /** Label selectors of the Services, ReplicaSets and StatefulSets that own or select the Pod (kube's DefaultSelector). */
  defaultSelectorsFor(pod: Pod): LabelSelector[];
}

/** A scheduling plugin; every extension point is optional. */
export interface Plugin {
  readonly name: string;
  /** Events that may make a Pod this plugin rejected schedulable. */
  readonly events?: readonly ClusterEvent[];
  preFilter?(state: CycleState, pod: Pod): Status | null;
  filter?(state: CycleState, pod: Pod, node: NodeInfo): Status | null;
  preScore?(state: CycleState, pod: Pod, nodes: NodeInfo[]): Status | null;
  score?(state: CycleState, pod: Pod, node: NodeInfo): number;
  normalizeScore?(state: CycleState, pod: Pod, scores: number[], nodes: NodeInfo[]): void;
  /** Runs once a node is chosen, before the binding is sent (a rejection fails the binding). */
  preBind?(state: CycleState, pod: Pod, node: string): Promise<void>;
}

/**
 * A plugin's pluginConfig args as the configuration file has them: JSON
 * that each factory reads as its own args type (kube decodes them into
 * typed structs; the simulator takes them as written).
 */
export type PluginArgs = Record<string, unknown>;

/** Builds a plugin from its args (pluginConfig) and the handle. */
export type PluginFactory = (handle: Handle, args: PluginArgs) => Plugin;

/** Normalizes scores to 0..MAX_NODE_SCORE by the highest one (kube's DefaultNormalizeScore); `reverse` flips them. */
export function defaultNormalizeScore(scores: number[], reverse: boolean): void {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  if (max === 0) {
    if (reverse) scores.fill(MAX_NODE_SCORE);
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    let s = Math.trunc((MAX_NODE_SCORE * scores[i]) / max);
    if (reverse) s = MAX_NODE_SCORE - s;
    scores[i] = s;
  }
}
