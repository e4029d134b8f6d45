// The certificate primitive checked by three independent verifiers
// (@peculiar/x509, node's X509Certificate, openssl), and the usage mapping
// against kube's table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import {
  CertificateError,
  createCertificateAuthority,
  describeCertificate,
  generateKeyPair,
  issueCertificate,
  keyMatchesCertificate,
  keyUsagesFromStrings,
  loadCertificateAuthority,
  publicKeyOf,
  type CertificateAuthority,
} from './certificates.ts';

const run = promisify(execFile);
const HOUR = 60 * 60 * 1000;
const now = new Date();
const caPems = createCertificateAuthority('kubernetes', { now });
let caMemo: CertificateAuthority | undefined;
const loadedCa = async () => (caMemo ??= await loadCertificateAuthority((await caPems).certPem, (await caPems).keyPem));

test('the CA is self-signed, CA:true, keyCertSign and cRLSign, 10 years, and its key is PKCS#8', async () => {
  const { certPem, keyPem } = await caPems;
  assert.match(keyPem, /^-----BEGIN PRIVATE KEY-----\n/);
  const d = describeCertificate(certPem);
  assert.equal(d.commonName, 'kubernetes');
  assert.equal(d.issuerCommonName, 'kubernetes');
  assert.equal(d.isCA, true);
  assert.ok(d.keyUsages.includes('keyCertSign') && d.keyUsages.includes('cRLSign'), String(d.keyUsages));
  const years = (d.notAfter.getTime() - now.getTime()) / (365 * 24 * HOUR);
  assert.ok(years > 9.9 && years < 10.1, String(years));
  const node = new crypto.X509Certificate(certPem);
  assert.equal(node.ca, true);
  assert.ok(node.checkIssued(node) && node.verify(node.publicKey));
  assert.ok(keyMatchesCertificate(certPem, keyPem));
});

test('a leaf verifies against its CA with @peculiar/x509, node and openssl, with its subject, SANs and usages', async () => {
  const ca = await loadedCa();
  const { keys, keyPem } = await generateKeyPair();
  const pem = await issueCertificate(ca, {
    publicKey: keys.publicKey,
    commonName: 'jane',
    organizations: ['dev', 'ops'],
    dnsNames: ['jane.example', 'localhost'],
    ipAddresses: ['10.96.0.1', '0:0:0:0:0:0:0:1'],
    notBefore: new Date(now.getTime() - 5 * 60 * 1000),
    notAfter: new Date(now.getTime() + HOUR),
    usages: ['digital signature', 'key encipherment', 'client auth', 'server auth'],
  });
  assert.ok(keyMatchesCertificate(pem, keyPem));

  assert.equal(await new x509.X509Certificate(pem).verify({ publicKey: ca.cert.publicKey, signatureOnly: true }), true);
  const node = new crypto.X509Certificate(pem);
  const nodeCa = new crypto.X509Certificate(ca.certPem);
  assert.ok(node.checkIssued(nodeCa));
  assert.ok(node.verify(nodeCa.publicKey));
  // A different CA must not pass for this one.
  const other = new crypto.X509Certificate((await createCertificateAuthority('other')).certPem);
  assert.equal(node.verify(other.publicKey), false);

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ksim-pki-'));
  try {
    await fs.writeFile(path.join(dir, 'ca.crt'), ca.certPem);
    await fs.writeFile(path.join(dir, 'leaf.crt'), pem);
    const ok = await run('openssl', ['verify', '-CAfile', path.join(dir, 'ca.crt'), path.join(dir, 'leaf.crt')]);
    assert.match(ok.stdout, /leaf\.crt: OK/);
    await fs.writeFile(path.join(dir, 'other.crt'), other.toString());
    await assert.rejects(run('openssl', ['verify', '-CAfile', path.join(dir, 'other.crt'), path.join(dir, 'leaf.crt')]));
    const text = (await run('openssl', ['x509', '-in', path.join(dir, 'leaf.crt'), '-noout', '-text'])).stdout;
    assert.match(text, /Subject: O ?= ?dev, O ?= ?ops, CN ?= ?jane/);
    assert.match(text, /X509v3 Basic Constraints: critical\s+CA:FALSE/);
    assert.match(text, /X509v3 Key Usage: critical\s+Digital Signature, Key Encipherment/);
    assert.match(text, /TLS Web Server Authentication, TLS Web Client Authentication/);
    assert.match(text, /X509v3 Authority Key Identifier/);
    assert.match(text, /X509v3 Subject Key Identifier/);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }

  const d = describeCertificate(pem);
  assert.equal(d.commonName, 'jane');
  assert.deepEqual(d.organizations, ['dev', 'ops']);
  assert.equal(d.issuerCommonName, 'kubernetes');
  assert.equal(d.isCA, false);
  assert.deepEqual(d.dnsNames, ['jane.example', 'localhost']);
  assert.deepEqual(d.ipAddresses, ['10.96.0.1', '::1']);
  assert.match(node.subjectAltName ?? '', /IP Address:10\.96\.0\.1/);
  const aki = new x509.X509Certificate(pem).getExtension(x509.AuthorityKeyIdentifierExtension);
  assert.equal(aki?.keyId, ca.cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId);
});

test('serial numbers are random and positive', async () => {
  const ca = await loadedCa();
  const pub = (await generateKeyPair()).keys.publicKey;
  const req = {
    publicKey: pub,
    commonName: 'x',
    notBefore: now,
    notAfter: new Date(now.getTime() + HOUR),
    usages: ['client auth' as const],
  };
  const a = describeCertificate(await issueCertificate(ca, req)).serialNumber;
  const b = describeCertificate(await issueCertificate(ca, req)).serialNumber;
  assert.notEqual(a, b);
  assert.ok(parseInt(a.slice(0, 2), 16) < 0x80);
});

test('kube usage strings map to key usages and extended key usages as kube maps them', () => {
  const cases: [string[], number, string[]][] = [
    [['signing'], 1, []],
    [['digital signature', 'key encipherment'], 1 | 4, []],
    [['content commitment', 'key agreement', 'data encipherment'], 2 | 16 | 8, []],
    [['cert sign', 'crl sign', 'encipher only', 'decipher only'], 32 | 64 | 128 | 256, []],
    [['client auth', 'server auth'], 0, ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']],
    [['email protection', 's/mime'], 0, ['1.3.6.1.5.5.7.3.4']],
    [['any', 'code signing'], 0, ['2.5.29.37.0', '1.3.6.1.5.5.7.3.3']],
    [['ipsec user', 'ipsec tunnel', 'ipsec end system'], 0, ['1.3.6.1.5.5.7.3.5', '1.3.6.1.5.5.7.3.6', '1.3.6.1.5.5.7.3.7']],
    [
      ['netscape sgc', 'microsoft sgc', 'ocsp signing', 'timestamping'],
      0,
      ['1.3.6.1.5.5.7.3.8', '1.3.6.1.5.5.7.3.9', '1.3.6.1.4.1.311.10.3.3', '2.16.840.1.113730.4.1'],
    ],
  ];
  for (const [usages, keyUsage, extKeyUsages] of cases)
    assert.deepEqual(keyUsagesFromStrings(usages), { keyUsage, extKeyUsages }, usages.join(','));
  assert.throws(() => keyUsagesFromStrings(['client auth', 'bogus', 'Server Auth']), {
    message: 'unrecognized usage values: ["bogus" "Server Auth"]',
  });
});

test('usages end up in the certificate; none at all leaves the key usage extension out', async () => {
  const ca = await loadedCa();
  const pub = (await generateKeyPair()).keys.publicKey;
  const base = { publicKey: pub, commonName: 'u', notBefore: now, notAfter: new Date(now.getTime() + HOUR) };
  const signed = describeCertificate(await issueCertificate(ca, { ...base, usages: ['signing', 'content commitment', 'timestamping'] }));
  assert.deepEqual(signed.keyUsages, ['digitalSignature', 'nonRepudiation']);
  assert.deepEqual(signed.extKeyUsages, ['1.3.6.1.5.5.7.3.8']);
  const bare = new x509.X509Certificate(await issueCertificate(ca, { ...base, usages: ['client auth'] }));
  assert.equal(bare.getExtension(x509.KeyUsagesExtension), null);
  await assert.rejects(issueCertificate(ca, { ...base, usages: ['client auth', 'nope' as 'any'] }), CertificateError);
});

test('a certificate outliving its CA, or starting after it ends, is refused; a CSR public key can be certified', async () => {
  const ca = await loadedCa();
  const { keyPem } = await generateKeyPair();
  const publicKey = publicKeyOf(keyPem);
  const base = { publicKey, commonName: 'late', usages: ['client auth' as const] };
  await assert.rejects(
    issueCertificate(ca, { ...base, notBefore: now, notAfter: new Date(ca.notAfter.getTime() + 1000) }),
    /refusing to sign a certificate valid until/,
  );
  await assert.rejects(
    issueCertificate(ca, { ...base, notBefore: ca.notAfter, notAfter: new Date(ca.notAfter.getTime() + 1000) }),
    /the signer has expired: NotAfter=/,
  );
  const pem = await issueCertificate(ca, { ...base, notBefore: now, notAfter: ca.notAfter });
  assert.ok(keyMatchesCertificate(pem, keyPem));

  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: 'CN=from-csr, O=team',
    keys: (await generateKeyPair()).keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
  });
  const fromCsr = await issueCertificate(ca, {
    ...base,
    publicKey: csr.publicKey,
    notBefore: now,
    notAfter: new Date(now.getTime() + HOUR),
  });
  assert.ok(
    new crypto.X509Certificate(fromCsr).publicKey.export({ type: 'spki', format: 'der' }).equals(Buffer.from(csr.publicKey.rawData)),
  );
});

test('loading a CA whose key is not its own is refused; RSA and SEC1 CA keys load', async () => {
  const { certPem } = await caPems;
  await assert.rejects(loadCertificateAuthority(certPem, (await generateKeyPair()).keyPem), /does not match/);
  const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const rsaKeyPem = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const rsaCa = await createCertificateAuthority('rsa-ca', { keyPem: rsaKeyPem });
  const loaded = await loadCertificateAuthority(rsaCa.certPem, rsaKeyPem);
  const leaf = await issueCertificate(loaded, {
    publicKey: (await generateKeyPair()).keys.publicKey,
    commonName: 'by-rsa',
    notBefore: now,
    notAfter: new Date(now.getTime() + HOUR),
    usages: ['client auth'],
  });
  assert.ok(new crypto.X509Certificate(leaf).verify(rsa.publicKey));
  const sec1 = crypto
    .createPrivateKey((await caPems).keyPem)
    .export({ type: 'sec1', format: 'pem' })
    .toString();
  assert.match(sec1, /BEGIN EC PRIVATE KEY/);
  await loadCertificateAuthority(certPem, sec1);
});
