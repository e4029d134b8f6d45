import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding, Subject } from 'kubernetes-types/rbac/v1.js';
import type { AuthzAttributes } from '../authorizer-types.ts';
import type { UserInfo } from '../user-info.ts';
import { Store } from '../../storage/store.ts';
import { MemoryBackend } from '../../storage/memory-backend.ts';
import { RbacPolicy, RBAC_BUCKETS, storeRbacPolicy } from './policy-index.ts';
import { rbacAuthorizer } from './rbac-authorizer.ts';

const G = 'rbac.authorization.k8s.io';
const cr = (name: string, rules: ClusterRole['rules']): ClusterRole => ({ metadata: { name }, rules });
const role = (ns: string, name: string, rules: Role['rules']): Role => ({ metadata: { namespace: ns, name }, rules });
const crb = (name: string, roleName: string, subjects: Subject[]): ClusterRoleBinding => ({
  metadata: { name },
  roleRef: { apiGroup: G, kind: 'ClusterRole', name: roleName },
  subjects,
});
const rb = (ns: string, name: string, kind: 'Role' | 'ClusterRole', roleName: string, subjects: Subject[]): RoleBinding => ({
  metadata: { namespace: ns, name },
  roleRef: { apiGroup: G, kind, name: roleName },
  subjects,
});
const attrs = (user: UserInfo, verb: string, resource: string, namespace = '', extra: Partial<AuthzAttributes> = {}): AuthzAttributes => ({
  user,
  verb,
  resourceRequest: true,
  path: '',
  apiGroup: '',
  apiVersion: 'v1',
  resource,
  subresource: '',
  namespace,
  name: '',
  ...extra,
});

const policy = new RbacPolicy({
  clusterRoles: [
    cr('view', [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }]),
    cr('health', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]),
  ],
  roles: [role('lab', 'deleter', [{ verbs: ['delete'], apiGroups: [''], resources: ['pods'] }])],
  clusterRoleBindings: [
    crb('readers', 'view', [
      { kind: 'User', apiGroup: G, name: 'alice' },
      { kind: 'Group', apiGroup: G, name: 'readers' },
    ]),
    crb('health', 'health', [{ kind: 'Group', apiGroup: G, name: 'system:unauthenticated' }]),
    crb('broken', 'missing', [{ kind: 'User', apiGroup: G, name: 'carol' }]),
    // A ServiceAccount subject of a ClusterRoleBinding without a namespace matches nobody.
    crb('sa-no-ns', 'view', [{ kind: 'ServiceAccount', name: 'default' }]),
  ],
  roleBindings: [
    rb('lab', 'deleters', 'Role', 'deleter', [{ kind: 'ServiceAccount', name: 'reader' }]),
    rb('lab', 'lab-view', 'ClusterRole', 'view', [{ kind: 'User', apiGroup: G, name: 'bob' }]),
    rb('lab', 'other-sa', 'ClusterRole', 'view', [{ kind: 'ServiceAccount', name: 'x', namespace: 'elsewhere' }]),
  ],
});
const authz = rbacAuthorizer(() => policy);

test('RBAC: bindings, subjects and scope, with kube reason strings', () => {
  const alice = { username: 'alice', groups: ['system:authenticated'] };
  const bob = { username: 'bob', groups: [] };
  const reader = { username: 'system:serviceaccount:lab:reader', groups: ['system:serviceaccounts', 'system:serviceaccounts:lab'] };
  const elsewhere = { username: 'system:serviceaccount:elsewhere:x', groups: [] };
  const cases: [string, AuthzAttributes, string, string][] = [
    [
      'user subject of a ClusterRoleBinding',
      attrs(alice, 'get', 'pods', 'any'),
      'allow',
      'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "view" to User "alice"',
    ],
    [
      'group subject',
      attrs({ username: 'dan', groups: ['readers'] }, 'list', 'pods'),
      'allow',
      'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "view" to Group "readers"',
    ],
    ['verb not granted', attrs(alice, 'delete', 'pods', 'lab'), 'noOpinion', ''],
    [
      'RoleBinding to a ClusterRole, in its namespace',
      attrs(bob, 'get', 'pods', 'lab'),
      'allow',
      'RBAC: allowed by RoleBinding "lab-view/lab" of ClusterRole "view" to User "bob"',
    ],
    ['RoleBinding to a ClusterRole, other namespace', attrs(bob, 'get', 'pods', 'prod'), 'noOpinion', ''],
    ['RoleBinding to a ClusterRole, cluster-wide', attrs(bob, 'list', 'pods'), 'noOpinion', ''],
    [
      'ServiceAccount subject defaults to the binding namespace',
      attrs(reader, 'delete', 'pods', 'lab'),
      'allow',
      'RBAC: allowed by RoleBinding "deleters/lab" of Role "deleter" to ServiceAccount "reader/lab"',
    ],
    [
      'ServiceAccount subject with its own namespace',
      attrs(elsewhere, 'get', 'pods', 'lab'),
      'allow',
      'RBAC: allowed by RoleBinding "other-sa/lab" of ClusterRole "view" to ServiceAccount "x/elsewhere"',
    ],
    [
      'same SA name, other namespace',
      attrs({ username: 'system:serviceaccount:prod:reader', groups: [] }, 'delete', 'pods', 'lab'),
      'noOpinion',
      '',
    ],
    [
      'non-resource URL',
      {
        ...attrs({ username: 'system:anonymous', groups: ['system:unauthenticated'] }, 'get', ''),
        resourceRequest: false,
        path: '/healthz',
      },
      'allow',
      'RBAC: allowed by ClusterRoleBinding "health" of ClusterRole "health" to Group "system:unauthenticated"',
    ],
    [
      'binding to a missing role',
      attrs({ username: 'carol', groups: [] }, 'get', 'pods'),
      'noOpinion',
      'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found',
    ],
  ];
  for (const [why, a, decision, reason] of cases) assert.deepEqual(authz.authorize(a), { decision, reason }, why);
});

test('RBAC rulesFor: cluster rules, then the namespace', () => {
  const r = authz.rulesFor!({ username: 'bob', groups: ['system:unauthenticated'] }, 'lab')!;
  assert.deepEqual(r.resourceRules, [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }]);
  assert.deepEqual(r.nonResourceRules, [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
  assert.equal(r.incomplete, false);
  assert.equal(r.evaluationError, undefined);
  const carol = authz.rulesFor!({ username: 'carol', groups: [] }, 'lab')!;
  assert.equal(carol.evaluationError, 'clusterrole.rbac.authorization.k8s.io "missing" not found');
});

test('storeRbacPolicy follows the store', async () => {
  const store = await Store.open(new MemoryBackend());
  try {
    const current = storeRbacPolicy(store);
    const a = rbacAuthorizer(current);
    const ask = attrs({ username: 'eve', groups: [] }, 'get', 'pods', 'lab');
    assert.equal(a.authorize(ask).decision, 'noOpinion');
    assert.equal(current(), current(), 'not rebuilt while nothing changed');
    await store.txn(`${RBAC_BUCKETS.clusterRoles}/view`, () => cr('view', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]));
    await store.txn(`${RBAC_BUCKETS.roleBindings}/lab/eve`, () =>
      rb('lab', 'eve', 'ClusterRole', 'view', [{ kind: 'User', apiGroup: G, name: 'eve' }]),
    );
    assert.deepEqual(a.authorize(ask), {
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "eve/lab" of ClusterRole "view" to User "eve"',
    });
  } finally {
    await store.close();
  }
});

test('RBAC authorize with ~100 bindings: micro-benchmark', () => {
  const bindings: ClusterRoleBinding[] = [];
  const roleBindings: RoleBinding[] = [];
  const roles: ClusterRole[] = [];
  for (let i = 0; i < 50; i++) {
    roles.push(cr(`role-${i}`, [{ verbs: ['get', 'list'], apiGroups: ['apps'], resources: [`things${i}`] }]));
    bindings.push(
      crb(`b-${i}`, `role-${i}`, [
        { kind: 'User', apiGroup: G, name: `user-${i}` },
        { kind: 'Group', apiGroup: G, name: `group-${i % 7}` },
      ]),
    );
    roleBindings.push(rb(`ns-${i % 10}`, `rb-${i}`, 'ClusterRole', `role-${i}`, [{ kind: 'ServiceAccount', name: `sa-${i}` }]));
  }
  const p = new RbacPolicy({ clusterRoles: roles, clusterRoleBindings: bindings, roleBindings });
  const a = rbacAuthorizer(() => p);
  const sa = { username: 'system:serviceaccount:ns-3:sa-43', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns-3', 'group-2'] };
  const yes = attrs(sa, 'get', 'things43', 'ns-3', { apiGroup: 'apps' });
  const no = attrs(sa, 'delete', 'things43', 'ns-3', { apiGroup: 'apps' });
  assert.equal(a.authorize(yes).decision, 'allow');
  assert.equal(a.authorize(no).decision, 'noOpinion');
  const n = 50_000;
  for (let i = 0; i < n; i++) a.authorize(yes); // warm up
  for (const [label, q] of [
    ['allowed', yes],
    ['refused', no],
  ] as const) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) a.authorize(q);
    const us = Number(process.hrtime.bigint() - t0) / 1000 / n;
    console.log(`# RBAC authorize (100 bindings, ${label}): ${us.toFixed(2)} µs/call`);
  }
});

test('a remembered decision is forgotten when the policy changes: a removed binding stops allowing at once', () => {
  const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };
  let current = policy;
  const az = rbacAuthorizer(() => current);
  const ask = attrs(alice, 'list', 'pods', 'lab');
  assert.equal(az.authorize(ask).decision, 'allow');
  assert.equal(az.authorize(ask).decision, 'allow', 'the same question again');
  current = new RbacPolicy({
    clusterRoles: [cr('view', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])],
    clusterRoleBindings: [],
  });
  assert.equal(az.authorize(ask).decision, 'noOpinion');
  // The same name in other groups is another question.
  current = policy;
  assert.equal(az.authorize({ ...ask, user: { username: 'bob', groups: ['readers'] } }).decision, 'allow');
  assert.equal(az.authorize({ ...ask, user: { username: 'bob', groups: [] } }).decision, 'allow', 'bob may view in lab');
  assert.equal(az.authorize({ ...ask, namespace: 'other', user: { username: 'bob', groups: [] } }).decision, 'noOpinion');
});
