// RBAC's escalation prevention, which kube does in the rbac registries
// (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased
// and validation.ConfirmNoEscalation): a Role or ClusterRole may be written
// only with rules its writer already holds, unless the writer may `escalate`
// it; a binding only to a role whose rules the writer holds, unless the
// writer may `bind` it. system:masters may do anything. Here as an admission
// plugin, since ksim's writes all pass through the admission chain.
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import type { ResourceType } from '../../../shared/api/resource-type.ts';
import { forbidden, qualifiedResource } from '../../../shared/api/errors.ts';
import { goQuote, goQuoteList } from '../../../shared/patch/go-format.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import type { AdmissionAttributes, AdmissionPlugin, Operation } from '../../admission/types.ts';
import type { ObjectToStore, StoredObject } from '../../storage/types.ts';
import type { Authorizer } from '../authorizer-types.ts';
import { MASTERS_GROUP, type UserInfo } from '../user-info.ts';
import { compactRules, compactString, covers } from './covers.ts';
import type { RbacPolicy } from './policy-index.ts';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** What the plugin needs: the authorizer chain (for escalate and bind) and the RBAC policy (for the writer's own rules). */
export type EscalationAuthorizer = Authorizer & { policy(): RbacPolicy };

/**
 * kube's ConfirmNoEscalation: undefined when `user`'s rules in `namespace`
 * cover `rules`, else the message naming what is not held.
 */
export function escalationError(policy: RbacPolicy, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const own = policy.rulesFor(user, namespace);
  const [ok, missing] = covers(own.rules, rules);
  if (ok) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg =
    `user ${goQuote(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n` +
    lines.join('\n');
  if (own.errors.length) msg += `; resolution errors: [${own.errors.join(' ')}]`;
  return msg;
}

/** True when only the fields the garbage collector writes differ (kube's IsOnlyMutatingGCFields). */
function onlyGCFields(obj: ObjectToStore, old: StoredObject | undefined): boolean {
  if (!old) return false;
  const strip = (o: ObjectToStore | StoredObject) => {
    const c = structuredClone(o) as { metadata?: Record<string, unknown> };
    for (const k of ['ownerReferences', 'finalizers', 'resourceVersion', 'managedFields', 'generation']) delete c.metadata?.[k];
    return c;
  };
  return deepEqual(strip(obj), strip(old));
}

/** The admission plugin; `authorizer` is createAuthorizer's chain. */
export function rbacEscalationPlugin(authorizer: EscalationAuthorizer): AdmissionPlugin {
  const allowed = (user: UserInfo, verb: string, resource: string, namespace: string, name: string) =>
    authorizer.authorize({
      user,
      verb,
      resourceRequest: true,
      path: '',
      apiGroup: RBAC_GROUP,
      apiVersion: '*',
      resource,
      subresource: '',
      namespace,
      name,
    }).decision === 'allow';

  return {
    name: 'RBACEscalation',
    // It reads the store and the user: never on a create worker.
    contextual: true,
    appliesTo: (rt: ResourceType) =>
      rt.group === RBAC_GROUP && ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'].includes(rt.plural),
    validate(op: Operation, rt: ResourceType, obj: ObjectToStore, old?: StoredObject, attrs?: AdmissionAttributes): void {
      if (!attrs || (op !== 'CREATE' && op !== 'UPDATE') || attrs.subresource) return;
      if (rt.group !== RBAC_GROUP) return;
      const user = attrs.user;
      if (user.groups.includes(MASTERS_GROUP)) return;
      if (op === 'UPDATE' && onlyGCFields(obj, old)) return;
      const name = obj.metadata?.name ?? attrs.name;
      const namespace = rt.namespaced ? (obj.metadata?.namespace ?? attrs.namespace) : '';
      const gr = qualifiedResource({ group: rt.group, resource: rt.plural });
      const refuse = (why: string) => forbidden(`${gr} ${goQuote(name)} is forbidden: ${why}`, { group: rt.group, kind: rt.plural, name });
      const policy = authorizer.policy();

      if (rt.plural === 'roles' || rt.plural === 'clusterroles') {
        // kube authorizes escalate against the request's name, which a create does not have.
        if (allowed(user, 'escalate', rt.plural, namespace, op === 'CREATE' ? '' : name)) return;
        const role = obj as unknown as Role | ClusterRole;
        const err = escalationError(policy, user, namespace, role.rules ?? []);
        if (err) throw refuse(err);
        const agg = (role as ClusterRole).aggregationRule;
        const oldAgg = (old as unknown as ClusterRole | undefined)?.aggregationRule;
        if (rt.plural === 'clusterroles' && agg && (op === 'CREATE' || !deepEqual(agg, oldAgg))) {
          if (escalationError(policy, user, '', FULL_AUTHORITY))
            throw refuse('must have cluster-admin privileges to use the aggregationRule');
        }
        return;
      }

      const binding = obj as unknown as RoleBinding | ClusterRoleBinding;
      const ref = binding.roleRef;
      const refResource = ref?.kind === 'ClusterRole' ? 'clusterroles' : ref?.kind === 'Role' ? 'roles' : '';
      if (refResource && allowed(user, 'bind', refResource, namespace, ref.name)) return;
      const { rules, error } = policy.roleRefRules(ref, namespace);
      if (error) throw refuse(error);
      const err = escalationError(policy, user, namespace, rules);
      if (err) throw refuse(err);
    },
  };
}
