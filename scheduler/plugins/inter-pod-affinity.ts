// InterPodAffinity: required pod affinity and anti-affinity of the incoming
// Pod, and the required anti-affinity of Pods already placed, decide which
// topology domains a Pod may join (filter); preferred terms on both sides
// (and placed Pods' required affinity, at hardPodAffinityWeight) score the
// domains (weight 2 by default). Placed Pods are found through the cache's
// label index, so a term costs the Pods it may match, not every Pod.
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { Handle, Plugin } from '../framework/types.ts';
import { MAX_NODE_SCORE, SKIP, status } from '../framework/types.ts';
import type { NodeInfo } from '../node-info.ts';
import { termMatches, type AffinityTerm, type PodInfo } from '../pod-info.ts';

export const ERR_REASON_AFFINITY = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules";
export const ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";

const pairKey = (k: string, v: string) => `${k}\u0000${v}`;

interface FilterState {
  existingAnti: Map<string, number>;
  affinity: Map<string, number>;
  anti: Map<string, number>;
}

/** pluginConfig args. */
export interface InterPodAffinityArgs {
  hardPodAffinityWeight?: number;
  ignorePreferredTermsOfExistingPods?: boolean;
}

function bump(m: Map<string, number>, key: string, by: number): void {
  m.set(key, (m.get(key) ?? 0) + by);
}

/** The InterPodAffinity filter and score. */
export function interPodAffinity(handle: Handle, args: InterPodAffinityArgs = {}): Plugin {
  const hardWeight = args.hardPodAffinityWeight ?? 1;
  const nsLabels = (ns: string) => handle.namespaceLabels(ns);
  const cache = handle.cache;
  const matchesAll = (terms: AffinityTerm[], target: Pod) => terms.every((t) => termMatches(t, target, nsLabels));

  return {
    name: 'InterPodAffinity',
    events: ['NodeAdd', 'NodeLabel', 'AssignedPodAdd', 'AssignedPodUpdate', 'AssignedPodDelete'],
    preFilter(state, pod) {
      const pi = state.podInfo;
      if (pi.requiredAffinity.length === 0 && pi.requiredAntiAffinity.length === 0 && cache.podsWithRequiredAntiAffinity === 0) return SKIP;
      const fs: FilterState = { existingAnti: new Map(), affinity: new Map(), anti: new Map() };
      // Placed Pods whose required anti-affinity selects this Pod close their domains.
      if (cache.podsWithRequiredAntiAffinity > 0) {
        for (const { info, term } of cache.antiTermsFor(pod.metadata?.labels ?? {})) {
          if (info.key === pi.key || !termMatches(term, pod, nsLabels)) continue;
          const value = cache.nodeInfoOf(info.key)?.labels[term.topologyKey];
          if (value !== undefined) bump(fs.existingAnti, pairKey(term.topologyKey, value), 1);
        }
      }
      if (pi.requiredAffinity.length) {
        const seen = new Set<PodInfo>();
        for (const other of cache.candidatesFor(pi.requiredAffinity[0])) {
          if (other.key === pi.key || seen.has(other) || !matchesAll(pi.requiredAffinity, other.pod)) continue;
          seen.add(other);
          const labels = cache.nodeInfoOf(other.key)?.labels ?? {};
          for (const t of pi.requiredAffinity)
            if (t.topologyKey in labels) bump(fs.affinity, pairKey(t.topologyKey, labels[t.topologyKey]), 1);
        }
      }
      for (const t of pi.requiredAntiAffinity) {
        for (const other of cache.candidatesFor(t)) {
          if (other.key === pi.key || !termMatches(t, other.pod, nsLabels)) continue;
          const value = cache.nodeInfoOf(other.key)?.labels[t.topologyKey];
          if (value !== undefined) bump(fs.anti, pairKey(t.topologyKey, value), 1);
        }
      }
      state.write('InterPodAffinity/filter', fs);
      return null;
    },
    filter(state, pod, node) {
      const fs = state.read<FilterState>('InterPodAffinity/filter')!;
      const pi = state.podInfo;
      const labels = node.labels;
      if (pi.requiredAffinity.length) {
        let ok = true;
        for (const t of pi.requiredAffinity) {
          const v = labels[t.topologyKey];
          if (v === undefined || !(fs.affinity.get(pairKey(t.topologyKey, v))! > 0)) {
            ok = false;
            break;
          }
        }
        // The first Pod of a group that selects itself may go anywhere.
        if (!ok && !(fs.affinity.size === 0 && matchesAll(pi.requiredAffinity, pod)))
          return status('UnschedulableAndUnresolvable', ERR_REASON_AFFINITY);
      }
      for (const t of pi.requiredAntiAffinity) {
        const v = labels[t.topologyKey];
        if (v !== undefined && (fs.anti.get(pairKey(t.topologyKey, v)) ?? 0) > 0) return status('Unschedulable', ERR_REASON_ANTI_AFFINITY);
      }
      if (fs.existingAnti.size > 0) {
        for (const k in labels)
          if ((fs.existingAnti.get(pairKey(k, labels[k])) ?? 0) > 0) return status('Unschedulable', ERR_REASON_EXISTING_ANTI_AFFINITY);
      }
      return null;
    },
    preScore(state, pod, _nodes) {
      const pi = state.podInfo;
      const hasPreferred = pi.preferredAffinity.length + pi.preferredAntiAffinity.length > 0;
      if (!hasPreferred && (args.ignorePreferredTermsOfExistingPods || cache.podsWithAffinity === 0)) return SKIP;
      const scores = new Map<string, number>();
      const add = (term: AffinityTerm, weight: number, node: NodeInfo | undefined, sign: number) => {
        const v = node?.labels[term.topologyKey];
        if (v !== undefined && weight) bump(scores, pairKey(term.topologyKey, v), sign * weight);
      };
      if (hasPreferred) {
        for (const t of pi.preferredAffinity)
          for (const o of cache.candidatesFor(t))
            if (o.key !== pi.key && termMatches(t, o.pod, nsLabels)) add(t, t.weight, cache.nodeInfoOf(o.key), 1);
        for (const t of pi.preferredAntiAffinity)
          for (const o of cache.candidatesFor(t))
            if (o.key !== pi.key && termMatches(t, o.pod, nsLabels)) add(t, t.weight, cache.nodeInfoOf(o.key), -1);
      }
      if (!args.ignorePreferredTermsOfExistingPods && cache.podsWithAffinity > 0) {
        for (const n of cache.nodeList()) {
          for (const o of n.podsWithAffinity) {
            if (o.key === pi.key) continue;
            if (hardWeight > 0) for (const t of o.requiredAffinity) if (termMatches(t, pod, nsLabels)) add(t, hardWeight, n, 1);
            for (const t of o.preferredAffinity) if (termMatches(t, pod, nsLabels)) add(t, t.weight, n, 1);
            for (const t of o.preferredAntiAffinity) if (termMatches(t, pod, nsLabels)) add(t, t.weight, n, -1);
          }
        }
      }
      if (scores.size === 0) return SKIP;
      state.write('InterPodAffinity/score', scores);
      return null;
    },
    score(state, _pod, node) {
      const scores = state.read<Map<string, number>>('InterPodAffinity/score')!;
      let total = 0;
      const labels = node.labels;
      for (const k in labels) total += scores.get(pairKey(k, labels[k])) ?? 0;
      return total;
    },
    normalizeScore(_state, _pod, scores) {
      let min = Infinity;
      let max = -Infinity;
      for (const s of scores) {
        if (s > max) max = s;
        if (s < min) min = s;
      }
      const diff = max - min;
      for (let i = 0; i < scores.length; i++) scores[i] = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((scores[i] - min) / diff)) : 0;
    },
  };
}
