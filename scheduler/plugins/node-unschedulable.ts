// NodeUnschedulable: a cordoned node (spec.unschedulable) takes only Pods
// that tolerate the node.kubernetes.io/unschedulable:NoSchedule taint.
import type { Plugin } from '../framework/types.ts';
import { status } from '../framework/types.ts';
import { toleratesTaint } from './taint-toleration.ts';

/** kube's ErrReasonUnschedulable. */
export const ERR_REASON_UNSCHEDULABLE = 'node(s) were unschedulable';

const CORDON_TAINT = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

/** The NodeUnschedulable filter. */
export function nodeUnschedulable(): Plugin {
  return {
    name: 'NodeUnschedulable',
    events: ['NodeAdd', 'NodeUnschedulable'],
    filter(_state, pod, node) {
      if (!node.node?.spec?.unschedulable) return null;
      const tolerated = (pod.spec?.tolerations ?? []).some((t) => toleratesTaint(t, CORDON_TAINT));
      return tolerated ? null : status('UnschedulableAndUnresolvable', ERR_REASON_UNSCHEDULABLE);
    },
  };
}
