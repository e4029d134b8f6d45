import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../shared/api/errors.ts';
import type { Authorizer, AuthzAttributes } from './authorizer-types.ts';
import { impersonatedUser } from './impersonation.ts';
import type { UserInfo } from './user-info.ts';

const caller: UserInfo = { username: 'alice', groups: ['devs', 'system:authenticated'] };

/** Allows impersonating exactly what `allowed` lists as "resource/name" (or "resource/*"), and records the questions. */
function authorizer(allowed: string[]): Authorizer & { asked: AuthzAttributes[] } {
  const asked: AuthzAttributes[] = [];
  return {
    name: 'test',
    asked,
    authorize(a) {
      asked.push(a);
      const key = `${a.apiGroup}/${a.resource}${a.subresource ? `/${a.subresource}` : ''}${a.namespace ? `@${a.namespace}` : ''}`;
      const ok = a.verb === 'impersonate' && (allowed.includes(`${key}:${a.name}`) || allowed.includes(`${key}:*`));
      return { decision: ok ? 'allow' : 'noOpinion', reason: '' };
    },
  };
}

test('no impersonation headers: no impersonated user, nothing asked', () => {
  const az = authorizer([]);
  assert.equal(impersonatedUser({ accept: 'application/json' }, caller, az), undefined);
  assert.equal(az.asked.length, 0);
});

test('a user with groups, uid and extra, each part authorized', () => {
  const az = authorizer(['/users:bob', '/groups:ops', 'authentication.k8s.io/uids:42', 'authentication.k8s.io/userextras/scopes:view']);
  const user = impersonatedUser(
    { 'impersonate-user': 'bob', 'impersonate-group': 'ops', 'impersonate-uid': '42', 'impersonate-extra-scopes': 'view' },
    caller,
    az,
  );
  assert.deepEqual(user, { username: 'bob', uid: '42', groups: ['ops', 'system:authenticated'], extra: { scopes: ['view'] } });
  assert.ok(az.asked.every((a) => a.user === caller && a.verb === 'impersonate'));
});

test('a ServiceAccount is checked as serviceaccounts in its namespace and gets its groups', () => {
  const az = authorizer(['/serviceaccounts@lab:reader']);
  const user = impersonatedUser({ 'impersonate-user': 'system:serviceaccount:lab:reader' }, caller, az);
  assert.deepEqual(user?.groups, ['system:serviceaccounts', 'system:serviceaccounts:lab', 'system:authenticated']);
});

test('impersonating the anonymous user gives system:unauthenticated', () => {
  const user = impersonatedUser({ 'impersonate-user': 'system:anonymous' }, caller, authorizer(['/users:system:anonymous']));
  assert.deepEqual(user?.groups, ['system:unauthenticated']);
});

test('what the caller may not impersonate is a 403 naming it, and nothing is impersonated', () => {
  const az = authorizer(['/users:bob']);
  assert.throws(
    () => impersonatedUser({ 'impersonate-user': 'bob', 'impersonate-group': 'system:masters' }, caller, az),
    (err: unknown) =>
      err instanceof StatusError &&
      err.code === 403 &&
      /groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope/.test(
        err.message,
      ),
  );
  assert.throws(() => impersonatedUser({ 'impersonate-user': 'carol' }, caller, az), /users "carol" is forbidden/);
});

test('groups without a user are a 400', () => {
  assert.throws(
    () => impersonatedUser({ 'impersonate-group': 'ops' }, caller, authorizer(['/groups:ops'])),
    (err: unknown) => err instanceof StatusError && err.code === 400,
  );
});
