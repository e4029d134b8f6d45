// A NodeSelectorTerm against a Node, as kube's nodeaffinity helpers match
// it: every label expression and every field expression (metadata.name)
// holds; an empty term matches nothing. The scheduler's NodeAffinity and
// VolumeBinding, the DaemonSet controller and the PV binder all ask this.
import type { Node, NodeSelectorRequirement, NodeSelectorTerm } from 'kubernetes-types/core/v1.js';
import { isInt64 } from './requirement.ts';

/** One NodeSelectorRequirement against a value (undefined: label absent). */
function requirementHolds(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1 || !isInt64(value) || !isInt64(values[0])) return false;
      return req.operator === 'Gt' ? BigInt(value) > BigInt(values[0]) : BigInt(value) < BigInt(values[0]);
    }
    default:
      return false;
  }
}

/** A NodeSelectorTerm: every expression on labels and every field expression (metadata.name) holds; an empty term matches nothing. */
export function termMatchesNode(term: NodeSelectorTerm | undefined, node: Node | undefined): boolean {
  const exprs = term?.matchExpressions ?? [];
  const fields = term?.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node?.metadata?.labels ?? {};
  for (const r of exprs)
    if (!requirementHolds(r, Object.prototype.hasOwnProperty.call(labels, r.key) ? labels[r.key] : undefined)) return false;
  for (const r of fields) if (r.key !== 'metadata.name' || !requirementHolds(r, node?.metadata?.name)) return false;
  return true;
}
