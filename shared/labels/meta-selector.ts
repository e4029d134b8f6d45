// The structured metav1.LabelSelector (matchLabels + matchExpressions) that
// workloads, services' owners and PDBs carry: converting it to a matcher as
// metav1.LabelSelectorAsSelector does, and printing it as
// metav1.FormatLabelSelector does for kubectl-style columns.
import type { LabelSelector as MetaLabelSelector } from 'kubernetes-types/meta/v1.js';
import { everything, labelSelectorString, nothing, selectorOf } from './selector.ts';
import type { LabelSelector } from './selector.ts';
import { newRequirement } from './requirement.ts';
import type { Operator, Requirement } from './requirement.ts';

const OPERATORS: Record<string, Operator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * Converts a metav1.LabelSelector into a selector. A null or undefined
 * selector matches nothing; an empty one ({}) matches everything. Throws an
 * Error with kube's message for an unknown operator or an invalid key/value.
 */
export function selectorFromLabelSelector(ps: MetaLabelSelector | null | undefined): LabelSelector {
  if (ps === null || ps === undefined) return nothing();
  // Controllers match every Pod of a namespace against the same few selectors
  // of objects in their informer caches, which are never mutated: convert
  // each selector object once.
  const known = converted.get(ps);
  if (known instanceof Error) throw known;
  if (known) return known;
  try {
    const selector = convert(ps);
    converted.set(ps, selector);
    return selector;
  } catch (err) {
    if (err instanceof Error) converted.set(ps, err);
    throw err;
  }
}

const converted = new WeakMap<MetaLabelSelector, LabelSelector | Error>();

function convert(ps: MetaLabelSelector): LabelSelector {
  const matchLabels = ps.matchLabels ?? {};
  const matchExpressions = ps.matchExpressions ?? [];
  if (Object.keys(matchLabels).length + matchExpressions.length === 0) return everything();
  const requirements: Requirement[] = [];
  for (const [key, value] of Object.entries(matchLabels)) requirements.push(newRequirement(key, '=', [value]));
  for (const expr of matchExpressions) {
    const op = Object.prototype.hasOwnProperty.call(OPERATORS, expr.operator) ? OPERATORS[expr.operator] : undefined;
    if (!op) throw new Error(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    // kube copies Values into a nil slice, so an empty list reports as null.
    const values = expr.values && expr.values.length > 0 ? expr.values : undefined;
    requirements.push(newRequirement(expr.key, op, values));
  }
  return selectorOf(requirements);
}

/** The selector as kubectl prints it: "app=web,tier in (a,b)"; "<none>" when empty or nil, "<error>" when invalid. */
export function formatLabelSelector(ps: MetaLabelSelector | null | undefined): string {
  let text: string;
  try {
    text = labelSelectorString(selectorFromLabelSelector(ps));
  } catch {
    return '<error>';
  }
  return text === '' ? '<none>' : text;
}
