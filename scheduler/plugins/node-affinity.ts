// NodeAffinity: spec.nodeSelector and required node affinity decide where a
// Pod may go (filter); preferred node affinity terms add their weights to a
// node's score, normalized to 0..100 (weight 2 by default).
import type { Node, Pod } from 'kubernetes-types/core/v1.js';
import type { Plugin } from '../framework/types.ts';
import { defaultNormalizeScore, status } from '../framework/types.ts';
import { termMatchesNode } from '../../shared/labels/node-selector.ts';

/** kube's ErrReasonPod for NodeAffinity. */
export const ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector";

/** Whether the Pod's nodeSelector and required node affinity admit `node`. */
export function podMatchesNodeSelectorAndAffinity(pod: Pod, node: Node | undefined): boolean {
  const sel = pod.spec?.nodeSelector;
  if (sel) {
    const labels = node?.metadata?.labels ?? {};
    for (const [k, v] of Object.entries(sel)) if (labels[k] !== v) return false;
  }
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required) {
    const terms = required.nodeSelectorTerms ?? [];
    if (!terms.some((t) => termMatchesNode(t, node))) return false;
  }
  return true;
}

/** The NodeAffinity filter and score. */
export function nodeAffinity(): Plugin {
  return {
    name: 'NodeAffinity',
    events: ['NodeAdd', 'NodeLabel'],
    preFilter(_state, pod) {
      const hasRequired = pod.spec?.nodeSelector || pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
      return hasRequired ? null : { code: 'Skip', reasons: [] };
    },
    filter(_state, pod, node) {
      return podMatchesNodeSelectorAndAffinity(pod, node.node) ? null : status('UnschedulableAndUnresolvable', ERR_REASON_POD);
    },
    preScore(_state, pod) {
      const preferred = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution;
      return preferred?.length ? null : { code: 'Skip', reasons: [] };
    },
    score(_state, pod, node) {
      let total = 0;
      // preScore skipped this plugin unless the Pod has preferred terms.
      for (const p of pod.spec!.affinity!.nodeAffinity!.preferredDuringSchedulingIgnoredDuringExecution!) {
        if (p.weight && termMatchesNode(p.preference, node.node)) total += p.weight;
      }
      return total;
    },
    normalizeScore(_state, _pod, scores) {
      defaultNormalizeScore(scores, false);
    },
  };
}
