// What the ClusterRole aggregation controller decides for one ClusterRole
// (kube's pkg/controller/clusterroleaggregation): an aggregated role's rules
// are the union, without duplicates, of the rules of every other ClusterRole
// its selectors match, selector by selector and by name within each.
import type { ClusterRole, PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { selectorFromLabelSelector } from '../../../shared/labels/meta-selector.ts';
import { matchesLabels } from '../../../shared/labels/selector.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';

/** The rules `role` should have, or undefined when it is not aggregated. */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] | undefined {
  const selectors = role.aggregationRule?.clusterRoleSelectors;
  if (!role.aggregationRule) return undefined;
  const rules: PolicyRule[] = [];
  const byName = [...all].sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
  for (const s of selectors ?? []) {
    let sel;
    try {
      sel = selectorFromLabelSelector(s);
    } catch {
      continue;
    }
    for (const cr of byName) {
      if (cr.metadata?.name === role.metadata?.name || !matchesLabels(sel, cr.metadata?.labels)) continue;
      for (const r of cr.rules ?? []) if (!rules.some((have) => deepEqual(have, r))) rules.push(r);
    }
  }
  return rules;
}

/** The updated role to write, or undefined when its rules are already right (an absent list equals an empty one, as in kube). */
export function planAggregation(role: ClusterRole, all: readonly ClusterRole[]): ClusterRole | undefined {
  const want = aggregatedRules(role, all);
  if (!want) return undefined;
  const have = role.rules ?? [];
  if (deepEqual(want, have)) return undefined;
  return { ...structuredClone(role), rules: want };
}
