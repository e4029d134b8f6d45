// Whether one set of RBAC rules covers another, and how kube prints the
// difference: pkg/registry/rbac/validation/policy_comparator.go (Covers,
// BreakdownRule), rule.go's CompactRules and PolicyRule.CompactString.
// Escalation checks and bootstrap reconciliation both use them.
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import { goQuoteList } from '../../../shared/patch/go-format.ts';
import { ALL } from './evaluation.ts';

/** kube's BreakdownRule: one rule per (group, resource, verb[, name]) and per (URL, verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames?.length) {
          for (const n of rule.resourceNames) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        } else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const has = (set: readonly string[] | undefined, e: string) => (set ?? []).includes(e);
const hasAll = (set: readonly string[] | undefined, sub: readonly string[] | undefined) => (sub ?? []).every((e) => has(set, e));

function resourceCoversAll(set: string[] | undefined, covered: string[] | undefined): boolean {
  if (has(set, ALL) || hasAll(set, covered)) return true;
  for (const path of covered ?? []) {
    if (has(set, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!has(set, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  if (owner === sub) return true;
  return owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, ''));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, ALL) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const names = sub.resourceNames?.length ? ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames) : ownerNames.length === 0;
  return verbs && groups && resources && names && urls;
}

/** kube's Covers: whether `owner` covers every part of `servant`, and the parts it does not. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): [boolean, PolicyRule[]] {
  const missing: PolicyRule[] = [];
  for (const r of servant) {
    for (const sub of breakdownRule(r)) if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
  }
  return [missing.length === 0, missing];
}

/** kube's CompactRules: simple rules (one group, one resource, at most one name) on the same target merge their verbs. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple =
      (r.resourceNames?.length ?? 0) <= 1 && !r.nonResourceURLs?.length && r.apiGroups?.length === 1 && r.resources?.length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const cur = simple.get(key);
    if (cur) cur.verbs = [...cur.verbs, ...r.verbs];
    else simple.set(key, structuredClone(r));
  }
  return [...out, ...simple.values()];
}

/** kube's PolicyRule.CompactString, e.g. `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goQuoteList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goQuoteList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goQuoteList(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
