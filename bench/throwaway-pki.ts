// A throwaway CA, a serving certificate for 127.0.0.1 and a client
// certificate, made with the cluster PKI's own primitives, for the floor
// server's HTTPS listener: the same key type (ECDSA P-256) and TLS work as the
// apiserver's, so that the floor comparison is like for like.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCertificateAuthority, generateKeyPair, issueCertificate, loadCertificateAuthority } from '../shared/pki/certificates.ts';
import type { TlsMaterial } from '../test/helpers/index.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Writes ca.crt, server.crt and server.key into `dir`; returns what a client needs (the CA, its certificate and key). */
export async function throwawayPki(dir: string): Promise<TlsMaterial> {
  const now = new Date();
  const notBefore = new Date(now.getTime() - 5 * 60 * 1000);
  const notAfter = new Date(now.getTime() + DAY_MS);
  const caPair = await createCertificateAuthority('bench-floor-ca', { now, days: 2 });
  const ca = await loadCertificateAuthority(caPair.certPem, caPair.keyPem);
  const server = await generateKeyPair();
  const serverCert = await issueCertificate(ca, {
    publicKey: server.keys.publicKey,
    commonName: 'bench-floor-server',
    ipAddresses: ['127.0.0.1'],
    dnsNames: ['localhost'],
    notBefore,
    notAfter,
    usages: ['digital signature', 'key encipherment', 'server auth'],
  });
  const client = await generateKeyPair();
  const clientCert = await issueCertificate(ca, {
    publicKey: client.keys.publicKey,
    commonName: 'bench-client',
    notBefore,
    notAfter,
    usages: ['digital signature', 'key encipherment', 'client auth'],
  });
  await mkdir(dir, { recursive: true });
  await Promise.all([
    writeFile(join(dir, 'ca.crt'), caPair.certPem),
    writeFile(join(dir, 'server.crt'), serverCert),
    writeFile(join(dir, 'server.key'), server.keyPem, { mode: 0o600 }),
  ]);
  return { ca: Buffer.from(caPair.certPem), cert: Buffer.from(clientCert), key: Buffer.from(client.keyPem) };
}
