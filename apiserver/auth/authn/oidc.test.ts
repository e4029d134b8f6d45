import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { exportJWK, SignJWT, type JWTPayload } from 'jose';
import { pino } from 'pino';
import {
  createCertificateAuthority,
  generateKeyPair,
  issueCertificate,
  loadCertificateAuthority,
} from '../../../shared/pki/certificates.ts';
import { AuthenticationError } from '../authenticator-types.ts';
import { createAuthentication, type OidcOptions } from './index.ts';
import { makeWorld, type World } from './test-fixtures.ts';

const DAY = 24 * 3600 * 1000;

/** A small OIDC issuer: an RSA key, its JWKS and discovery document over HTTPS with a certificate from its own CA. */
async function startIssuer() {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = 'test-key';
  const jwks = { keys: [{ ...(await exportJWK(rsa.publicKey)), kid, alg: 'RS256', use: 'sig' }] };
  const caPem = await createCertificateAuthority('issuer-ca');
  const ca = await loadCertificateAuthority(caPem.certPem, caPem.keyPem);
  const { keys, keyPem } = await generateKeyPair();
  const cert = await issueCertificate(ca, {
    publicKey: keys.publicKey,
    commonName: 'issuer',
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + DAY),
    usages: ['digital signature', 'server auth'],
  });
  let issuer = '';
  let fetches = 0;
  const server = createServer({ key: keyPem, cert }, (req, res) => {
    fetches++;
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    else if (req.url === '/keys') res.end(JSON.stringify(jwks));
    else res.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sign = (claims: JWTPayload, opts: { key?: KeyObject | Uint8Array; alg?: string } = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: issuer, aud: 'ksim', sub: 'u-123', iat: now, exp: now + 300, ...claims })
      .setProtectedHeader({ alg: opts.alg ?? 'RS256', kid })
      .sign(opts.key ?? rsa.privateKey);
  };
  return { issuer, caPem: caPem.certPem, jwks, sign, fetches: () => fetches, close: () => new Promise((r) => server.close(r)) };
}

async function authnWith(w: World, oidc: OidcOptions) {
  return createAuthentication({ store: w.store, dataDir: w.dir, oidc, now: () => new Date(), log: pino({ level: 'silent' }) });
}
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

test('OIDC ID tokens: keys from the issuer over HTTPS (its CA from caFile) or from a JWKS file, kube prefix rules', async () => {
  const w = await makeWorld();
  const iss = await startIssuer();
  try {
    const caFile = join(w.dir, 'issuer-ca.pem');
    await writeFile(caFile, iss.caPem);
    const remote = await authnWith(w, { issuerUrl: iss.issuer, clientId: 'ksim', caFile, groupsClaim: 'groups', groupsPrefix: 'oidc:' });
    const got = await remote.authenticate(bearer(await iss.sign({ groups: ['dev', 'ops'] })));
    assert.deepEqual(got, {
      user: { username: `${iss.issuer}#u-123`, groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'] },
      authenticator: 'oidc',
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    assert.ok(iss.fetches() >= 2, 'discovery and JWKS were fetched over HTTPS');
    // A string groups claim is one group.
    assert.deepEqual((await remote.authenticate(bearer(await iss.sign({ groups: 'solo' })))).user.groups, [
      'oidc:solo',
      'system:authenticated',
    ]);

    const jwksFile = join(w.dir, 'jwks.json');
    await writeFile(jwksFile, JSON.stringify(iss.jwks));
    const byEmail = await authnWith(w, { issuerUrl: iss.issuer, clientId: 'ksim', jwksFile, usernameClaim: 'email' });
    assert.equal(
      (await byEmail.authenticate(bearer(await iss.sign({ email: 'jane@example.com', email_verified: true })))).user.username,
      'jane@example.com',
    );
    const noPrefix = await authnWith(w, { issuerUrl: iss.issuer, clientId: 'ksim', jwksFile, usernamePrefix: '-' });
    assert.equal((await noPrefix.authenticate(bearer(await iss.sign({})))).user.username, 'u-123');
    const prefixed = await authnWith(w, {
      issuerUrl: iss.issuer,
      clientId: 'ksim',
      jwksFile,
      usernamePrefix: 'corp:',
      requiredClaims: { hd: 'example.com' },
    });
    assert.equal((await prefixed.authenticate(bearer(await iss.sign({ hd: 'example.com' })))).user.username, 'corp:u-123');

    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, typeof remote, Promise<string>, string | RegExp][] = [
      [
        'expired',
        remote,
        iss.sign({ iat: now - 600, exp: now - 60 }),
        /^oidc: verify token: oidc: token is expired \(Token Expiry: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC\)$/,
      ],
      [
        'wrong audience',
        remote,
        iss.sign({ aud: 'someone-else' }),
        'oidc: verify token: oidc: expected audience "ksim" got ["someone-else"]',
      ],
      ['wrong issuer', remote, iss.sign({ iss: 'https://evil.example' }), 'invalid bearer token'],
      [
        'another key',
        remote,
        iss.sign({}, { key: other }),
        'oidc: verify token: failed to verify signature: failed to verify id token signature',
      ],
      [
        'HS256',
        remote,
        iss.sign({}, { alg: 'HS256', key: new TextEncoder().encode('secret') }),
        'oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["RS256"] got "HS256"',
      ],
      ['email not verified', byEmail, iss.sign({ email: 'x@example.com', email_verified: false }), 'oidc: email not verified'],
      ['no username claim', byEmail, iss.sign({}), 'oidc: parse username claims "email": claim not present'],
      ['required claim missing', prefixed, iss.sign({}), 'oidc: required claim hd not present in ID token'],
      [
        'required claim differs',
        prefixed,
        iss.sign({ hd: 'evil.com' }),
        'oidc: required claim hd value does not match. Got = evil.com, want = example.com',
      ],
      ['groups of the wrong type', remote, iss.sign({ groups: 7 }), 'oidc: parse groups claim "groups": not a string or a list of strings'],
    ];
    for (const [name, authn, token, want] of cases) {
      await assert.rejects(
        authn.authenticate(bearer(await token)),
        (err: unknown) => {
          assert.ok(err instanceof AuthenticationError, name);
          if (typeof want === 'string') assert.equal(err.message, want, name);
          else assert.match(err.message, want, name);
          return true;
        },
        name,
      );
    }
    // Without the issuer's CA its keys cannot be fetched: nothing authenticates.
    const untrusted = await authnWith(w, { issuerUrl: iss.issuer, clientId: 'ksim' });
    await assert.rejects(untrusted.authenticate(bearer(await iss.sign({}))), {
      name: 'AuthenticationError',
      message: /^oidc: authenticator not initialized: fetching .*openid-configuration: unable to verify/,
    });
  } finally {
    await iss.close();
    await w.close();
  }
});
