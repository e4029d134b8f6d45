// kube's RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go): allow
// when a rule of a binding that applies to the user allows the request,
// with the binding named in the reason; otherwise no opinion, with the
// role-resolution errors met (a binding to a missing role) as the reason.
// Decisions are remembered for the policy they were made under (a few
// thousand, most recent first): every request is authorized, and most are
// the same question again (a node renewing its Lease, a controller's writes).
// Any change to a Role, ClusterRole or binding makes a new policy, and so
// forgets them all.
import { LruCache } from '../../../shared/util/lru-cache.ts';
import type { Authorizer, AuthzAttributes, AuthzResult, NonResourceRule, ResourceRule, RulesResult } from '../authorizer-types.ts';
import type { UserInfo } from '../user-info.ts';
import { ruleAllows } from './evaluation.ts';
import { aggregateErrors, describeSource, type RbacPolicy } from './policy-index.ts';

/** The RBAC authorizer over the policy `current()` returns (re-read on every call, so it follows the store). */
export function rbacAuthorizer(current: () => RbacPolicy): Authorizer & { policy: () => RbacPolicy } {
  let cachedFor: RbacPolicy | undefined;
  let decisions = new LruCache<AuthzResult>(DECISIONS_KEPT);
  const decide = (policy: RbacPolicy, attrs: AuthzAttributes): AuthzResult => {
    let reason = '';
    let errors: string[] | undefined;
    policy.visitRulesFor(attrs.user, attrs.namespace, (source, rule, err) => {
      if (rule && source && ruleAllows(attrs, rule)) {
        reason = `RBAC: allowed by ${describeSource(source)}`;
        return false;
      }
      if (err !== undefined) (errors ??= []).push(err);
      return true;
    });
    if (reason) return { decision: 'allow', reason };
    return { decision: 'noOpinion', reason: errors ? `RBAC: ${aggregateErrors(errors)}` : '' };
  };
  return {
    name: 'RBAC',
    policy: current,
    authorize(attrs: AuthzAttributes): AuthzResult {
      const policy = current();
      if (policy !== cachedFor) {
        cachedFor = policy;
        decisions = new LruCache<AuthzResult>(DECISIONS_KEPT);
      }
      const key = decisionKey(attrs);
      const known = decisions.get(key);
      if (known) return known;
      const result = decide(policy, attrs);
      decisions.set(key, result);
      return result;
    },
    rulesFor(user: UserInfo, namespace: string): RulesResult {
      const { rules, errors } = current().rulesFor(user, namespace);
      const resourceRules: ResourceRule[] = [];
      const nonResourceRules: NonResourceRule[] = [];
      for (const r of rules) {
        if (r.resources?.length) {
          const rr: ResourceRule = { verbs: r.verbs };
          if (r.apiGroups?.length) rr.apiGroups = r.apiGroups;
          rr.resources = r.resources;
          if (r.resourceNames?.length) rr.resourceNames = r.resourceNames;
          resourceRules.push(rr);
        }
        if (r.nonResourceURLs?.length) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
      }
      const out: RulesResult = { resourceRules, nonResourceRules, incomplete: false };
      if (errors.length) out.evaluationError = aggregateErrors(errors);
      return out;
    },
  };
}

/** How many decisions are remembered per policy. */
const DECISIONS_KEPT = 4096;

/** Everything a decision depends on: the user (name, groups; RBAC reads no uid or extra) and the request's attributes. */
function decisionKey(a: AuthzAttributes): string {
  return `${a.user.username}\u0000${a.user.groups.join('\u0001')}\u0000${a.verb}\u0000${a.resourceRequest ? `${a.apiGroup}\u0000${a.resource}\u0000${a.subresource}\u0000${a.namespace}\u0000${a.name}` : a.path}`;
}
