// The signer's decisions as a table: kube's per-signer checks and messages,
// malformed and forged requests, and the validity of what it issues.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { createCertificateAuthority, describeCertificate, loadCertificateAuthority } from '../../../shared/pki/certificates.ts';
import { applyDecision, decide, FAILED_REASON } from './sign.ts';
import { certificateDuration, DEFAULT_SIGNING_DURATION_MS, validity } from './duration.ts';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;

async function requestPem(subject: x509.JsonName, sans: x509.JsonGeneralNames = []): Promise<string> {
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const req = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: sans.length > 0 ? [new x509.SubjectAlternativeNameExtension(sans)] : [],
  });
  return req.toString('pem');
}

function csr(
  pem: string,
  signerName: string,
  usages: string[],
  extra: Partial<CertificateSigningRequest['spec']> = {},
): CertificateSigningRequest {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: 'r', resourceVersion: '7' },
    spec: { request: Buffer.from(pem).toString('base64'), signerName, usages, ...extra },
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove' }] },
  };
}

const caPems = await createCertificateAuthority('kubernetes', { now: new Date(NOW - HOUR) });
const ca = await loadCertificateAuthority(caPems.certPem, caPems.keyPem);
const opts = { ca, maxDurationMs: DEFAULT_SIGNING_DURATION_MS, nowMs: NOW };

const alice = await requestPem([{ O: ['devs'] }, { CN: ['alice'] }]);
const node = await requestPem([{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }]);
const nodeWrongCN = await requestPem([{ O: ['system:nodes'] }, { CN: ['n1'] }]);
const nodeWrongO = await requestPem([{ O: ['devs'] }, { CN: ['system:node:n1'] }]);
const nodeWithDNS = await requestPem([{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }], [{ type: 'dns', value: 'n1' }]);
const servingOK = await requestPem(
  [{ O: ['system:nodes'] }, { CN: ['system:node:n1'] }],
  [
    { type: 'dns', value: 'n1.example' },
    { type: 'ip', value: '10.0.0.5' },
  ],
);

const CLIENT = 'kubernetes.io/kube-apiserver-client';
const KUBELET = 'kubernetes.io/kube-apiserver-client-kubelet';
const SERVING = 'kubernetes.io/kubelet-serving';

/** A request whose signature no longer matches: one byte of the subject changed after signing. */
function forged(pem: string): string {
  const der = Buffer.from(x509.PemConverter.decode(pem)[0]);
  const i = der.indexOf(Buffer.from('alice'));
  der[i] = 'A'.charCodeAt(0);
  return x509.PemConverter.encode(der, 'CERTIFICATE REQUEST');
}

const cases: { name: string; csr: CertificateSigningRequest; want: string }[] = [
  { name: 'client: client auth', csr: csr(alice, CLIENT, ['client auth']), want: 'issue' },
  {
    name: 'client: with digital signature, key encipherment',
    csr: csr(alice, CLIENT, ['digital signature', 'key encipherment', 'client auth']),
    want: 'issue',
  },
  {
    name: 'client: server auth refused',
    csr: csr(alice, CLIENT, ['client auth', 'server auth']),
    want: 'invalid usage for client certificate: server auth',
  },
  {
    name: 'client: client auth missing',
    csr: csr(alice, CLIENT, ['digital signature']),
    want: 'missing required usage for client certificate: client auth',
  },
  { name: 'another signer: left alone', csr: csr(alice, 'example.com/signer', ['client auth']), want: 'none' },
  { name: 'kubelet client: good', csr: csr(node, KUBELET, ['digital signature', 'client auth']), want: 'issue' },
  {
    name: 'kubelet client: with key encipherment',
    csr: csr(node, KUBELET, ['key encipherment', 'digital signature', 'client auth']),
    want: 'issue',
  },
  {
    name: 'kubelet client: wrong O',
    csr: csr(nodeWrongO, KUBELET, ['digital signature', 'client auth']),
    want: 'subject organization is not system:nodes',
  },
  {
    name: 'kubelet client: wrong CN',
    csr: csr(nodeWrongCN, KUBELET, ['digital signature', 'client auth']),
    want: 'subject common name does not begin with system:node:',
  },
  {
    name: 'kubelet client: DNS SAN',
    csr: csr(nodeWithDNS, KUBELET, ['digital signature', 'client auth']),
    want: 'DNS subjectAltNames are not allowed',
  },
  {
    name: 'kubelet client: missing usages',
    csr: csr(node, KUBELET, ['client auth']),
    want: 'usages did not match [client auth digital signature key encipherment]',
  },
  { name: 'kubelet serving: good', csr: csr(servingOK, SERVING, ['digital signature', 'server auth']), want: 'issue' },
  {
    name: 'kubelet serving: no SAN',
    csr: csr(node, SERVING, ['digital signature', 'server auth']),
    want: 'DNS or IP subjectAltName is required',
  },
  {
    name: 'kubelet serving: client usages',
    csr: csr(servingOK, SERVING, ['digital signature', 'client auth']),
    want: 'usages did not match [digital signature key encipherment server auth]',
  },
  {
    name: 'malformed: not a PEM request',
    csr: csr('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', CLIENT, ['client auth']),
    want: 'PEM block type must be CERTIFICATE REQUEST',
  },
  {
    name: 'malformed: garbage DER',
    csr: csr('-----BEGIN CERTIFICATE REQUEST-----\nAAECAwQF\n-----END CERTIFICATE REQUEST-----\n', CLIENT, ['client auth']),
    want: 'x509: malformed certificate request',
  },
  {
    name: 'bad signature',
    csr: csr(forged(alice), CLIENT, ['client auth']),
    want: 'unable to verify certificate request signature: x509: ECDSA verification failure',
  },
];

for (const c of cases) {
  test(`decide: ${c.name}`, async () => {
    const d = await decide(c.csr, opts);
    if (c.want === 'none' || c.want === 'issue') assert.equal(d.action, c.want);
    else {
      assert.equal(d.action, 'fail');
      assert.ok(d.action === 'fail' && d.message.startsWith(c.want), d.action === 'fail' ? d.message : '');
    }
  });
}

test('decide: nothing for pending, denied, failed or issued requests', async () => {
  const base = csr(alice, CLIENT, ['client auth']);
  const pending = { ...base, status: {} };
  const denied = { ...base, status: { conditions: [...base.status!.conditions!, { type: 'Denied', status: 'True' }] } };
  const failed = { ...base, status: { conditions: [...base.status!.conditions!, { type: 'Failed', status: 'True' }] } };
  const issued = { ...base, status: { ...base.status, certificate: 'Zm9v' } };
  for (const r of [pending, denied, failed, issued]) assert.equal((await decide(r, opts)).action, 'none');
});

test('the Failed condition as kube writes it, on a copy', async () => {
  const r = csr(alice, CLIENT, ['server auth', 'client auth']);
  const d = await decide(r, opts);
  const out = applyDecision(r, d, NOW)!;
  assert.equal(r.status!.conditions!.length, 1, 'the original is not changed');
  assert.deepEqual(out.status!.conditions![1], {
    type: 'Failed',
    status: 'True',
    reason: FAILED_REASON,
    message: 'invalid usage for client certificate: server auth',
    lastUpdateTime: '2026-06-01T12:00:00Z',
  });
  assert.equal(out.status!.certificate, undefined);
  assert.equal(out.metadata!.resourceVersion, '7', 'the update carries the resourceVersion read');
});

test('issued: subject, usages, backdated 5 minutes, expirationSeconds 600 gives 10 minutes', async () => {
  const r = csr(alice, CLIENT, ['digital signature', 'client auth'], { expirationSeconds: 600 });
  const d = await decide(r, opts);
  assert.equal(d.action, 'issue');
  const pem = Buffer.from(applyDecision(r, d, NOW)!.status!.certificate!, 'base64').toString();
  const cert = describeCertificate(pem);
  assert.equal(cert.commonName, 'alice');
  assert.deepEqual(cert.organizations, ['devs']);
  assert.equal(cert.issuerCommonName, 'kubernetes');
  assert.equal(cert.isCA, false);
  assert.deepEqual(cert.keyUsages, ['digitalSignature']);
  assert.deepEqual(cert.extKeyUsages, ['1.3.6.1.5.5.7.3.2']);
  assert.equal(cert.notBefore.getTime(), NOW - 5 * MIN);
  assert.equal(cert.notAfter.getTime(), NOW + 10 * MIN, 'a short certificate keeps its whole duration from now');
  assert.ok(await new x509.X509Certificate(pem).verify({ publicKey: ca.cert.publicKey, signatureOnly: true }));
});

test('issued: a kubelet serving certificate carries the SANs', async () => {
  const d = await decide(csr(servingOK, SERVING, ['digital signature', 'server auth']), opts);
  assert.equal(d.action, 'issue');
  const cert = describeCertificate(d.action === 'issue' ? d.certificate : '');
  assert.deepEqual(cert.dnsNames, ['n1.example']);
  assert.deepEqual(cert.ipAddresses, ['10.0.0.5']);
  assert.deepEqual(cert.extKeyUsages, ['1.3.6.1.5.5.7.3.1']);
});

test('duration: 10 years is capped at --cluster-signing-duration, then at the CA', async () => {
  const tenYears = 10 * 365 * 24 * 3600;
  const d = await decide(csr(alice, CLIENT, ['client auth'], { expirationSeconds: tenYears }), opts);
  const cert = describeCertificate(d.action === 'issue' ? d.certificate : '');
  assert.equal(cert.notAfter.getTime(), NOW + DEFAULT_SIGNING_DURATION_MS - 5 * MIN);
  // A CA that ends in 2 days caps it there.
  const shortPems = await createCertificateAuthority('short', { now: new Date(NOW), days: 2 });
  const shortCA = await loadCertificateAuthority(shortPems.certPem, shortPems.keyPem);
  const d2 = await decide(csr(alice, CLIENT, ['client auth']), { ...opts, ca: shortCA });
  assert.equal(describeCertificate(d2.action === 'issue' ? d2.certificate : '').notAfter.getTime(), shortCA.notAfter.getTime());
  // An expired CA signs nothing: an error (retried), not a Failed condition.
  await assert.rejects(
    decide(csr(alice, CLIENT, ['client auth']), { ...opts, ca: shortCA, nowMs: NOW + 3 * 24 * HOUR }),
    /the signer has expired: NotAfter=2026-06-03 12:00:00 \+0000 UTC/,
  );
});

test('certificateDuration and validity follow kube', () => {
  const max = DEFAULT_SIGNING_DURATION_MS;
  assert.equal(certificateDuration(undefined, max), max);
  assert.equal(certificateDuration(60, max), 10 * MIN, 'below 10 minutes (only possible through an old API) is raised to 10');
  assert.equal(certificateDuration(3600, max), HOUR);
  assert.equal(certificateDuration(400 * 24 * 3600, max), max);
  const caEnd = new Date(NOW + 1000 * 24 * HOUR);
  assert.deepEqual(validity(NOW, 8 * HOUR, caEnd), { notBefore: new Date(NOW - 5 * MIN), notAfter: new Date(NOW + 8 * HOUR - 5 * MIN) });
  assert.deepEqual(validity(NOW, 8 * HOUR - 1, caEnd).notAfter, new Date(NOW + 8 * HOUR - 1));
});
