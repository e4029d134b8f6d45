import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { StatusError } from '../../shared/api/errors.ts';
import { parseRequestUrl } from '../http/request-url.ts';
import { AuthenticationError, type Authenticated, type AuthnRequest } from './authenticator-types.ts';
import type { Authorizer } from './authorizer-types.ts';
import { RequestPath } from './request-path.ts';
import { ANONYMOUS } from './user-info.ts';

const alice = { username: 'alice', groups: ['system:authenticated'] };

function request(
  path: string,
  headers: Record<string, string> = {},
  socket: object = {},
): [IncomingMessage, ReturnType<typeof parseRequestUrl>] {
  return [{ method: 'GET', url: path, headers, socket } as unknown as IncomingMessage, parseRequestUrl(path)];
}

/** Authenticates "Bearer good" as alice, refuses any other token, and counts its calls. */
function authenticator() {
  const calls: AuthnRequest[] = [];
  return {
    calls,
    authenticate(req: AuthnRequest): Promise<Authenticated> {
      calls.push(req);
      const auth = req.headers.authorization;
      if (auth === undefined) return Promise.resolve({ user: ANONYMOUS, authenticator: 'anonymous' });
      if (auth === 'Bearer good') return Promise.resolve({ user: alice, authenticator: 'token' });
      return Promise.reject(new AuthenticationError('invalid bearer token'));
    },
  };
}

/** Allows only `get` of pods and non-resource gets. */
const authorizer: Authorizer = {
  name: 'test',
  authorize: (a) =>
    (a.resourceRequest ? a.verb === 'get' && a.resource === 'pods' : a.verb === 'get')
      ? { decision: 'allow', reason: 'test allows' }
      : { decision: 'noOpinion', reason: '' },
};

const status = (code: number) => (err: unknown) => err instanceof StatusError && err.code === code;

test('no credentials: anonymous on the public paths only, 401 elsewhere', async () => {
  const path = new RequestPath({ ...authenticator(), authorizer });
  const who = await path.admit(...request('/livez'));
  assert.equal(who.user.username, 'system:anonymous');
  await assert.rejects(path.admit(...request('/api/v1/namespaces/a/pods/p')), status(401));
  await assert.rejects(path.admit(...request('/metrics')), status(401));
});

test('bad credentials are a 401 even on a public path', async () => {
  const path = new RequestPath({ ...authenticator(), authorizer });
  await assert.rejects(path.admit(...request('/livez', { authorization: 'Bearer forged' })), status(401));
});

test("an authenticated request is authorized on its attributes: allowed with the reason, or 403 with kube's message", async () => {
  const path = new RequestPath({ ...authenticator(), authorizer });
  const who = await path.admit(...request('/api/v1/namespaces/a/pods/p', { authorization: 'Bearer good' }));
  assert.equal(who.user, alice);
  assert.equal(who.attrs.verb, 'get');
  assert.equal(who.reason, 'test allows');
  await assert.rejects(
    path.admit(...request('/api/v1/namespaces/a/pods', { authorization: 'Bearer good' })),
    (err: unknown) =>
      status(403)(err) &&
      (err as Error).message === 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "a"',
  );
});

test('a TLS connection is authenticated once; a bearer token on it is authenticated every time', async () => {
  const authn = authenticator();
  const certUser = { user: { username: 'bob', groups: ['system:authenticated'] }, authenticator: 'x509' };
  let calls = 0;
  const path = new RequestPath({
    authenticate: (req) => {
      calls++;
      return req.headers.authorization ? authn.authenticate(req) : Promise.resolve(certUser);
    },
    authorizer,
  });
  const socket = { encrypted: true };
  await path.admit(...request('/api/v1/namespaces/a/pods/p', {}, socket));
  await path.admit(...request('/api/v1/namespaces/a/pods/p', {}, socket));
  assert.equal(calls, 1);
  await path.admit(...request('/api/v1/namespaces/a/pods/p', { authorization: 'Bearer good' }, socket));
  await path.admit(...request('/api/v1/namespaces/a/pods/p', { authorization: 'Bearer good' }, socket));
  assert.equal(calls, 3);
});
