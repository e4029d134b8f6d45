import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthzAttributes } from './authorizer-types.ts';
import { forbidden } from './forbidden.ts';

const base: AuthzAttributes = {
  user: { username: 'system:serviceaccount:lab:reader', groups: [] },
  verb: 'delete',
  resourceRequest: true,
  path: '/api/v1/namespaces/lab/pods',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  namespace: 'lab',
  name: '',
};

test('forbidden: kube 403 messages and details', () => {
  const cases: [string, Partial<AuthzAttributes>, string, string, object][] = [
    [
      'namespaced collection',
      {},
      '',
      'pods is forbidden: User "system:serviceaccount:lab:reader" cannot delete resource "pods" in API group "" in the namespace "lab"',
      { kind: 'pods' },
    ],
    [
      'named object with a subresource, and a reason',
      { verb: 'get', name: 'web', subresource: 'log' },
      'no relationship found',
      'pods "web" is forbidden: User "system:serviceaccount:lab:reader" cannot get resource "pods/log" in API group "" in the namespace "lab": no relationship found',
      { kind: 'pods', name: 'web' },
    ],
    [
      'cluster scope, group',
      { verb: 'list', apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespace: '' },
      '',
      'clusterroles.rbac.authorization.k8s.io is forbidden: User "system:serviceaccount:lab:reader" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
      { group: 'rbac.authorization.k8s.io', kind: 'clusterroles' },
    ],
    [
      'non-resource URL',
      { user: { username: 'x', groups: [] }, verb: 'get', resourceRequest: false, path: '/metrics', resource: '', namespace: '' },
      '',
      'forbidden: User "x" cannot get path "/metrics"',
      {},
    ],
  ];
  for (const [why, change, reason, message, details] of cases) {
    const err = forbidden({ ...base, ...change }, reason);
    const s = err.toStatus();
    assert.equal(s.code, 403, why);
    assert.equal(s.reason, 'Forbidden', why);
    assert.equal(s.message, message, why);
    assert.deepEqual(s.details, details, why);
  }
});
