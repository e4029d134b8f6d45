// Client certificate authentication, as kube's x509 authenticator: the TLS
// layer has already checked the chain against the cluster CA (requestCert,
// rejectUnauthorized false); this reads its verdict. Subject CN is the user,
// each O a group. A certificate that did not verify is refused, naming why.
import type { TLSSocket } from 'node:tls';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { AuthenticationError, type Authenticated } from '../authenticator-types.ts';

/** Go's wording for the verification failures OpenSSL reports by code. */
const GO_WORDING: Record<string, string> = {
  CERT_HAS_EXPIRED: 'x509: certificate has expired or is not yet valid',
  CERT_NOT_YET_VALID: 'x509: certificate has expired or is not yet valid',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'x509: certificate signed by unknown authority',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'x509: certificate signed by unknown authority',
  UNABLE_TO_GET_ISSUER_CERT: 'x509: certificate signed by unknown authority',
  SELF_SIGNED_CERT_IN_CHAIN: 'x509: certificate signed by unknown authority',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'x509: certificate signed by unknown authority',
  CERT_SIGNATURE_FAILURE: 'x509: certificate signed by unknown authority',
  INVALID_PURPOSE: 'x509: certificate specifies an incompatible key usage',
};

const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';

/** kube's certificateIdentifier: "SN=<decimal>, SKID=AB:CD..., AKID=AB:CD...". */
function certificateIdentifier(raw: Buffer, serialHex: string | undefined): string {
  const colons = (hex: string | undefined) => (hex ?? '').toUpperCase().match(/../g)?.join(':') ?? '';
  let skid: string | undefined;
  let akid: string | undefined;
  try {
    const cert = new x509.X509Certificate(new Uint8Array(raw));
    skid = cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
    akid = cert.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
  } catch {
    // TLS parsed it; an extension this library cannot read only leaves the identifier shorter.
  }
  const serial = serialHex ? BigInt(`0x${serialHex}`).toString() : '';
  return `SN=${serial}, SKID=${colons(skid)}, AKID=${colons(akid)}`;
}

function asList(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

/** What a connection's certificate was found to be: TLS checks it once per connection, so it is read once. */
interface Verdict {
  found?: Authenticated;
  error?: AuthenticationError;
  validToMs: number;
  id: string;
}

const verdicts = new WeakMap<TLSSocket, Verdict>();

/** Reads and judges the certificate of a connection (none: no user, no error). */
function judge(tls: TLSSocket): Verdict {
  const cert = tls.getPeerCertificate();
  if (!cert || !cert.raw) return { validToMs: Infinity, id: '' };
  const id = certificateIdentifier(cert.raw, cert.serialNumber);
  const validToMs = Date.parse(cert.valid_to);
  if (!tls.authorized) {
    const code = String(tls.authorizationError ?? 'certificate not verified');
    const why = GO_WORDING[code] ? `${GO_WORDING[code]} (${code})` : code;
    return { error: new AuthenticationError(`verifying certificate ${id} failed: ${why}`), validToMs, id };
  }
  // Go verifies with ExtKeyUsageClientAuth: a certificate that lists usages must include it.
  const usages = cert.ext_key_usage;
  if (usages && usages.length > 0 && !usages.includes(CLIENT_AUTH_OID) && !usages.includes('2.5.29.37.0')) {
    return { error: new AuthenticationError(`verifying certificate ${id} failed: ${GO_WORDING.INVALID_PURPOSE}`), validToMs, id };
  }
  const username = asList(cert.subject?.CN).at(0) ?? '';
  // kube's CommonNameUserConversion: no CN, no user (not an error).
  if (!username) return { validToMs, id };
  return { found: { user: { username, groups: asList(cert.subject?.O) }, authenticator: 'x509' }, validToMs, id };
}

/**
 * The user of the client certificate on `tls`: undefined when none was
 * presented (or it names no user); throws when one was presented and did not
 * verify, or has expired since the connection was opened (kube checks the
 * chain on every request).
 */
export function authenticateClientCertificate(tls: TLSSocket | undefined, nowMs = Date.now()): Authenticated | undefined {
  if (!tls || typeof tls.getPeerCertificate !== 'function') return undefined;
  let verdict = verdicts.get(tls);
  if (!verdict) {
    verdict = judge(tls);
    verdicts.set(tls, verdict);
  }
  if (verdict.error) throw verdict.error;
  if (nowMs > verdict.validToMs) {
    throw new AuthenticationError(`verifying certificate ${verdict.id} failed: ${GO_WORDING.CERT_HAS_EXPIRED} (CERT_HAS_EXPIRED)`);
  }
  const found = verdict.found;
  return found && { ...found, user: { ...found.user, groups: [...found.user.groups] } };
}
