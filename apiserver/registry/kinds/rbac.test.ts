import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted, invalidMessage } from './testing.ts';

const RB = 'rbac.authorization.k8s.io/rolebindings';
const CRB = 'rbac.authorization.k8s.io/clusterrolebindings';

describe('RBAC defaults', () => {
  it('fills roleRef and subject apiGroups', () => {
    const b = defaulted(RB, {
      metadata: { name: 'b' },
      roleRef: { kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'sa', namespace: 'x' },
      ],
    });
    assert.deepEqual(b.roleRef, { kind: 'Role', name: 'r', apiGroup: 'rbac.authorization.k8s.io' });
    assert.deepEqual(
      b.subjects.map((s: any) => s.apiGroup),
      ['rbac.authorization.k8s.io', 'rbac.authorization.k8s.io', ''],
    );
  });
});

describe('RBAC validation', () => {
  const binding = (over: any) => ({
    metadata: { name: 'b', namespace: 'default' },
    roleRef: { kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', name: 'alice' }],
    ...over,
  });
  it('valid binding', () => assert.equal(invalidMessage(RB, 'RoleBinding', 'rbac.authorization.k8s.io', binding({})), ''));
  it('roleRef required', () =>
    assert.equal(
      invalidMessage(RB, 'RoleBinding', 'rbac.authorization.k8s.io', binding({ roleRef: undefined })),
      'RoleBinding.rbac.authorization.k8s.io "b" is invalid: [roleRef.kind: Unsupported value: "": supported values: "Role", "ClusterRole", roleRef.name: Required value]',
    ));
  it('ClusterRoleBinding may only bind ClusterRoles', () =>
    assert.equal(
      invalidMessage(CRB, 'ClusterRoleBinding', 'rbac.authorization.k8s.io', binding({ roleRef: { kind: 'Role', name: 'r' } })),
      'ClusterRoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
    ));
  it('cluster-scoped ServiceAccount subjects need a namespace', () =>
    assert.equal(
      invalidMessage(
        CRB,
        'ClusterRoleBinding',
        'rbac.authorization.k8s.io',
        binding({ subjects: [{ kind: 'ServiceAccount', name: 'sa' }] }),
      ),
      'ClusterRoleBinding.rbac.authorization.k8s.io "b" is invalid: subjects[0].namespace: Required value',
    ));
  it('bad subject kind', () =>
    assert.equal(
      invalidMessage(RB, 'RoleBinding', 'rbac.authorization.k8s.io', binding({ subjects: [{ kind: 'Robot', name: 'r2' }] })),
      'RoleBinding.rbac.authorization.k8s.io "b" is invalid: subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ));
  it('roleRef may not change', () => {
    const old = defaulted(RB, binding({}));
    assert.equal(
      invalidMessage(RB, 'RoleBinding', 'rbac.authorization.k8s.io', binding({ roleRef: { kind: 'ClusterRole', name: 'edit' } }), old),
      'RoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    );
  });
  it('rules need verbs, groups and resources', () =>
    assert.equal(
      invalidMessage('rbac.authorization.k8s.io/roles', 'Role', 'rbac.authorization.k8s.io', { metadata: { name: 'r' }, rules: [{}] }),
      'Role.rbac.authorization.k8s.io "r" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[0].resources: Required value: resource rules must supply at least one resource]',
    ));
  it('namespaced rules cannot use non-resource URLs', () =>
    assert.equal(
      invalidMessage('rbac.authorization.k8s.io/roles', 'Role', 'rbac.authorization.k8s.io', {
        metadata: { name: 'r' },
        rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      }),
      'Role.rbac.authorization.k8s.io "r" is invalid: rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs',
    ));
  it('cluster roles may', () =>
    assert.equal(
      invalidMessage('rbac.authorization.k8s.io/clusterroles', 'ClusterRole', 'rbac.authorization.k8s.io', {
        metadata: { name: 'r' },
        rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      }),
      '',
    ));
});
