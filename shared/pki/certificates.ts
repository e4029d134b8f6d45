// The one certificate primitive of ksim: ECDSA P-256 key pairs, the cluster
// CA, and leaf certificates issued from it with kube's certificates/v1 usage
// names mapped to X.509 key usages as kube's CSR signer maps them. The cluster
// PKI, the kubeconfigs and the CSR signer all issue through issueCertificate.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate as NodeX509Certificate, createPrivateKey, createPublicKey, randomBytes, webcrypto } from 'node:crypto';

// The one place the library is told which WebCrypto to use.
x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const EC_KEY: EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const DAY_MS = 24 * 60 * 60 * 1000;

/** kube's certificates/v1 KeyUsage strings. */
export type KeyUsageName =
  | 'signing'
  | 'digital signature'
  | 'content commitment'
  | 'key encipherment'
  | 'key agreement'
  | 'data encipherment'
  | 'cert sign'
  | 'crl sign'
  | 'encipher only'
  | 'decipher only'
  | 'any'
  | 'server auth'
  | 'client auth'
  | 'code signing'
  | 'email protection'
  | 's/mime'
  | 'ipsec end system'
  | 'ipsec tunnel'
  | 'ipsec user'
  | 'timestamping'
  | 'ocsp signing'
  | 'microsoft sgc'
  | 'netscape sgc';

const F = x509.KeyUsageFlags;
/** Usages that are key usage bits (kube's keyUsageDict). */
const KEY_USAGE_BITS: Partial<Record<KeyUsageName, x509.KeyUsageFlags>> = {
  signing: F.digitalSignature,
  'digital signature': F.digitalSignature,
  'content commitment': F.nonRepudiation,
  'key encipherment': F.keyEncipherment,
  'key agreement': F.keyAgreement,
  'data encipherment': F.dataEncipherment,
  'cert sign': F.keyCertSign,
  'crl sign': F.cRLSign,
  'encipher only': F.encipherOnly,
  'decipher only': F.decipherOnly,
};

/**
 * Usages that are extended key usages (kube's extKeyUsageDict), in the order
 * of Go's x509.ExtKeyUsage constants: kube sorts the purposes by it.
 */
const EXT_KEY_USAGE_OIDS: [KeyUsageName, string][] = [
  ['any', '2.5.29.37.0'],
  ['server auth', '1.3.6.1.5.5.7.3.1'],
  ['client auth', '1.3.6.1.5.5.7.3.2'],
  ['code signing', '1.3.6.1.5.5.7.3.3'],
  ['email protection', '1.3.6.1.5.5.7.3.4'],
  ['s/mime', '1.3.6.1.5.5.7.3.4'],
  ['ipsec end system', '1.3.6.1.5.5.7.3.5'],
  ['ipsec tunnel', '1.3.6.1.5.5.7.3.6'],
  ['ipsec user', '1.3.6.1.5.5.7.3.7'],
  ['timestamping', '1.3.6.1.5.5.7.3.8'],
  ['ocsp signing', '1.3.6.1.5.5.7.3.9'],
  ['microsoft sgc', '1.3.6.1.4.1.311.10.3.3'],
  ['netscape sgc', '2.16.840.1.113730.4.1'],
];

/** A usage string kube does not know, or a certificate that must not be signed. */
export class CertificateError extends Error {}

/**
 * The key usage bits and extended key usage OIDs for kube usage strings
 * (as kube's KeyUsagesFromStrings: purposes de-duplicated and in Go's order;
 * unknown strings are an error listing them as Go's %q does).
 */
export function keyUsagesFromStrings(usages: readonly string[]): { keyUsage: number; extKeyUsages: string[] } {
  let keyUsage = 0;
  const ext = new Set<string>();
  const unrecognized: string[] = [];
  for (const usage of usages) {
    const bit = KEY_USAGE_BITS[usage as KeyUsageName];
    const oid = EXT_KEY_USAGE_OIDS.find(([name]) => name === usage)?.[1];
    if (bit !== undefined) keyUsage |= bit;
    else if (oid !== undefined) ext.add(oid);
    else unrecognized.push(usage);
  }
  if (unrecognized.length > 0)
    throw new CertificateError(`unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(' ')}]`);
  const order = [...new Set(EXT_KEY_USAGE_OIDS.map(([, oid]) => oid))];
  return { keyUsage, extKeyUsages: order.filter((oid) => ext.has(oid)) };
}

/** Makes an ECDSA P-256 key pair; keyPem is its PKCS#8 "PRIVATE KEY" PEM. */
export async function generateKeyPair(): Promise<{ keys: CryptoKeyPair; keyPem: string }> {
  const keys = await webcrypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify']);
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { keys, keyPem: x509.PemConverter.encode(der, 'PRIVATE KEY') };
}

/** The signing algorithm for a private key of the given WebCrypto algorithm name. */
function signingAlgorithm(key: CryptoKey): Algorithm | EcdsaParams {
  return key.algorithm.name === 'ECDSA' ? { name: 'ECDSA', hash: 'SHA-256' } : { name: key.algorithm.name, hash: 'SHA-256' };
}

/**
 * Imports a PEM private key (PKCS#8, SEC1 "EC PRIVATE KEY" or PKCS#1 "RSA
 * PRIVATE KEY") as a WebCrypto signing key; node reads every PEM flavour.
 */
export async function importPrivateKey(keyPem: string): Promise<CryptoKey> {
  const key = createPrivateKey(keyPem);
  const der = key.export({ type: 'pkcs8', format: 'der' });
  const details = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'ec')
    return webcrypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: curveName(details?.namedCurve) }, false, ['sign']);
  if (key.asymmetricKeyType === 'rsa')
    return webcrypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
  throw new CertificateError(`unsupported private key type ${key.asymmetricKeyType}`);
}

function curveName(nodeName: string | undefined): string {
  const names: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
  const name = nodeName && names[nodeName];
  if (!name) throw new CertificateError(`unsupported elliptic curve ${nodeName}`);
  return name;
}

/** Whether keyPem is the private key of the certificate certPem. */
export function keyMatchesCertificate(certPem: string, keyPem: string): boolean {
  return createPublicKey(keyPem).equals(new NodeX509Certificate(certPem).publicKey);
}

/** A positive random serial number of 128 bits (hex), as kube's signer draws one. */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  if (bytes[0] === 0) bytes[0] = 0x01;
  return bytes.toString('hex');
}

/** The key pair of an existing private key PEM (to self-sign a CA with a key already on disk). */
async function keyPairOf(keyPem: string): Promise<{ keys: CryptoKeyPair; keyPem: string }> {
  const privateKey = await importPrivateKey(keyPem);
  const spki = createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
  const publicKey = await webcrypto.subtle.importKey('spki', spki, privateKey.algorithm, true, ['verify']);
  return { keys: { privateKey, publicKey }, keyPem };
}

/**
 * A self-signed CA certificate and its key (new, or `keyPem` when given): CA:true, keyCertSign and
 * cRLSign, valid from 5 minutes ago (clock skew) for `days` (10 years, as kubeadm).
 */
export async function createCertificateAuthority(
  commonName: string,
  opts: { now?: Date; days?: number; keyPem?: string } = {},
): Promise<{ certPem: string; keyPem: string }> {
  const now = opts.now ?? new Date();
  const { keys, keyPem } = opts.keyPem !== undefined ? await keyPairOf(opts.keyPem) : await generateKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: [{ CN: [commonName] }],
    notBefore: new Date(now.getTime() - 5 * 60 * 1000),
    notAfter: new Date(now.getTime() + (opts.days ?? 3650) * DAY_MS),
    keys,
    signingAlgorithm: signingAlgorithm(keys.privateKey),
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(F.digitalSignature | F.keyCertSign | F.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem };
}

/** A loaded CA: what issueCertificate needs. */
export interface CertificateAuthority {
  cert: x509.X509Certificate;
  certPem: string;
  privateKey: CryptoKey;
  notAfter: Date;
}

/** Loads a CA from PEM texts; the key must be the certificate's. */
export async function loadCertificateAuthority(certPem: string, keyPem: string): Promise<CertificateAuthority> {
  const cert = new x509.X509Certificate(certPem);
  if (!keyMatchesCertificate(certPem, keyPem)) throw new CertificateError('the CA private key does not match the CA certificate');
  return { cert, certPem: cert.toString('pem'), privateKey: await importPrivateKey(keyPem), notAfter: cert.notAfter };
}

/** What to certify. */
export interface IssueRequest {
  publicKey: CryptoKey | x509.PublicKey;
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  notBefore: Date;
  notAfter: Date;
  usages: KeyUsageName[];
}

/**
 * Issues a leaf certificate (PEM) signed by `ca`: random serial, subject
 * O=... CN=..., SANs, the usages mapped as kube maps them, CA:false, subject
 * and authority key identifiers. Refuses a validity outside the CA's.
 */
export async function issueCertificate(ca: CertificateAuthority, req: IssueRequest): Promise<string> {
  if (!(req.notBefore.getTime() < ca.notAfter.getTime()))
    throw new CertificateError(`the signer has expired: NotAfter=${ca.notAfter.toISOString()}`);
  if (req.notAfter.getTime() > ca.notAfter.getTime())
    throw new CertificateError(
      `refusing to sign a certificate valid until ${req.notAfter.toISOString()}, after its signing CA (NotAfter=${ca.notAfter.toISOString()})`,
    );
  if (!(req.notBefore.getTime() < req.notAfter.getTime())) throw new CertificateError('notBefore must be before notAfter');
  const { keyUsage, extKeyUsages } = keyUsagesFromStrings(req.usages);
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  // Go leaves the extension out when no bit is set; so does kube's signer.
  if (keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (extKeyUsages.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(extKeyUsages));
  const sans: x509.JsonGeneralNames = [
    ...(req.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(req.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  if (sans.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(sans));
  extensions.push(await x509.SubjectKeyIdentifierExtension.create(req.publicKey));
  const caSki = ca.cert.getExtension(x509.SubjectKeyIdentifierExtension);
  extensions.push(
    caSki ? new x509.AuthorityKeyIdentifierExtension(caSki.keyId) : await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey),
  );
  // Go's pkix.Name order: O before CN.
  const subject: x509.JsonName = [...(req.organizations ?? []).map((o) => ({ O: [o] })), { CN: [req.commonName] }];
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject,
    issuer: ca.cert.subjectName,
    notBefore: req.notBefore,
    notAfter: req.notAfter,
    publicKey: req.publicKey,
    signingKey: ca.privateKey,
    signingAlgorithm: signingAlgorithm(ca.privateKey),
    extensions,
  });
  return cert.toString('pem');
}

/** What ksim reads out of a certificate (tests, `ksim status`, the serving cert's SAN check). */
export interface CertificateSummary {
  commonName: string;
  organizations: string[];
  issuerCommonName: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  isCA: boolean;
  dnsNames: string[];
  /** Canonical text form (IPv6 compressed), whatever form the certificate was made from. */
  ipAddresses: string[];
  /** Key usage bit names, e.g. "digitalSignature", "keyCertSign". */
  keyUsages: string[];
  /** Extended key usage OIDs. */
  extKeyUsages: string[];
}

/** An IP address in canonical text form (IPv6 compressed and lower case), as URL parsing writes it. */
export function canonicalIp(ip: string): string {
  return ip.includes(':') ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

/** Parses the first certificate of a PEM text. */
export function describeCertificate(certPem: string): CertificateSummary {
  const cert = new x509.X509Certificate(certPem);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  const names = san ? san.names.toJSON() : [];
  const ku = cert.getExtension(x509.KeyUsagesExtension);
  const keyUsages = ku
    ? Object.entries(F)
        .filter(([name, bit]) => typeof bit === 'number' && Number.isNaN(Number(name)) && (ku.usages & bit) !== 0)
        .map(([name]) => name)
    : [];
  return {
    commonName: cert.subjectName.getField('CN')[0] ?? '',
    organizations: cert.subjectName.getField('O'),
    issuerCommonName: cert.issuerName.getField('CN')[0] ?? '',
    serialNumber: cert.serialNumber,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    isCA: cert.getExtension(x509.BasicConstraintsExtension)?.ca ?? false,
    dnsNames: names.filter((n) => n.type === 'dns').map((n) => n.value),
    ipAddresses: names.filter((n) => n.type === 'ip').map((n) => canonicalIp(n.value)),
    keyUsages,
    extKeyUsages: Array.from(cert.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [], String),
  };
}

/** The public key of a PKCS#8/SEC1 private key PEM, for issuing a certificate to it. */
export function publicKeyOf(keyPem: string): x509.PublicKey {
  const spki = createPublicKey(keyPem).export({ type: 'spki', format: 'der' });
  return new x509.PublicKey(new Uint8Array(spki).buffer);
}

/** The Organization (O) values of a PEM certificate request's subject; throws CertificateError for what is not one. */
export function requestOrganizations(pem: string): string[] {
  const block = /-----BEGIN ([^-\r\n]+)-----\r?\n[\s\S]*?-----END \1-----/.exec(pem);
  if (!block || block[1] !== 'CERTIFICATE REQUEST') throw new CertificateError('PEM block type must be CERTIFICATE REQUEST');
  try {
    return new x509.Pkcs10CertificateRequest(block[0]).subjectName.getField('O');
  } catch (err) {
    throw new CertificateError(`x509: malformed certificate request: ${(err as Error).message}`, { cause: err });
  }
}
