// NodeName: a Pod that names a node (spec.nodeName) fits only there.
import type { Plugin } from '../framework/types.ts';
import { status } from '../framework/types.ts';

/** kube's ErrReason for NodeName. */
export const ERR_REASON_NODE_NAME = "node(s) didn't match the requested node name";

/** The NodeName filter. */
export function nodeName(): Plugin {
  return {
    name: 'NodeName',
    events: ['NodeAdd'],
    filter(_state, pod, node) {
      const want = pod.spec?.nodeName;
      return !want || want === node.name ? null : status('UnschedulableAndUnresolvable', ERR_REASON_NODE_NAME);
    },
  };
}
