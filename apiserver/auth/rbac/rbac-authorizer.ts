// kube's RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go): allow
// when a rule of a binding that applies to the user allows the request,
// with the binding named in the reason; otherwise no opinion, with the
// role-resolution errors met (a binding to a missing role) as the reason.
import type { Authorizer, AuthzAttributes, AuthzResult, NonResourceRule, ResourceRule, RulesResult } from '../authorizer-types.ts';
import type { UserInfo } from '../user-info.ts';
import { ruleAllows } from './evaluation.ts';
import { aggregateErrors, describeSource, type RbacPolicy } from './policy-index.ts';

/** The RBAC authorizer over the policy `current()` returns (re-read on every call, so it follows the store). */
export function rbacAuthorizer(current: () => RbacPolicy): Authorizer & { policy: () => RbacPolicy } {
  return {
    name: 'RBAC',
    policy: current,
    authorize(attrs: AuthzAttributes): AuthzResult {
      let reason = '';
      let errors: string[] | undefined;
      current().visitRulesFor(attrs.user, attrs.namespace, (source, rule, err) => {
        if (rule && source && ruleAllows(attrs, rule)) {
          reason = `RBAC: allowed by ${describeSource(source)}`;
          return false;
        }
        if (err !== undefined) (errors ??= []).push(err);
        return true;
      });
      if (reason) return { decision: 'allow', reason };
      return { decision: 'noOpinion', reason: errors ? `RBAC: ${aggregateErrors(errors)}` : '' };
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
