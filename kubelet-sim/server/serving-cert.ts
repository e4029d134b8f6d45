// The kubelet API's serving certificate, made at start as kubelet makes one
// when it is given no --tls-cert-file: a throwaway CA "HOST-ca@UNIXTIME" and a
// one-year certificate "HOST@UNIXTIME" from it, for the host, localhost and
// 127.0.0.1. Nobody checks it: kube-apiserver does not verify kubelet serving
// certificates unless --kubelet-certificate-authority is set, and ksim's
// apiserver does as kube does by default.
import 'reflect-metadata';
import { createCertificateAuthority, generateKeyPair, issueCertificate, loadCertificateAuthority } from '../../shared/pki/certificates.ts';
import { isIP } from 'node:net';

/** A PEM certificate chain (leaf, then its CA) and the leaf's key. */
export interface ServingCert {
  certPem: string;
  keyPem: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Makes the serving certificate for `host` (a name or an IP address). */
export async function selfSignedServingCert(host: string, now = new Date()): Promise<ServingCert> {
  const stamp = Math.floor(now.getTime() / 1000);
  const ca = await createCertificateAuthority(`${host}-ca@${stamp}`, { now, days: 365 });
  const authority = await loadCertificateAuthority(ca.certPem, ca.keyPem);
  const leaf = await generateKeyPair();
  const ips = new Set(['127.0.0.1']);
  const names = new Set(['localhost']);
  (isIP(host) ? ips : names).add(host);
  const certPem = await issueCertificate(authority, {
    publicKey: leaf.keys.publicKey,
    commonName: `${host}@${stamp}`,
    dnsNames: [...names],
    ipAddresses: [...ips],
    notBefore: now,
    notAfter: new Date(Math.min(now.getTime() + 365 * DAY_MS, authority.notAfter.getTime())),
    usages: ['digital signature', 'key encipherment', 'server auth'],
  });
  return { certPem: `${certPem.trimEnd()}\n${ca.certPem.trimEnd()}\n`, keyPem: leaf.keyPem };
}
