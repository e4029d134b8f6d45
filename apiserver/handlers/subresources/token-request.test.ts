import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import { StatusError } from '../../../shared/api/errors.ts';
import { encodeKubeProtobuf, KUBE_PROTOBUF_CONTENT_TYPE } from '../../../shared/api/protobuf/index.ts';
import { findResource } from '../../../shared/api/resources.ts';
import { makeWorld, type World } from '../../auth/authn/test-fixtures.ts';
import type { ApiContext, ApiRequest } from '../context.ts';
import { handleTokenRequest } from './token-request.ts';

const SA = findResource('', 'v1', 'serviceaccounts')!;

function request(name: string, body: unknown, query = '', protobuf = false): ApiRequest {
  return {
    info: { verb: 'create', resource: SA, namespace: 'lab', name, subresource: 'token' },
    user: { username: 'admin', groups: ['system:masters'] },
    query: new URLSearchParams(query),
    contentType: protobuf ? KUBE_PROTOBUF_CONTENT_TYPE : 'application/json',
    body: () => Promise.resolve(protobuf ? encodeKubeProtobuf(body) : Buffer.from(JSON.stringify(body))),
  } as unknown as ApiRequest;
}

async function withWorld(fn: (w: World, ctx: ApiContext) => Promise<void>, opts: Parameters<typeof makeWorld>[0] = {}) {
  const w = await makeWorld(opts);
  const ctx = { store: w.store, now: () => w.clock.now } as unknown as ApiContext;
  try {
    await fn(w, ctx);
  } finally {
    await w.close();
  }
}

/** The body kubectl create token sends. */
const kubectlBody = (spec: Record<string, unknown>) => ({
  kind: 'TokenRequest',
  apiVersion: 'authentication.k8s.io/v1',
  metadata: { creationTimestamp: null },
  spec: { audiences: null, expirationSeconds: null, boundObjectRef: null, ...spec },
  status: { token: '', expirationTimestamp: null },
});

test('kubectl create token NAME --duration 10m --audience foo', async () => {
  await withWorld(async (w, ctx) => {
    const uid = await w.put('serviceaccounts', 'lab', 'reader');
    const res = await handleTokenRequest(ctx, request('reader', kubectlBody({ audiences: ['foo'], expirationSeconds: 600 })), w.authn);
    assert.equal(res.status, 201);
    const out = JSON.parse(res.json) as { metadata: object; spec: object; status: { token: string; expirationTimestamp: string } };
    assert.deepEqual(out.metadata, { name: 'reader', namespace: 'lab', uid, creationTimestamp: '2026-01-01T00:00:00Z' });
    assert.deepEqual(out.spec, { audiences: ['foo'], expirationSeconds: 600, boundObjectRef: null });
    assert.equal(out.status.expirationTimestamp, '2026-01-01T00:10:00Z');
    const claims = decodeJwt(out.status.token);
    assert.deepEqual(claims.aud, ['foo']);
    assert.equal(claims.exp! - claims.iat!, 600);
    // The token is for foo: the apiserver itself does not take it, a TokenReview for foo does.
    await assert.rejects(
      w.authn.authenticate({ headers: { authorization: `Bearer ${out.status.token}` } }),
      /is invalid for the target audiences/,
    );
    assert.equal((await w.authn.authenticateToken(out.status.token, ['foo'])).user.uid, uid);
  });
});

test('defaults: an hour, the API audiences; the token authenticates; a dry run checks the same and answers a token as kube', async () => {
  await withWorld(async (w, ctx) => {
    await w.put('serviceaccounts', 'lab', 'reader');
    for (const query of ['', 'dryRun=All']) {
      const out = JSON.parse((await handleTokenRequest(ctx, request('reader', {}, query), w.authn)).json) as {
        spec: { audiences: string[]; expirationSeconds: number };
        status: { token: string };
      };
      assert.deepEqual(out.spec.audiences, ['https://kubernetes.default.svc.cluster.local']);
      assert.equal(out.spec.expirationSeconds, 3600);
      assert.equal(
        (await w.authn.authenticate({ headers: { authorization: `Bearer ${out.status.token}` } })).user.username,
        'system:serviceaccount:lab:reader',
      );
    }
    await assert.rejects(handleTokenRequest(ctx, request('reader', {}, 'dryRun=Some'), w.authn), { code: 400 });
  });
});

test('a Pod-bound token request: the Pod must exist, run as the ServiceAccount and match the uid asked for', async () => {
  await withWorld(async (w, ctx) => {
    await w.put('serviceaccounts', 'lab', 'reader');
    await w.put('nodes', '', 'n1');
    const podUid = await w.put('pods', 'lab', 'web', { spec: { serviceAccountName: 'reader', nodeName: 'n1' } });
    await w.put('pods', 'lab', 'other', { spec: { serviceAccountName: 'default' } });
    const ref = { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: podUid };
    const out = JSON.parse((await handleTokenRequest(ctx, request('reader', kubectlBody({ boundObjectRef: ref })), w.authn)).json) as {
      spec: { boundObjectRef: unknown };
      status: { token: string };
    };
    assert.deepEqual(out.spec.boundObjectRef, ref);
    const k8s = decodeJwt(out.status.token)['kubernetes.io'] as { pod: unknown; node: { name: string } };
    assert.deepEqual(k8s.pod, { name: 'web', uid: podUid });
    assert.equal(k8s.node.name, 'n1');
  });
});

test('refusals carry kube status codes and messages', async () => {
  await withWorld(
    async (w, ctx) => {
      await w.put('serviceaccounts', 'lab', 'reader');
      await w.put('pods', 'lab', 'other', { spec: { serviceAccountName: 'default' } });
      await w.put('pods', 'lab', 'web', { spec: { serviceAccountName: 'reader' } });
      const cases: [string, string, unknown, number, string][] = [
        ['missing ServiceAccount', 'ghost', {}, 404, 'serviceaccounts "ghost" not found'],
        [
          'too short',
          'reader',
          kubectlBody({ expirationSeconds: 60 }),
          422,
          'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
        ],
        [
          'too long',
          'reader',
          kubectlBody({ expirationSeconds: 2 ** 33 }),
          422,
          'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 8589934592: may not specify a duration larger than 2^32 seconds',
        ],
        [
          'name mismatch',
          'reader',
          { metadata: { name: 'writer' } },
          422,
          'TokenRequest.authentication.k8s.io "reader" is invalid: metadata.name: Invalid value: "writer": must match the service account name if specified',
        ],
        [
          'missing Pod',
          'reader',
          kubectlBody({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nope' } }),
          404,
          'pods "nope" not found',
        ],
        [
          'Pod of another ServiceAccount',
          'reader',
          kubectlBody({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other' } }),
          400,
          'cannot bind token for serviceaccount "reader" to pod running with different serviceaccount name.',
        ],
        [
          'Pod uid mismatch',
          'reader',
          kubectlBody({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: 'old-uid' } }),
          409,
          'Operation cannot be fulfilled on Pod "web": the UID in the bound object reference (old-uid) does not match the UID in record. The object might have been deleted and then recreated',
        ],
        [
          'unbindable kind',
          'reader',
          kubectlBody({ boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'web' } }),
          400,
          'cannot bind token to object of type apps/v1, Kind=Deployment',
        ],
        [
          'missing Secret',
          'reader',
          kubectlBody({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's' } }),
          404,
          'secrets "s" not found',
        ],
        [
          'missing Node',
          'reader',
          kubectlBody({ boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n9' } }),
          404,
          'nodes "n9" not found',
        ],
        [
          'another kind of body',
          'reader',
          { kind: 'Pod', apiVersion: 'v1' },
          400,
          'the API version in the data ("v1") does not match the expected API version (authentication.k8s.io/v1)',
        ],
      ];
      for (const [name, sa, body, code, message] of cases) {
        await assert.rejects(
          handleTokenRequest(ctx, request(sa, body), w.authn),
          (err: unknown) => {
            assert.ok(err instanceof StatusError, name);
            assert.equal(err.code, code, name);
            assert.equal(err.message, message, name);
            return true;
          },
          name,
        );
      }
      // --service-account-max-token-expiration shortens, with kube's warning.
      const res = await handleTokenRequest(ctx, request('reader', kubectlBody({ expirationSeconds: 7200 })), w.authn);
      assert.deepEqual(res.warnings, ['requested expiration of 7200 seconds shortened to 3600 seconds']);
      const token = (JSON.parse(res.json) as { status: { token: string } }).status.token;
      const claims = decodeJwt(token);
      assert.equal(claims.exp! - claims.iat!, 3600);
    },
    { maxTokenExpirationSeconds: 3600 },
  );
});

test('a protobuf TokenRequest, as client-go (kubelet) sends it', async () => {
  await withWorld(async (w, ctx) => {
    await w.put('serviceaccounts', 'lab', 'reader');
    const podUid = await w.put('pods', 'lab', 'web', { spec: { serviceAccountName: 'reader' } });
    const body = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      metadata: {},
      spec: {
        audiences: ['https://kubernetes.default.svc.cluster.local'],
        expirationSeconds: 3607,
        boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: podUid },
      },
    };
    const out = JSON.parse((await handleTokenRequest(ctx, request('reader', body, '', true), w.authn)).json) as {
      spec: { expirationSeconds: number };
      status: { token: string; expirationTimestamp: string };
    };
    assert.equal(out.spec.expirationSeconds, 3607);
    assert.equal(out.status.expirationTimestamp, '2026-01-01T01:00:07Z');
    const claims = decodeJwt(out.status.token);
    assert.equal((claims['kubernetes.io'] as { warnafter: number }).warnafter, claims.iat! + 3607);
  });
});
