// Printers for the remaining built-in kinds with a kube printer: Lease
// (Holder), CertificateSigningRequest (SignerName, Requestor,
// RequestedDuration, Condition) and PodDisruptionBudget.
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
import { humanDuration, since } from './duration.ts';
import { int, intOrString } from './format.ts';
import { ageColumn, column, nameColumn } from './types.ts';
import type { PrintContext, PrintedRow, Printer } from './types.ts';

/** coordination.k8s.io/v1 Lease: Name, Holder, Age. */
export const leasePrinter: Printer<Lease> = {
  columns: [nameColumn(), column('Holder', 'string', 'The identity currently holding the lease.'), ageColumn()],
  row(lease: Lease, ctx: PrintContext): PrintedRow {
    return { cells: [lease.metadata?.name ?? '', lease.spec?.holderIdentity ?? '', since(lease.metadata?.creationTimestamp, ctx.now)] };
  },
};

/** extractCSRStatus: Denied / Approved / Pending, then ",Failed" and ",Issued". */
export function csrCondition(csr: CertificateSigningRequest): string {
  let approved = false;
  let denied = false;
  let failed = false;
  for (const c of csr.status?.conditions ?? []) {
    if (c.type === 'Approved') approved = true;
    else if (c.type === 'Denied') denied = true;
    else if (c.type === 'Failed') failed = true;
  }
  let status = denied ? 'Denied' : approved ? 'Approved' : 'Pending';
  if (failed) status += ',Failed';
  if (csr.status?.certificate) status += ',Issued';
  return status;
}

/** certificates.k8s.io/v1 CertificateSigningRequest: Name, Age, SignerName, Requestor, RequestedDuration, Condition. */
export const csrPrinter: Printer<CertificateSigningRequest> = {
  columns: [
    nameColumn(),
    ageColumn(),
    column('SignerName', 'string', 'The signer the request is addressed to.'),
    column('Requestor', 'string', 'The user who created the request.'),
    column('RequestedDuration', 'string', 'The certificate lifetime requested (expirationSeconds).'),
    column('Condition', 'string', 'Approved, Denied or Pending, and whether it failed or was issued.'),
  ],
  row(csr: CertificateSigningRequest, ctx: PrintContext): PrintedRow {
    const seconds = csr.spec?.expirationSeconds;
    return {
      cells: [
        csr.metadata?.name ?? '',
        since(csr.metadata?.creationTimestamp, ctx.now),
        csr.spec?.signerName || '<none>',
        csr.spec?.username ?? '',
        seconds === undefined || seconds === null ? '<none>' : humanDuration(int(seconds) * 1000),
        csrCondition(csr),
      ],
    };
  },
};

/** policy/v1 PodDisruptionBudget: Name, Min Available, Max Unavailable, Allowed Disruptions, Age. */
export const podDisruptionBudgetPrinter: Printer<PodDisruptionBudget> = {
  columns: [
    nameColumn(),
    column('Min Available', 'string', 'Pods that must stay available (number or percentage).'),
    column('Max Unavailable', 'string', 'Pods that may be unavailable (number or percentage).'),
    column('Allowed Disruptions', 'integer', 'Pod disruptions currently allowed.'),
    ageColumn(),
  ],
  row(pdb: PodDisruptionBudget, ctx: PrintContext): PrintedRow {
    const min = pdb.spec?.minAvailable;
    const max = pdb.spec?.maxUnavailable;
    return {
      cells: [
        pdb.metadata?.name ?? '',
        min === undefined || min === null ? 'N/A' : intOrString(min),
        max === undefined || max === null ? 'N/A' : intOrString(max),
        int(pdb.status?.disruptionsAllowed),
        since(pdb.metadata?.creationTimestamp, ctx.now),
      ],
    };
  },
};
