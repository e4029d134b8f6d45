import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findResource } from '../../shared/api/resources.ts';
import { StatusError } from '../../shared/api/errors.ts';
import type { Authorizer, AuthzAttributes } from '../auth/authorizer-types.ts';
import type { UserInfo } from '../auth/user-info.ts';
import type { ApiContext, ApiRequest } from './context.ts';
import { handleReview, isReview } from './reviews.ts';

// An authorizer that allows alice to get pods in lab and records what it was asked.
const asked: AuthzAttributes[] = [];
const authorizer: Authorizer = {
  name: 'test',
  authorize(a) {
    asked.push(a);
    if (a.user.username === 'alice' && a.verb === 'get' && a.resource === 'pods' && a.namespace === 'lab') {
      return { decision: 'allow', reason: 'RBAC: allowed by RoleBinding "r/lab" of Role "pods" to User "alice"' };
    }
    if (a.user.username === 'mallory') return { decision: 'deny', reason: 'denied' };
    return { decision: 'noOpinion', reason: '' };
  },
  rulesFor: (user, ns) => ({
    resourceRules: user.username === 'alice' && ns === 'lab' ? [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] : [],
    nonResourceRules: [],
    incomplete: false,
  }),
};
const ctx = { authorizer } as unknown as ApiContext;
const alice: UserInfo = { username: 'alice', groups: ['system:authenticated'] };

function request(plural: string, body: unknown, namespace = '', user = alice): ApiRequest {
  const group = plural === 'selfsubjectreviews' ? 'authentication.k8s.io' : 'authorization.k8s.io';
  const resource = findResource(group, 'v1', plural)!;
  return {
    info: { verb: 'create', resource, namespace, name: '', subresource: '' },
    user,
    query: new URLSearchParams(),
    contentType: 'application/json',
    body: () => Promise.resolve(Buffer.from(JSON.stringify(body))),
  } as unknown as ApiRequest;
}

async function review(plural: string, body: object, namespace = '', user = alice) {
  const kind = findResource(plural === 'selfsubjectreviews' ? 'authentication.k8s.io' : 'authorization.k8s.io', 'v1', plural)!.kind;
  const res = await handleReview(ctx, request(plural, { apiVersion: 'authorization.k8s.io/v1', kind, ...body }, namespace, user));
  assert.equal(res.status, 201);
  return JSON.parse(res.json) as { spec: unknown; status: Record<string, unknown>; metadata: unknown };
}

async function refusal(plural: string, body: object, namespace = ''): Promise<StatusError> {
  try {
    await review(plural, body, namespace);
  } catch (err) {
    assert.ok(err instanceof StatusError);
    return err;
  }
  assert.fail('expected a refusal');
}

test('isReview', () => {
  assert.equal(isReview('authorization.k8s.io', 'subjectaccessreviews'), true);
  assert.equal(isReview('authorization.k8s.io', 'localsubjectaccessreviews'), true);
  assert.equal(isReview('authentication.k8s.io', 'tokenreviews'), false);
});

test('SelfSubjectAccessReview asks about the caller', async () => {
  const spec = { resourceAttributes: { namespace: 'lab', verb: 'get', resource: 'pods' } };
  const yes = await review('selfsubjectaccessreviews', { spec });
  assert.deepEqual(yes.status, { allowed: true, reason: 'RBAC: allowed by RoleBinding "r/lab" of Role "pods" to User "alice"' });
  assert.deepEqual(yes.spec, spec);
  assert.deepEqual(yes.metadata, { creationTimestamp: null });
  assert.equal(asked.at(-1)?.apiVersion, '*', 'an empty version matches all');
  const no = await review('selfsubjectaccessreviews', {
    spec: { resourceAttributes: { namespace: 'prod', verb: 'get', resource: 'pods' } },
  });
  assert.deepEqual(no.status, { allowed: false });
  const url = await review('selfsubjectaccessreviews', { spec: { nonResourceAttributes: { path: '/metrics', verb: 'get' } } });
  assert.deepEqual(url.status, { allowed: false });
  assert.equal(asked.at(-1)?.resourceRequest, false);
  assert.equal(asked.at(-1)?.path, '/metrics');
  const denied = await review('selfsubjectaccessreviews', { spec }, '', { username: 'mallory', groups: [] });
  assert.deepEqual(denied.status, { allowed: false, denied: true, reason: 'denied' });
  const err = await refusal('selfsubjectaccessreviews', { spec: {} });
  assert.equal(err.code, 422);
  assert.equal(
    err.message,
    'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
  );
});

test('SubjectAccessReview and LocalSubjectAccessReview ask about the user in the spec', async () => {
  const sar = await review('subjectaccessreviews', {
    spec: { user: 'alice', groups: ['g'], resourceAttributes: { namespace: 'lab', verb: 'get', resource: 'pods' } },
  });
  assert.equal(sar.status.allowed, true);
  assert.deepEqual(asked.at(-1)?.user, { username: 'alice', groups: ['g'] });
  const noUser = await refusal('subjectaccessreviews', { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } });
  assert.equal(
    noUser.message,
    'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
  );
  const local = await review(
    'localsubjectaccessreviews',
    { spec: { user: 'alice', resourceAttributes: { namespace: 'lab', verb: 'get', resource: 'pods' } } },
    'lab',
  );
  assert.equal(local.status.allowed, true);
  const mismatch = await refusal(
    'localsubjectaccessreviews',
    { spec: { user: 'alice', resourceAttributes: { namespace: 'prod', verb: 'get', resource: 'pods' } } },
    'lab',
  );
  assert.equal(
    mismatch.message,
    'LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "prod": must match metadata.namespace',
  );
  const otherNs = await refusal(
    'localsubjectaccessreviews',
    { metadata: { namespace: 'prod' }, spec: { user: 'alice', resourceAttributes: { namespace: 'prod', verb: 'get', resource: 'pods' } } },
    'lab',
  );
  assert.equal(otherNs.code, 400);
  assert.equal(otherNs.message, 'the namespace of the provided object does not match the namespace sent on the request');
});

test('SelfSubjectRulesReview lists the caller rules in a namespace', async () => {
  const r = await review('selfsubjectrulesreviews', { spec: { namespace: 'lab' } });
  assert.deepEqual(r.spec, {});
  assert.deepEqual(r.status, {
    resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    nonResourceRules: [],
    incomplete: false,
  });
  const err = await refusal('selfsubjectrulesreviews', { spec: {} });
  assert.equal(err.code, 400);
  assert.equal(err.message, 'no namespace on request');
});
