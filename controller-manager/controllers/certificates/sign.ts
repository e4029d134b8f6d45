// The signer's decision for one CertificateSigningRequest, as kube's
// signer.handle makes it: nothing for a request that is not approved, is
// denied, has failed, is already issued or is for another signer; the Failed
// condition (SignerValidationFailure) for one it refuses; otherwise a
// certificate from the cluster CA. Pure but for the signing itself.
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import { issueCertificate, type CertificateAuthority, type KeyUsageName } from '../../../shared/pki/certificates.ts';
import { certificateDuration, validity } from './duration.ts';
import { parseRequest, RequestError, signerProblem, SIGNER_NAMES } from './validation.ts';

/** What to do with a CSR. */
export type SignDecision = { action: 'none' } | { action: 'fail'; message: string } | { action: 'issue'; certificate: string };

/** The Failed condition's reason. */
export const FAILED_REASON = 'SignerValidationFailure';

const hasCondition = (csr: CertificateSigningRequest, type: string, onlyTrue = false) =>
  (csr.status?.conditions ?? []).some((c) => c.type === type && (!onlyTrue || c.status === 'True'));

/** kube's IsCertificateRequestApproved: Approved and not Denied. */
export function isApproved(csr: CertificateSigningRequest): boolean {
  return hasCondition(csr, 'Approved') && !hasCondition(csr, 'Denied');
}

/** The signer's options. */
export interface SignOptions {
  ca: CertificateAuthority;
  /** --cluster-signing-duration in milliseconds. */
  maxDurationMs: number;
  nowMs: number;
}

/**
 * The decision for `csr`. A request that cannot be parsed or whose signature
 * does not verify is Failed too (kube's signer would retry it forever; its
 * apiserver refuses such a request at create).
 */
export async function decide(csr: CertificateSigningRequest, opts: SignOptions): Promise<SignDecision> {
  if (csr.status?.certificate) return { action: 'none' };
  if (!isApproved(csr) || hasCondition(csr, 'Failed', true)) return { action: 'none' };
  const spec = csr.spec;
  if (!spec || !SIGNER_NAMES.includes(spec.signerName)) return { action: 'none' };
  const usages = spec.usages ?? [];
  let parsed;
  try {
    parsed = await parseRequest(Buffer.from(spec.request, 'base64').toString('latin1'));
  } catch (err) {
    if (err instanceof RequestError) return { action: 'fail', message: err.message };
    throw err;
  }
  const problem = signerProblem(spec.signerName, parsed, usages);
  if (problem === undefined) return { action: 'none' };
  if (problem) return { action: 'fail', message: problem };
  const ttl = certificateDuration(spec.expirationSeconds, opts.maxDurationMs);
  const { notBefore, notAfter } = validity(opts.nowMs, ttl, opts.ca.notAfter);
  const certificate = await issueCertificate(opts.ca, {
    publicKey: parsed.request.publicKey,
    commonName: parsed.commonName,
    organizations: parsed.organizations,
    dnsNames: parsed.dnsNames,
    ipAddresses: parsed.ipAddresses,
    notBefore,
    notAfter,
    usages: usages as KeyUsageName[],
  });
  return { action: 'issue', certificate };
}

/** The CSR as the status update sends it: `decision` applied to a copy. */
export function applyDecision(
  csr: CertificateSigningRequest,
  decision: SignDecision,
  nowMs: number,
): CertificateSigningRequest | undefined {
  if (decision.action === 'none') return undefined;
  const out = structuredClone(csr);
  out.status ??= {};
  if (decision.action === 'issue') {
    out.status.certificate = Buffer.from(decision.certificate).toString('base64');
  } else {
    out.status.conditions = [
      ...(out.status.conditions ?? []),
      {
        type: 'Failed',
        status: 'True',
        reason: FAILED_REASON,
        message: decision.message,
        lastUpdateTime: new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    ];
  }
  return out;
}
