import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import {
  createCertificateAuthority,
  generateKeyPair,
  issueCertificate,
  loadCertificateAuthority,
  type KeyUsageName,
} from '../../../shared/pki/certificates.ts';
import { makeWorld } from './test-fixtures.ts';
import { authenticateClientCertificate } from './x509.ts';

const DAY = 24 * 3600 * 1000;

/** A client key and certificate from `ca`. */
async function client(
  ca: Awaited<ReturnType<typeof loadCertificateAuthority>>,
  cn: string,
  o: string[],
  opts: { from?: number; to?: number; usages?: KeyUsageName[] } = {},
) {
  const { keys, keyPem } = await generateKeyPair();
  const now = Date.now();
  const certPem = await issueCertificate(ca, {
    publicKey: keys.publicKey,
    commonName: cn,
    organizations: o,
    notBefore: new Date(now + (opts.from ?? -60_000)),
    notAfter: new Date(now + (opts.to ?? DAY)),
    usages: opts.usages ?? ['digital signature', 'key encipherment', 'client auth'],
  });
  return { certPem, keyPem };
}

test('client certificates over a real TLS connection: CN is the user, O the groups; bad ones are refused naming why', async () => {
  const w = await makeWorld();
  const rootPem = await createCertificateAuthority('ksim-ca', { now: new Date(Date.now() - 30 * DAY) });
  const ca = await loadCertificateAuthority(rootPem.certPem, rootPem.keyPem);
  const otherPem = await createCertificateAuthority('evil-ca');
  const other = await loadCertificateAuthority(otherPem.certPem, otherPem.keyPem);
  const { keys, keyPem } = await generateKeyPair();
  const serverCert = await issueCertificate(ca, {
    publicKey: keys.publicKey,
    commonName: 'kube-apiserver',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + DAY),
    usages: ['digital signature', 'key encipherment', 'server auth'],
  });
  const server = createServer(
    { key: keyPem, cert: serverCert, ca: rootPem.certPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => {
      w.authn.authenticate({ headers: req.headers, tls: req.socket as TLSSocket }).then(
        (a) => res.end(JSON.stringify({ ok: a })),
        (err: Error) => res.end(JSON.stringify({ error: err.name, message: err.message })),
      );
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const ask = (creds: { certPem?: string; keyPem?: string }, headers: Record<string, string> = {}) =>
    new Promise<{ ok?: { user: { username: string; groups: string[] }; authenticator: string }; error?: string; message?: string }>(
      (resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port, path: '/', ca: rootPem.certPem, cert: creds.certPem, key: creds.keyPem, agent: false, headers },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve(JSON.parse(body) as never));
          },
        );
        req.on('error', reject);
        req.end();
      },
    );
  try {
    const alice = await ask(await client(ca, 'alice', ['dev', 'ops']));
    assert.deepEqual(alice.ok, { user: { username: 'alice', groups: ['dev', 'ops', 'system:authenticated'] }, authenticator: 'x509' });
    const admin = await ask(await client(ca, 'kubernetes-admin', ['kubeadm:cluster-admins']));
    assert.deepEqual(admin.ok?.user.groups, ['kubeadm:cluster-admins', 'system:authenticated']);
    const node = await ask(await client(ca, 'system:node:n1', []));
    assert.deepEqual(node.ok?.user, { username: 'system:node:n1', groups: ['system:authenticated'] });
    assert.equal((await ask({})).ok?.authenticator, 'anonymous');

    const refused: [string, Promise<{ certPem: string; keyPem: string }>, RegExp][] = [
      [
        'another CA',
        client(other, 'mallory', ['system:masters']),
        /^verifying certificate SN=\d+, SKID=([0-9A-F]{2}:){19}[0-9A-F]{2}, AKID=([0-9A-F]{2}:){19}[0-9A-F]{2} failed: x509: certificate signed by unknown authority \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)$/,
      ],
      [
        'expired',
        client(ca, 'old', [], { from: -3 * DAY, to: -DAY }),
        /failed: x509: certificate has expired or is not yet valid \(CERT_HAS_EXPIRED\)$/,
      ],
      [
        'not yet valid',
        client(ca, 'early', [], { from: DAY, to: 2 * DAY }),
        /failed: x509: certificate has expired or is not yet valid \(CERT_NOT_YET_VALID\)$/,
      ],
      [
        'server-only usage',
        client(ca, 'srv', [], { usages: ['digital signature', 'server auth'] }),
        /failed: .*(key usage|INVALID_PURPOSE)/,
      ],
    ];
    for (const [name, creds, want] of refused) {
      const got = await ask(await creds);
      assert.equal(got.ok, undefined, `${name}: must not authenticate`);
      assert.equal(got.error, 'AuthenticationError', name);
      assert.match(got.message!, want, name);
    }
    // As kube's union: a certificate that fails does not stop a good bearer token.
    w.clock.now = new Date();
    await w.put('serviceaccounts', 'lab', 'reader');
    const uid = (JSON.parse(w.store.get('/registry/core/serviceaccounts/lab/reader')!.json) as { metadata: { uid: string } }).metadata.uid;
    const { token } = await w.authn.issueServiceAccountToken({
      namespace: 'lab',
      serviceAccountName: 'reader',
      serviceAccountUid: uid,
      audiences: w.authn.apiAudiences,
      expirationSeconds: 600,
    });
    const both = await ask(await client(other, 'mallory', []), { authorization: `Bearer ${token}` });
    assert.equal(both.ok?.user.username, 'system:serviceaccount:lab:reader');
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await w.close();
  }
});

test('a connection is judged once; its certificate still expires while the connection stays open', () => {
  let reads = 0;
  const socket = {
    authorized: true,
    getPeerCertificate() {
      reads++;
      return { raw: Buffer.from('not DER'), serialNumber: '0A', valid_to: 'Jan  1 00:00:00 2027 GMT', subject: { CN: 'alice', O: 'dev' } };
    },
  } as unknown as TLSSocket;
  const before = Date.parse('2026-06-01T00:00:00Z');
  const first = authenticateClientCertificate(socket, before);
  assert.deepEqual(first, { user: { username: 'alice', groups: ['dev'] }, authenticator: 'x509' });
  first.user.groups.push('mutated');
  assert.deepEqual(authenticateClientCertificate(socket, before)?.user.groups, ['dev']);
  assert.equal(reads, 1);
  assert.throws(() => authenticateClientCertificate(socket, Date.parse('2027-01-02T00:00:00Z')), {
    name: 'AuthenticationError',
    message: 'verifying certificate SN=10, SKID=, AKID= failed: x509: certificate has expired or is not yet valid (CERT_HAS_EXPIRED)',
  });
  const none = { authorized: false, getPeerCertificate: () => ({}) } as unknown as TLSSocket;
  assert.equal(authenticateClientCertificate(none), undefined);
});
