// RoleBinding / ClusterRoleBinding rows, and Role / ClusterRole falling back
// to kube's default Name / Created At table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRoleBinding, RoleBinding } from 'kubernetes-types/rbac/v1.js';
import { clusterRoleBindingPrinter, roleBindingPrinter } from './rbac.ts';

const NOW = new Date('2025-06-01T12:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
const ctx = { now: NOW };

test('rolebinding: Role kind/name and the wide subject columns', () => {
  const rb: RoleBinding = {
    metadata: { name: 'read-pods', namespace: 'dev', creationTimestamp: ago(90) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
    subjects: [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' },
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'joe' },
      { kind: 'ServiceAccount', name: 'default', namespace: 'dev' },
    ],
  };
  assert.deepEqual(roleBindingPrinter.row(rb, ctx).cells, [
    'read-pods',
    'Role/pod-reader',
    '90s',
    'jane, joe',
    'devs',
    'ci/builder, dev/default',
  ]);
  assert.deepEqual(
    roleBindingPrinter.columns.map((c) => `${c.name}:${c.priority}`),
    ['Name:0', 'Role:0', 'Age:0', 'Users:1', 'Groups:1', 'ServiceAccounts:1'],
  );
});

test('clusterrolebinding: no subjects gives empty wide cells', () => {
  const crb: ClusterRoleBinding = {
    metadata: { name: 'cluster-admin', creationTimestamp: ago(30 * 86400) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:masters' }],
  };
  assert.deepEqual(clusterRoleBindingPrinter.row(crb, ctx).cells, [
    'cluster-admin',
    'ClusterRole/cluster-admin',
    '30d',
    '',
    'system:masters',
    '',
  ]);
  const empty: ClusterRoleBinding = {
    metadata: { name: 'e', creationTimestamp: ago(1) },
    roleRef: { apiGroup: '', kind: 'ClusterRole', name: 'view' },
  };
  assert.deepEqual(clusterRoleBindingPrinter.row(empty, ctx).cells, ['e', 'ClusterRole/view', '1s', '', '', '']);
});
