// Whether one RBAC PolicyRule allows a request: kube's evaluation helpers
// (pkg/apis/rbac/v1/evaluation_helpers.go) and RuleAllows. Each field
// matches on "*" or an exact value; a resource rule also matches
// "*/SUB" for any resource's SUB subresource (never "RES/*": kube has no
// such form); a non-resource URL ending in "*" matches by prefix.
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { AuthzAttributes } from '../authorizer-types.ts';

/** `*`: every verb, API group, resource or non-resource URL. */
export const ALL = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs) if (v === ALL || v === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === ALL || g === group) return true;
  return false;
}

/** `combined` is "resource" or "resource/subresource"; `subresource` the part after the slash. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === ALL || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** kube's RuleAllows. */
export function ruleAllows(attrs: AuthzAttributes, rule: PolicyRule): boolean {
  if (attrs.resourceRequest) {
    const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    return (
      verbMatches(rule, attrs.verb) &&
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, combined, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

/** kube's RulesAllow: any of `rules` allows the request. */
export function rulesAllow(attrs: AuthzAttributes, rules: readonly PolicyRule[]): boolean {
  for (const r of rules) if (ruleAllows(attrs, r)) return true;
  return false;
}
