import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, generateKeyPairSync, createPublicKey } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT, UnsecuredJWT, type JSONWebKeySet } from 'jose';
import { AuthenticationError } from '../authenticator-types.ts';
import { ANONYMOUS } from '../user-info.ts';
import { createAuthentication, DEFAULT_ISSUER } from './index.ts';
import { makeWorld, type World } from './test-fixtures.ts';

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

async function withWorld(fn: (w: World) => Promise<void>): Promise<void> {
  const w = await makeWorld();
  try {
    await fn(w);
  } finally {
    await w.close();
  }
}

/** A token for lab/reader as TokenRequest issues it. */
async function issue(w: World, more: Partial<Parameters<World['authn']['issueServiceAccountToken']>[0]> = {}) {
  const entry = w.store.get('/registry/core/serviceaccounts/lab/reader');
  const uid = entry ? (JSON.parse(entry.json) as { metadata: { uid: string } }).metadata.uid : '';
  return w.authn.issueServiceAccountToken({
    namespace: 'lab',
    serviceAccountName: 'reader',
    serviceAccountUid: uid,
    audiences: [DEFAULT_ISSUER],
    expirationSeconds: 600,
    ...more,
  });
}

test('the key pair (ECDSA P-256) is made once, kept with mode 0600, and its kid is kube keyIDFromPublicKey', async () => {
  await withWorld(async (w) => {
    const keyPath = join(w.dir, 'pki', 'sa.key');
    assert.equal((await stat(keyPath)).mode & 0o777, 0o600);
    const pem = await readFile(keyPath, 'utf8');
    assert.match(pem, /^-----BEGIN PRIVATE KEY-----/);
    const der = createPublicKey(createPrivateKey(pem)).export({ type: 'spki', format: 'der' });
    const kid = createHash('sha256').update(der).digest('base64url');
    await w.put('serviceaccounts', 'lab', 'reader');
    const { token } = await issue(w);
    assert.equal(decodeProtectedHeader(token).kid, kid);
    assert.equal(decodeProtectedHeader(token).alg, 'ES256');
    assert.equal(createPrivateKey(pem).asymmetricKeyDetails?.namedCurve, 'prime256v1');
    // A second start reads the same key: tokens issued before still verify.
    const again = await createAuthentication({
      store: w.store,
      dataDir: w.dir,
      now: () => w.clock.now,
      log: (await import('pino')).pino({ level: 'silent' }),
    });
    assert.equal((await again.authenticate(bearer(token))).user.username, 'system:serviceaccount:lab:reader');
    assert.equal(await readFile(keyPath, 'utf8'), pem);
  });
});

test('an issued token carries kube claims and authenticates as the ServiceAccount', async () => {
  await withWorld(async (w) => {
    const saUid = await w.put('serviceaccounts', 'lab', 'reader');
    const { token, expirationTimestamp } = await issue(w, { audiences: [DEFAULT_ISSUER, 'vault'] });
    const claims = decodeJwt(token);
    assert.equal(claims.iss, DEFAULT_ISSUER);
    assert.equal(claims.sub, 'system:serviceaccount:lab:reader');
    assert.deepEqual(claims.aud, [DEFAULT_ISSUER, 'vault']);
    const t0 = Date.parse('2026-01-01T00:00:00Z') / 1000;
    assert.equal(claims.iat, t0);
    assert.equal(claims.nbf, t0);
    assert.equal(claims.exp, t0 + 600);
    assert.match(String(claims.jti), /^[0-9a-f-]{36}$/);
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'lab', serviceaccount: { name: 'reader', uid: saUid } });
    assert.equal(expirationTimestamp, '2026-01-01T00:10:00Z');
    const got = await w.authn.authenticate(bearer(token));
    assert.equal(got.authenticator, 'serviceaccount');
    assert.deepEqual(got.user, {
      username: 'system:serviceaccount:lab:reader',
      uid: saUid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:lab', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
    });
    assert.deepEqual(got.audiences, [DEFAULT_ISSUER]);
    // The discovery documents describe the key that signed it.
    const jwks = w.authn.jwks() as JSONWebKeySet;
    assert.equal(jwks.keys[0].kid, decodeProtectedHeader(token).kid);
    assert.equal(jwks.keys[0].use, 'sig');
    await jwtVerify(token, createLocalJWKSet(jwks), { currentDate: w.clock.now });
    assert.deepEqual(w.authn.openidConfiguration(), {
      issuer: DEFAULT_ISSUER,
      jwks_uri: 'https://kubernetes.default.svc.cluster.local/openid/v1/jwks',
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    // go-jose's member order for an EC key.
    assert.deepEqual(Object.keys(jwks.keys[0]), ['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y']);
  });
});

test('a Pod-bound token names the Pod and its Node, and kubelet expiry is extended with warnafter', async () => {
  await withWorld(async (w) => {
    await w.put('serviceaccounts', 'lab', 'reader');
    const nodeUid = await w.put('nodes', '', 'node-1');
    const podUid = await w.put('pods', 'lab', 'web', { spec: { serviceAccountName: 'reader', nodeName: 'node-1' } });
    const { token, expirationTimestamp } = await issue(w, {
      expirationSeconds: 3607,
      boundPod: { name: 'web', uid: podUid, nodeName: 'node-1' },
    });
    const claims = decodeJwt(token);
    const k8s = claims['kubernetes.io'] as Record<string, unknown>;
    assert.deepEqual(k8s.pod, { name: 'web', uid: podUid });
    assert.deepEqual(k8s.node, { name: 'node-1', uid: nodeUid });
    assert.equal(k8s.warnafter, claims.iat! + 3607);
    assert.equal(claims.exp! - claims.iat!, 365 * 24 * 3600);
    assert.equal(expirationTimestamp, '2026-01-01T01:00:07Z');
    const { user } = await w.authn.authenticate(bearer(token));
    assert.deepEqual(user.extra, {
      'authentication.kubernetes.io/pod-name': ['web'],
      'authentication.kubernetes.io/pod-uid': [podUid],
      'authentication.kubernetes.io/node-name': ['node-1'],
      'authentication.kubernetes.io/node-uid': [nodeUid],
      'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`],
    });
  });
});

test('no credentials is anonymous; a non-bearer Authorization is no credential', async () => {
  await withWorld(async (w) => {
    assert.deepEqual(await w.authn.authenticate({ headers: {} }), { user: ANONYMOUS, authenticator: 'anonymous' });
    assert.equal((await w.authn.authenticate({ headers: { authorization: 'Basic YWRtaW46YWRtaW4=' } })).user, ANONYMOUS);
    assert.equal((await w.authn.authenticate({ headers: { authorization: 'Bearer ' } })).user, ANONYMOUS);
  });
});

/** A token signed by `key` (PEM or KeyObject) with kube's claims for lab/reader, overriding `claims`. */
async function forge(
  w: World,
  opts: { alg?: string; key?: Parameters<SignJWT['sign']>[0]; kid?: string; claims?: Record<string, unknown> } = {},
) {
  const pem = await readFile(join(w.dir, 'pki', 'sa.key'), 'utf8');
  const ours = createPrivateKey(pem);
  const t = Math.floor(w.clock.now.getTime() / 1000);
  const sa = JSON.parse(w.store.get('/registry/core/serviceaccounts/lab/reader')?.json ?? '{"metadata":{}}');
  const kid = opts.kid ?? decodeProtectedHeader((await issue(w)).token).kid;
  const payload = {
    iss: DEFAULT_ISSUER,
    sub: 'system:serviceaccount:lab:reader',
    aud: [DEFAULT_ISSUER],
    iat: t,
    nbf: t,
    exp: t + 600,
    'kubernetes.io': { namespace: 'lab', serviceaccount: { name: 'reader', uid: sa.metadata.uid } },
    ...opts.claims,
  };
  return new SignJWT(payload).setProtectedHeader({ alg: opts.alg ?? 'ES256', kid }).sign(opts.key ?? ours);
}

test('bad tokens are refused with a clear reason and none authenticates', async () => {
  await withWorld(async (w) => {
    const saUid = await w.put('serviceaccounts', 'lab', 'reader');
    const podUid = await w.put('pods', 'lab', 'web', { spec: { serviceAccountName: 'reader' } });
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const pubPem = await readFile(join(w.dir, 'pki', 'sa.pub'));
    const t0 = w.clock.now;
    const at = (s: number) => new Date(t0.getTime() + s * 1000);
    const cases: { name: string; token: () => Promise<string>; setup?: () => Promise<unknown>; when?: Date; want: string | RegExp }[] = [
      {
        name: 'forged: another key, our kid',
        token: () => forge(w, { key: other }),
        want: 'go-jose/go-jose: error in cryptographic primitive',
      },
      { name: 'forged: another key and kid', token: () => forge(w, { key: other, kid: 'nope' }), want: 'invalid signature, no keys found' },
      {
        name: 'expired past the leeway',
        token: async () => (await issue(w)).token,
        when: at(600 + 61),
        want: 'service account token has expired',
      },
      {
        name: 'not yet valid',
        token: () => forge(w, { claims: { nbf: Math.floor(t0.getTime() / 1000) + 3600 } }),
        want: 'service account token is not valid yet',
      },
      {
        name: 'issued in the future',
        token: () => forge(w, { claims: { iat: Math.floor(t0.getTime() / 1000) + 3600 } }),
        want: 'service account token is issued in the future',
      },
      {
        name: 'wrong audience',
        token: async () => (await issue(w, { audiences: ['vault'] })).token,
        want: 'token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]',
      },
      { name: 'wrong issuer', token: () => forge(w, { claims: { iss: 'https://evil.example' } }), want: 'invalid bearer token' },
      {
        name: 'alg none',
        token: () =>
          Promise.resolve(
            new UnsecuredJWT({
              iss: DEFAULT_ISSUER,
              sub: 'system:serviceaccount:lab:reader',
              aud: [DEFAULT_ISSUER],
              'kubernetes.io': { namespace: 'lab', serviceaccount: { name: 'reader', uid: saUid } },
            }).encode(),
          ),
        want: 'invalid bearer token',
      },
      {
        name: 'HS256 with the public key as secret',
        token: () => forge(w, { alg: 'HS256', key: new Uint8Array(pubPem) }),
        want: 'invalid bearer token',
      },
      { name: 'malformed: not a JWT', token: () => Promise.resolve('not-a-token'), want: 'invalid bearer token' },
      { name: 'malformed: three garbage parts', token: () => Promise.resolve('a.b.c'), want: 'invalid bearer token' },
      {
        name: 'malformed: no kubernetes.io claim',
        token: () => forge(w, { claims: { 'kubernetes.io': undefined } }),
        want: /malformed kubernetes\.io claim/,
      },
      {
        name: 'ServiceAccount deleted',
        token: async () => (await issue(w)).token,
        setup: () => w.remove('serviceaccounts', 'lab', 'reader'),
        want: 'serviceaccounts "reader" not found',
      },
      {
        name: 'ServiceAccount recreated with a new uid',
        token: async () => (await issue(w)).token,
        setup: async () => {
          await w.remove('serviceaccounts', 'lab', 'reader');
          await w.put('serviceaccounts', 'lab', 'reader');
        },
        want: /^service account UID \(uid-serviceaccounts-reader-\d+\) does not match claim \(uid-serviceaccounts-reader-\d+\)$/,
      },
      {
        name: 'bound Pod deleted',
        token: async () => (await issue(w, { boundPod: { name: 'web', uid: podUid } })).token,
        setup: () => w.remove('pods', 'lab', 'web'),
        want: 'service account token has been invalidated',
      },
      {
        name: 'bound Pod recreated',
        token: async () => (await issue(w, { boundPod: { name: 'web', uid: podUid } })).token,
        setup: async () => {
          await w.remove('pods', 'lab', 'web');
          await w.put('pods', 'lab', 'web', { spec: { serviceAccountName: 'reader' } });
        },
        want: /^pod UID \(uid-pods-web-\d+\) does not match service account pod ref claim \(uid-pods-web-\d+\)$/,
      },
      {
        name: 'bound Pod deleted more than the leeway ago',
        token: async () => (await issue(w, { boundPod: { name: 'web', uid: podUid } })).token,
        setup: () => w.put('pods', 'lab', 'web', { metadata: { uid: podUid, deletionTimestamp: '2025-12-31T23:58:00Z' } }),
        want: 'service account token has been invalidated',
      },
    ];
    for (const c of cases) {
      w.clock.now = t0;
      // Each case starts from the same world: the ServiceAccount and Pod as first made.
      await w.put('serviceaccounts', 'lab', 'reader', { metadata: { uid: saUid } });
      await w.put('pods', 'lab', 'web', { metadata: { uid: podUid }, spec: { serviceAccountName: 'reader' } });
      const token = await c.token();
      await c.setup?.();
      if (c.when) w.clock.now = c.when;
      await assert.rejects(
        w.authn.authenticate(bearer(token)),
        (err: unknown) => {
          assert.ok(err instanceof AuthenticationError, `${c.name}: ${String(err)}`);
          if (typeof c.want === 'string') assert.equal(err.message, c.want, c.name);
          else assert.match(err.message, c.want, c.name);
          return true;
        },
        c.name,
      );
    }
  });
});

test('times within the leeway, and a Pod still in its grace period, are accepted', async () => {
  await withWorld(async (w) => {
    await w.put('serviceaccounts', 'lab', 'reader');
    const podUid = await w.put('pods', 'lab', 'web', { spec: { serviceAccountName: 'reader' } });
    const t0 = w.clock.now.getTime();
    const { token } = await issue(w);
    w.clock.now = new Date(t0 + (600 + 30) * 1000);
    assert.equal((await w.authn.authenticate(bearer(token))).authenticator, 'serviceaccount');
    w.clock.now = new Date(t0);
    const bound = (await issue(w, { boundPod: { name: 'web', uid: podUid } })).token;
    await w.put('pods', 'lab', 'web', { metadata: { uid: podUid, deletionTimestamp: '2026-01-01T00:00:30Z' } });
    w.clock.now = new Date(t0 + 60 * 1000);
    assert.equal((await w.authn.authenticate(bearer(bound))).user.extra?.['authentication.kubernetes.io/pod-name']?.[0], 'web');
    // A token for another audience authenticates where that audience is asked for (TokenReview).
    const vault = (await issue(w, { audiences: ['vault'] })).token;
    assert.deepEqual((await w.authn.authenticateToken(vault, ['vault'])).audiences, ['vault']);
  });
});

test('a token seen a moment ago stops working as soon as its ServiceAccount is deleted', async () => {
  await withWorld(async (w) => {
    await w.put('serviceaccounts', 'lab', 'reader');
    const { token } = await issue(w);
    assert.equal((await w.authn.authenticate(bearer(token))).authenticator, 'serviceaccount');
    await w.remove('serviceaccounts', 'lab', 'reader');
    await assert.rejects(w.authn.authenticate(bearer(token)), {
      name: 'AuthenticationError',
      message: 'serviceaccounts "reader" not found',
    });
  });
});
