// What the scheduler precomputes once per Pod object: its key, effective
// request, and its inter-pod affinity terms parsed into selectors, so that
// filters and scores over thousands of nodes never re-parse a spec.
import type { Pod, PodAffinityTerm, WeightedPodAffinityTerm } from 'kubernetes-types/core/v1.js';
import type { LabelSelectorRequirement } from 'kubernetes-types/meta/v1.js';
import { keyOf } from '../shared/informer/cache.ts';
import { everything, matchesLabels, selectorFromLabelSelector, type LabelSelector } from '../shared/labels/index.ts';
import { podRequest, type PodRequest } from './resources.ts';

/** One (anti-)affinity term of a Pod, ready to match. */
export interface AffinityTerm {
  topologyKey: string;
  selector: LabelSelector;
  /** Namespaces named by the term (or the Pod's own when none and no namespaceSelector). */
  namespaces: Set<string>;
  /** Set when the term has a namespaceSelector; matches namespaces by their labels. */
  namespaceSelector?: LabelSelector;
  /** Weight for preferred terms; 0 for required ones. */
  weight: number;
}

/** A Pod with its precomputed scheduling facts. */
export interface PodInfo {
  pod: Pod;
  key: string;
  request: PodRequest;
  requiredAffinity: AffinityTerm[];
  requiredAntiAffinity: AffinityTerm[];
  preferredAffinity: AffinityTerm[];
  preferredAntiAffinity: AffinityTerm[];
}

function parseTerm(pod: Pod, term: PodAffinityTerm | undefined, weight: number): AffinityTerm {
  let selector: LabelSelector;
  try {
    selector = selectorFromLabelSelector(term?.labelSelector);
  } catch {
    selector = selectorFromLabelSelector(null);
  }
  // matchLabelKeys / mismatchLabelKeys merge the Pod's own label values into the selector.
  const labels = pod.metadata?.labels ?? {};
  const extra: LabelSelectorRequirement[] = [];
  for (const k of term?.matchLabelKeys ?? []) if (k in labels) extra.push({ key: k, operator: 'In', values: [labels[k]] });
  for (const k of term?.mismatchLabelKeys ?? []) if (k in labels) extra.push({ key: k, operator: 'NotIn', values: [labels[k]] });
  if (extra.length && !selector.matchesNothing) {
    try {
      const more = selectorFromLabelSelector({ matchExpressions: extra });
      selector = { requirements: [...selector.requirements, ...more.requirements], matchesNothing: false };
    } catch {
      // An invalid label value cannot be matched anyway.
    }
  }
  const namespaces = new Set<string>(term?.namespaces ?? []);
  let namespaceSelector: LabelSelector | undefined;
  if (term?.namespaceSelector) {
    try {
      namespaceSelector = selectorFromLabelSelector(term.namespaceSelector);
    } catch {
      namespaceSelector = undefined;
    }
  }
  if (namespaces.size === 0 && !namespaceSelector) namespaces.add(pod.metadata?.namespace ?? 'default');
  return { topologyKey: term?.topologyKey ?? '', selector, namespaces, namespaceSelector, weight };
}

const cache = new WeakMap<object, PodInfo>();

/** The PodInfo of `pod`, memoized per object (cache objects are never mutated). */
export function podInfo(pod: Pod): PodInfo {
  const hit = cache.get(pod);
  if (hit) return hit;
  const a = pod.spec?.affinity ?? {};
  const required = (t: PodAffinityTerm) => parseTerm(pod, t, 0);
  const preferred = (t: WeightedPodAffinityTerm) => parseTerm(pod, t.podAffinityTerm, t.weight ?? 0);
  const info: PodInfo = {
    pod,
    key: keyOf(pod),
    request: podRequest(pod),
    requiredAffinity: (a.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map(required),
    requiredAntiAffinity: (a.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map(required),
    preferredAffinity: (a.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(preferred),
    preferredAntiAffinity: (a.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(preferred),
  };
  cache.set(pod, info);
  return info;
}

/** Whether `term` (of some Pod) selects `target`; `nsLabels` gives a namespace's labels for namespaceSelector terms. */
export function termMatches(term: AffinityTerm, target: Pod, nsLabels: (ns: string) => Record<string, string> | undefined): boolean {
  const ns = target.metadata?.namespace ?? 'default';
  if (!term.namespaces.has(ns)) {
    if (!term.namespaceSelector || !matchesLabels(term.namespaceSelector, nsLabels(ns) ?? {})) return false;
  }
  return matchesLabels(term.selector, target.metadata?.labels ?? {});
}

/** True when the Pod carries any inter-pod affinity term. */
export function hasAffinity(p: PodInfo): boolean {
  return p.requiredAffinity.length + p.requiredAntiAffinity.length + p.preferredAffinity.length + p.preferredAntiAffinity.length > 0;
}

export { everything };
