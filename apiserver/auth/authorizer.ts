// The authorizer chain kube-apiserver runs with --authorization-mode=Node,RBAC:
// members of system:masters are always allowed (kube's privileged-group
// authorizer), then the Node authorizer, then RBAC. The first allow or deny
// wins; otherwise no opinion (a 403), with the reasons the authorizers gave,
// one per line (kube's union authorizer). Synchronous: RBAC reads an index of
// bindings rebuilt only when the rbac buckets change, the Node authorizer a
// pod graph brought up to date only when the pods bucket changed.
import type { Store } from '../storage/store.ts';
import type { Authorizer, AuthzAttributes, AuthzResult, RulesResult } from './authorizer-types.ts';
import { MASTERS_GROUP, type UserInfo } from './user-info.ts';
import { nodeAuthorizer } from './node/node-authorizer.ts';
import { storePodGraph } from './node/pod-graph.ts';
import { NODE_RULES } from './rbac/bootstrap-policy.ts';
import { storeRbacPolicy, type RbacPolicy } from './rbac/policy-index.ts';
import { rbacAuthorizer } from './rbac/rbac-authorizer.ts';

/** Options of the chain. */
export interface AuthorizerOptions {
  /** Which authorizers run, in order (default Node, RBAC: kube's --authorization-mode). */
  modes?: ('Node' | 'RBAC')[];
}

/** The chain, with the RBAC policy it reads (for escalation checks) and its members. */
export type AuthorizerChain = Authorizer & { policy(): RbacPolicy; members: Authorizer[] };

const privileged: Authorizer = {
  name: 'PrivilegedGroup',
  authorize: (attrs) =>
    attrs.user.groups.includes(MASTERS_GROUP) ? { decision: 'allow', reason: '' } : { decision: 'noOpinion', reason: '' },
};

/** Chains `members` as kube's union authorizer does. */
export function unionAuthorizer(members: Authorizer[]): Authorizer {
  return {
    name: members.map((m) => m.name).join(','),
    authorize(attrs: AuthzAttributes): AuthzResult {
      let reasons: string[] | undefined;
      for (const m of members) {
        const r = m.authorize(attrs);
        if (r.decision !== 'noOpinion') return r;
        if (r.reason) (reasons ??= []).push(r.reason);
      }
      return { decision: 'noOpinion', reason: reasons ? reasons.join('\n') : '' };
    },
    rulesFor(user: UserInfo, namespace: string): RulesResult {
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const m of members) {
        const r = m.rulesFor?.(user, namespace);
        if (!r) continue;
        out.resourceRules.push(...r.resourceRules);
        out.nonResourceRules.push(...r.nonResourceRules);
        out.incomplete ||= r.incomplete;
        if (r.evaluationError) errors.push(r.evaluationError);
      }
      if (errors.length) out.evaluationError = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
      return out;
    },
  };
}

/** kube-apiserver's authorizer for `store`'s RBAC objects and Pods. */
export function createAuthorizer(store: Store, opts: AuthorizerOptions = {}): AuthorizerChain {
  const policy = storeRbacPolicy(store);
  const modes = opts.modes ?? ['Node', 'RBAC'];
  const members: Authorizer[] = [privileged];
  for (const mode of modes) {
    if (mode === 'Node') members.push(nodeAuthorizer(storePodGraph(store), NODE_RULES, (key) => store.get(key)?.json));
    else members.push(rbacAuthorizer(policy));
  }
  const union = unionAuthorizer(members);
  return { ...union, name: modes.join(','), policy, members };
}
