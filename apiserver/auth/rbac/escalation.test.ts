import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, Role, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { findResource } from '../../../shared/api/resources.ts';
import { StatusError } from '../../../shared/api/errors.ts';
import type { AdmissionAttributes } from '../../admission/types.ts';
import type { ObjectToStore } from '../../storage/types.ts';
import type { UserInfo } from '../user-info.ts';
import { RbacPolicy } from './policy-index.ts';
import { rbacAuthorizer } from './rbac-authorizer.ts';
import { rbacEscalationPlugin } from './escalation.ts';

const G = 'rbac.authorization.k8s.io';
const rt = (plural: string) => findResource(G, 'v1', plural)!;
const policy = new RbacPolicy({
  clusterRoles: [
    { metadata: { name: 'pod-reader' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] },
    { metadata: { name: 'secret-admin' }, rules: [{ verbs: ['*'], apiGroups: [''], resources: ['secrets'] }] },
    {
      metadata: { name: 'role-writer' },
      rules: [{ verbs: ['create', 'update'], apiGroups: [G], resources: ['roles', 'rolebindings', 'clusterroles'] }],
    },
    { metadata: { name: 'escalator' }, rules: [{ verbs: ['escalate'], apiGroups: [G], resources: ['roles'] }] },
    {
      metadata: { name: 'binder' },
      rules: [{ verbs: ['bind'], apiGroups: [G], resources: ['clusterroles'], resourceNames: ['secret-admin'] }],
    },
  ],
  roleBindings: [
    {
      metadata: { namespace: 'lab', name: 'a' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'pod-reader' },
      subjects: [{ kind: 'User', name: 'u' }],
    },
    {
      metadata: { namespace: 'lab', name: 'b' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'role-writer' },
      subjects: [{ kind: 'User', name: 'u' }],
    },
    {
      metadata: { namespace: 'lab', name: 'c' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'escalator' },
      subjects: [{ kind: 'User', name: 'esc' }],
    },
    {
      metadata: { namespace: 'lab', name: 'd' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'binder' },
      subjects: [{ kind: 'User', name: 'binder' }],
    },
  ],
});
const plugin = rbacEscalationPlugin(rbacAuthorizer(() => policy));
const attrsOf = (user: UserInfo, op: 'CREATE' | 'UPDATE' = 'CREATE'): AdmissionAttributes => ({
  operation: op,
  user,
  namespace: 'lab',
  name: '',
  subresource: '',
  dryRun: false,
});
const u = { username: 'u', groups: ['system:authenticated'] };
const roleObj = (rules: Role['rules']): ObjectToStore => ({ metadata: { namespace: 'lab', name: 'r' }, rules }) as ObjectToStore;
const bindingTo = (kind: string, name: string): ObjectToStore =>
  ({
    metadata: { namespace: 'lab', name: 'rb' },
    roleRef: { apiGroup: G, kind, name },
    subjects: [{ kind: 'User', name: 'x' }],
  }) as RoleBinding;

function refusal(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 403);
    return err.message;
  }
}

test('escalation: roles may only grant what the writer holds', () => {
  const v = (obj: ObjectToStore, user: UserInfo, plural = 'roles') =>
    refusal(() => plugin.validate!('CREATE', rt(plural), obj, undefined, attrsOf(user)));
  assert.equal(v(roleObj([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), u), undefined);
  assert.equal(
    v(roleObj([{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods', 'secrets'] }]), u),
    'roles.rbac.authorization.k8s.io "r" is forbidden: user "u" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
  );
  assert.equal(v(roleObj([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), { username: 'esc', groups: [] }), undefined, 'escalate');
  assert.equal(
    v(roleObj([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), { username: 'root', groups: ['system:masters'] }),
    undefined,
  );
  const agg = {
    metadata: { name: 'agg' },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] },
  } as ClusterRole as ObjectToStore;
  assert.equal(
    v(agg, u, 'clusterroles'),
    'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule',
  );
  assert.equal(
    refusal(() => plugin.validate!('CREATE', rt('roles'), roleObj([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]))),
    undefined,
    'no request',
  );
});

test('escalation: bindings need the role held, or bind', () => {
  const v = (obj: ObjectToStore, user: UserInfo) =>
    refusal(() => plugin.validate!('CREATE', rt('rolebindings'), obj, undefined, attrsOf(user)));
  assert.equal(v(bindingTo('ClusterRole', 'pod-reader'), u), undefined);
  assert.equal(
    v(bindingTo('ClusterRole', 'secret-admin'), u),
    'rolebindings.rbac.authorization.k8s.io "rb" is forbidden: user "u" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
      '{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}',
  );
  assert.equal(v(bindingTo('ClusterRole', 'secret-admin'), { username: 'binder', groups: [] }), undefined, 'bind on that role');
  assert.equal(
    v(bindingTo('Role', 'nope'), u),
    'rolebindings.rbac.authorization.k8s.io "rb" is forbidden: role.rbac.authorization.k8s.io "nope" not found',
  );
});
