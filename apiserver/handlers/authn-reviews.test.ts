import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../shared/api/errors.ts';
import { encodeKubeProtobuf, KUBE_PROTOBUF_CONTENT_TYPE } from '../../shared/api/protobuf/index.ts';
import { findResource } from '../../shared/api/resources.ts';
import { makeWorld } from '../auth/authn/test-fixtures.ts';
import type { UserInfo } from '../auth/user-info.ts';
import { handleSelfSubjectReview, handleTokenReview } from './authn-reviews.ts';
import type { ApiContext, ApiRequest } from './context.ts';

function request(plural: string, body: object, opts: { user?: UserInfo; protobuf?: boolean; namespace?: string } = {}): ApiRequest {
  const resource = findResource('authentication.k8s.io', 'v1', plural)!;
  const full = { apiVersion: 'authentication.k8s.io/v1', kind: resource.kind, metadata: {}, ...body };
  return {
    info: { verb: 'create', resource, namespace: opts.namespace ?? '', name: '', subresource: '' },
    user: opts.user ?? { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    query: new URLSearchParams(),
    contentType: opts.protobuf ? KUBE_PROTOBUF_CONTENT_TYPE : 'application/json',
    body: () => Promise.resolve(opts.protobuf ? encodeKubeProtobuf(full) : Buffer.from(JSON.stringify(full))),
  } as unknown as ApiRequest;
}

test('SelfSubjectReview answers the caller, from a protobuf body as kubectl auth whoami sends it', async () => {
  const ctx = { now: () => new Date('2026-01-01T00:00:00Z') } as unknown as ApiContext;
  const user: UserInfo = {
    username: 'system:serviceaccount:lab:reader',
    uid: 'u-1',
    groups: ['system:serviceaccounts', 'system:serviceaccounts:lab', 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/pod-name': ['web'] },
  };
  for (const protobuf of [false, true]) {
    const res = await handleSelfSubjectReview(ctx, request('selfsubjectreviews', {}, { user, protobuf }));
    assert.equal(res.status, 201);
    assert.deepEqual(JSON.parse(res.json), {
      kind: 'SelfSubjectReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { creationTimestamp: '2026-01-01T00:00:00Z' },
      status: { userInfo: user },
    });
  }
  const anon = await handleSelfSubjectReview(ctx, request('selfsubjectreviews', {}));
  assert.deepEqual((JSON.parse(anon.json) as { status: unknown }).status, {
    userInfo: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
  });
});

test('TokenReview: authenticated tokens, refused ones with their error, audiences, and the required token', async () => {
  const w = await makeWorld();
  try {
    const ctx = { store: w.store, now: () => w.clock.now } as unknown as ApiContext;
    const uid = await w.put('serviceaccounts', 'lab', 'reader');
    const issue = (audiences: string[]) =>
      w.authn.issueServiceAccountToken({
        namespace: 'lab',
        serviceAccountName: 'reader',
        serviceAccountUid: uid,
        audiences,
        expirationSeconds: 600,
      });
    const review = async (spec: object, protobuf = false) => {
      const res = await handleTokenReview(ctx, request('tokenreviews', { spec }, { protobuf }), w.authn);
      assert.equal(res.status, 201);
      return JSON.parse(res.json) as { spec: unknown; status: Record<string, unknown> };
    };
    const { token } = await issue(w.authn.apiAudiences);
    const ok = await review({ token });
    assert.deepEqual(ok.status.user, {
      username: 'system:serviceaccount:lab:reader',
      uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:lab', 'system:authenticated'],
      extra: {
        'authentication.kubernetes.io/credential-id': [
          (ok.status.user as { extra: Record<string, string[]> }).extra['authentication.kubernetes.io/credential-id'][0],
        ],
      },
    });
    assert.equal(ok.status.authenticated, true);
    assert.deepEqual(ok.status.audiences, ['https://kubernetes.default.svc.cluster.local']);

    const vault = (await issue(['vault'])).token;
    const forVault = await review({ token: vault, audiences: ['vault', 'other'] });
    assert.equal(forVault.status.authenticated, true);
    assert.deepEqual(forVault.status.audiences, ['vault']);
    assert.deepEqual(forVault.spec, { token: vault, audiences: ['vault', 'other'] });

    const wrong = await review({ token: vault });
    assert.deepEqual(wrong.status, {
      user: {},
      error: 'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]',
    });
    assert.deepEqual((await review({ token: 'garbage' })).status, { user: {}, error: 'invalid bearer token' });
    await w.remove('serviceaccounts', 'lab', 'reader');
    assert.deepEqual((await review({ token })).status, { user: {}, error: 'serviceaccounts "reader" not found' });

    await assert.rejects(handleTokenReview(ctx, request('tokenreviews', { spec: {} }), w.authn), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 400);
      assert.equal(err.message, 'token is required for TokenReview in authentication');
      return true;
    });
  } finally {
    await w.close();
  }
});
