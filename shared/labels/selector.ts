// The label selector value (an AND of requirements, or "nothing") and what a
// caller does with one: match a label set, print it, ask for an exact value.
import { compareBytes, formatRequirement, requirementMatches } from './requirement.ts';
import type { Requirement } from './requirement.ts';

/**
 * A parsed label selector. `requirements` are ANDed and sorted by key, as
 * kube sorts them. `matchesNothing` marks labels.Nothing(), which
 * metav1.LabelSelectorAsSelector returns for a nil selector.
 */
export interface LabelSelector {
  readonly requirements: readonly Requirement[];
  readonly matchesNothing: boolean;
}

/** The selector that matches every object (an empty selector). */
export function everything(): LabelSelector {
  return { requirements: [], matchesNothing: false };
}

/** The selector that matches no object. */
export function nothing(): LabelSelector {
  return { requirements: [], matchesNothing: true };
}

/** Builds a selector from requirements, sorting them by key (stable, like kube's sort for small lists). */
export function selectorOf(requirements: readonly Requirement[]): LabelSelector {
  return { requirements: [...requirements].sort((a, b) => compareBytes(a.key, b.key)), matchesNothing: false };
}

/** Whether the selector matches the labels; an empty selector matches everything, even no labels. */
export function matchesLabels(sel: LabelSelector, labels: Readonly<Record<string, string>> | undefined): boolean {
  if (sel.matchesNothing) return false;
  return sel.requirements.every((r) => requirementMatches(r, labels));
}

/** True when the selector does not restrict anything (kube's Selector.Empty). */
export function isEmptySelector(sel: LabelSelector): boolean {
  return !sel.matchesNothing && sel.requirements.length === 0;
}

/** The selector as kube's Selector.String() prints it: "a=b,c in (d,e),!f"; "" when empty or nothing. */
export function labelSelectorString(sel: LabelSelector): string {
  return sel.requirements.map(formatRequirement).join(',');
}

/**
 * The single value the selector requires for `label` (=, == or a one-value
 * in), as RequiresExactMatch reports it; undefined otherwise. Only the first
 * requirement on that key is considered, as in kube.
 */
export function labelExactMatch(sel: LabelSelector, label: string): string | undefined {
  const r = sel.requirements.find((x) => x.key === label);
  if (!r) return undefined;
  if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) return r.values[0];
  return undefined;
}

/** The selector built from a plain label set (each key=value), as labels.SelectorFromSet; not validated. */
export function selectorFromSet(set: Readonly<Record<string, string>> | undefined): LabelSelector {
  const reqs = Object.entries(set ?? {}).map(([key, v]): Requirement => ({ key, operator: '=', values: [v] }));
  return selectorOf(reqs);
}
