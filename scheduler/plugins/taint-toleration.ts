// TaintToleration: a node's NoSchedule and NoExecute taints keep out Pods
// that do not tolerate them (filter); PreferNoSchedule taints lower a node's
// score by how many of them the Pod does not tolerate (weight 3 by default).
import type { Taint, Toleration } from 'kubernetes-types/core/v1.js';
import type { Plugin } from '../framework/types.ts';
import { defaultNormalizeScore, status } from '../framework/types.ts';

/** v1.Toleration.ToleratesTaint. */
export function toleratesTaint(t: Toleration, taint: Pick<Taint, 'key' | 'effect' | 'value'>): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (t.operator === 'Exists') return true;
  if (!t.operator || t.operator === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return false;
}

/** The first taint of `taints` (with an effect in `effects`) that no toleration tolerates. */
export function firstUntolerated(taints: Taint[], tolerations: Toleration[], effects: readonly string[]): Taint | undefined {
  for (const taint of taints) {
    if (!effects.includes(taint.effect)) continue;
    if (!tolerations.some((t) => toleratesTaint(t, taint))) return taint;
  }
  return undefined;
}

const FILTER_EFFECTS = ['NoSchedule', 'NoExecute'];

/** The TaintToleration filter and score. */
export function taintToleration(): Plugin {
  return {
    name: 'TaintToleration',
    events: ['NodeAdd', 'NodeTaint'],
    filter(_state, pod, node) {
      const taints = node.node?.spec?.taints;
      if (!taints?.length) return null;
      const taint = firstUntolerated(taints, pod.spec?.tolerations ?? [], FILTER_EFFECTS);
      if (!taint) return null;
      return status('UnschedulableAndUnresolvable', `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`);
    },
    score(_state, pod, node) {
      const taints = node.node?.spec?.taints;
      if (!taints?.length) return 0;
      const tolerations = (pod.spec?.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
      let n = 0;
      for (const taint of taints) if (taint.effect === 'PreferNoSchedule' && !tolerations.some((t) => toleratesTaint(t, taint))) n++;
      return n;
    },
    normalizeScore(_state, _pod, scores) {
      defaultNormalizeScore(scores, true);
    },
  };
}
