// Which requests a policy's matchConstraints (or a binding's
// matchResources) select, as kube's admission/plugin/policy/matching and
// webhook/predicates/rules do: the namespaceSelector against the
// namespace's labels (a Namespace's own for a Namespace), the
// objectSelector against the new or the old object's labels, no
// excludeResourceRules matching, then a resourceRule matching (scope,
// operation, group, version, resource/subresource with `*`, resourceNames)
// on the request's resource or, with matchPolicy Equivalent, on another
// version of it.
import type { MatchResources as TypesMatchResources, NamedRuleWithOperations } from 'kubernetes-types/admissionregistration/v1.js';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { matchesLabels } from '../../../shared/labels/index.ts';
import { selectorFromLabelSelector } from '../../../shared/labels/meta-selector.ts';

/** A resource rule: kubernetes-types' NamedRuleWithOperations lacks the Rule fields it embeds. */
export type ResourceRule = NamedRuleWithOperations & { resources?: string[]; scope?: string };

/** MatchResources with the rules as they are on the wire. */
export type MatchResources = Omit<TypesMatchResources, 'resourceRules' | 'excludeResourceRules'> & {
  resourceRules?: ResourceRule[];
  excludeResourceRules?: ResourceRule[];
};

/** A group/version/resource. */
export interface GVR {
  group: string;
  version: string;
  resource: string;
}

/** What matching reads of a request (kube's admission.Attributes). */
export interface MatchRequest {
  resource: GVR;
  subresource: string;
  operation: string;
  /** The request's namespace ('' for cluster-scoped resources; a Namespace's own name for a Namespace). */
  namespace: string;
  name: string;
  objectLabels?: Record<string, string>;
  oldObjectLabels?: Record<string, string>;
  /** The labels of the request's namespace; undefined when it does not exist. */
  namespaceLabels?: Record<string, string>;
  /** Other versions of the same resource (kube's EquivalentResourcesFor), for matchPolicy Equivalent. */
  equivalents?: GVR[];
}

/** A match, with the resource that matched (the request's own or an equivalent one). */
export type MatchResult = { matches: false; error?: string } | { matches: true; resource: GVR };

const NAMESPACES: GVR = { group: '', version: 'v1', resource: 'namespaces' };
const isNamespaces = (r: GVR) => r.group === '' && r.resource === 'namespaces';

function selects(sel: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!sel) return true;
  const parsed = selectorFromLabelSelector(sel);
  return matchesLabels(parsed, labels ?? {});
}

const empty = (sel: LabelSelector | undefined) =>
  !sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0);

/** kube's namespace.Matcher.MatchNamespaceSelector. */
export function matchNamespace(sel: LabelSelector | undefined, req: MatchRequest): { matches: boolean; error?: string } {
  // A cluster-scoped resource other than a Namespace is never exempted.
  if (req.namespace === '' && !isNamespaces(req.resource)) return { matches: true };
  if (empty(sel)) return { matches: true };
  if (isNamespaces(req.resource) && req.namespace === req.name) {
    // A Namespace's own labels: the new ones, or the old ones on a delete.
    return { matches: selects(sel, req.objectLabels ?? req.oldObjectLabels) };
  }
  if (req.namespaceLabels === undefined) return { matches: false, error: `namespaces "${req.namespace}" not found` };
  return { matches: selects(sel, req.namespaceLabels) };
}

/** kube's object.Matcher.MatchObjectSelector: the new object or the old one. */
export function matchObject(sel: LabelSelector | undefined, req: MatchRequest): boolean {
  if (empty(sel)) return true;
  return (
    (req.objectLabels !== undefined && selects(sel, req.objectLabels)) ||
    (req.oldObjectLabels !== undefined && selects(sel, req.oldObjectLabels))
  );
}

const exactOrWildcard = (items: string[] | undefined, v: string) => (items ?? []).some((i) => i === '*' || i === v);

/** kube's rules.Matcher.Matches for one rule against `resource`. */
export function ruleMatches(rule: ResourceRule, req: MatchRequest, resource: GVR): boolean {
  const scope = rule.scope ?? '*';
  const clusterRequest = isNamespaces(resource) || req.namespace === '';
  if (scope === 'Namespaced' && clusterRequest) return false;
  if (scope === 'Cluster' && !clusterRequest) return false;
  if (!(rule.operations ?? []).some((op) => op === '*' || op === req.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, resource.group) || !exactOrWildcard(rule.apiVersions, resource.version)) return false;
  return (rule.resources ?? []).some((r) => {
    const slash = r.indexOf('/');
    const [res, sub] = slash < 0 ? [r, ''] : [r.slice(0, slash), r.slice(slash + 1)];
    return (res === '*' || res === resource.resource) && (sub === '*' || sub === req.subresource);
  });
}

function rulesMatch(rules: ResourceRule[], equivalent: boolean, req: MatchRequest): GVR | undefined {
  const named = (rule: ResourceRule) => !rule.resourceNames?.length || rule.resourceNames.includes(req.name);
  for (const rule of rules) if (ruleMatches(rule, req, req.resource) && named(rule)) return req.resource;
  if (!equivalent) return undefined;
  for (const rule of rules) {
    for (const other of req.equivalents ?? []) {
      if (other.group === req.resource.group && other.version === req.resource.version && other.resource === req.resource.resource)
        continue;
      if (ruleMatches(rule, req, other) && named(rule)) return other;
    }
  }
  return undefined;
}

/** kube's matching.Matcher.Matches: whether `mr` selects the request, and as which resource. */
export function matchResources(mr: MatchResources, req: MatchRequest): MatchResult {
  const ns = matchNamespace(mr.namespaceSelector, req);
  if (!ns.matches && !ns.error) return { matches: false };
  if (!matchObject(mr.objectSelector, req)) return { matches: false };
  const equivalent = mr.matchPolicy !== 'Exact' && mr.matchPolicy !== undefined;
  if (rulesMatch(mr.excludeResourceRules ?? [], equivalent, req)) return { matches: false };
  const resource = (mr.resourceRules ?? []).length === 0 ? req.resource : rulesMatch(mr.resourceRules ?? [], equivalent, req);
  if (!resource) return { matches: false };
  if (ns.error) return { matches: false, error: ns.error };
  return { matches: true, resource };
}

export { NAMESPACES };
