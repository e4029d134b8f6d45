// CertificateSigningRequest updates as kube's CSR strategies have them
// (pkg/registry/certificates/certificates/strategy.go and
// pkg/apis/certificates/validation): the rules on status.conditions, which
// Approved/Denied conditions each update path may touch, the condition
// timestamps the server fills in, and what the approval subresource keeps.
// The create-time checks of spec live in misc.ts (validateCSR).
import type { UserInfo } from '../../auth/user-info.ts';
import { X509Certificate } from 'node:crypto';
import { fe, index, semanticEqual, zero, type FieldError } from './field.ts';
import type {
  CertificateSigningRequest as CSR,
  CertificateSigningRequestCondition,
  CertificateSigningRequestSpec,
} from 'kubernetes-types/certificates/v1.js';
import { validateCSR } from './misc.ts';

const APPROVED = 'Approved';
const DENIED = 'Denied';
const FAILED = 'Failed';
/** Condition types whose status may only be True. */
const TRUE_ONLY = new Set([APPROVED, DENIED, FAILED]);
const ALL_STATUSES = ['False', 'True', 'Unknown'];
const CONDITIONS = 'status.conditions';

/**
 * csrStrategy.PrepareForCreate's spec part: the requesting user's identity
 * is the server's to fill in, never the client's (whatever it claims is
 * dropped), so a signer and an approver can trust spec.username, uid,
 * groups and extra. Without a requestor (a write made by the server
 * itself) they stay empty.
 */
export function prepareCSRCreate(csr: CSR, requestor?: UserInfo): void {
  const spec = (csr.spec ??= zero<CertificateSigningRequestSpec>());
  delete spec.uid;
  delete spec.extra;
  delete spec.username;
  delete spec.groups;
  if (!requestor) return;
  spec.username = requestor.username;
  if (requestor.uid) spec.uid = requestor.uid;
  spec.groups = [...requestor.groups];
  if (requestor.extra && Object.keys(requestor.extra).length > 0) spec.extra = structuredClone(requestor.extra);
}

/** What an update path may change beyond what every update may (kube's certificateValidationOptions). */
export interface CSRUpdatePath {
  /** The approval subresource: Approved/Denied conditions may be added or changed. */
  approval?: boolean;
  /** The status subresource: status.certificate may be set once. */
  certificate?: boolean;
}

/** A condition as a client may send it: type and status possibly missing, times possibly null. */
type Condition = {
  type?: string;
  status?: string;
  lastUpdateTime?: string | null;
  lastTransitionTime?: string | null;
  [k: string]: unknown;
};

/** Whatever carries status.conditions: a CSR, or the conditions an approval request asks for. */
type WithConditions = { status?: { conditions?: unknown } };

function conditionsOf(csr: WithConditions | undefined): Condition[] {
  const list = csr?.status?.conditions;
  return Array.isArray(list) ? (list as Condition[]) : [];
}
const ofType = (csr: CSR, t: string) => conditionsOf(csr).filter((c) => c?.type === t);

/** Bad data already stored is tolerated on update (kube's getValidationOptions). */
interface Tolerated {
  bothApprovedAndDenied: boolean;
  duplicateTypes: boolean;
  emptyType: boolean;
}

function tolerated(old: CSR): Tolerated {
  const types = conditionsOf(old).map((c) => c?.type ?? '');
  return {
    bothApprovedAndDenied: types.includes(APPROVED) && types.includes(DENIED),
    duplicateTypes: new Set(types).size !== types.length,
    emptyType: types.includes(''),
  };
}

/** validateConditions: each has a type and a status; Approved and Denied exclude each other; a type appears once. */
export function validateConditions(csr: CSR, old?: CSR): FieldError[] {
  const allow = old ? tolerated(old) : { bothApprovedAndDenied: false, duplicateTypes: false, emptyType: false };
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(csr).forEach((c, i) => {
    const type = String(c?.type ?? '');
    const status = String(c?.status ?? '');
    if (!allow.emptyType && type === '') errs.push(fe.required(`${index(CONDITIONS, i)}.type`));
    const allowed = TRUE_ONLY.has(type) ? ['True'] : ALL_STATUSES;
    if (status === '') errs.push(fe.required(`${index(CONDITIONS, i)}.status`));
    else if (!allowed.includes(status)) errs.push(fe.notSupported(`${index(CONDITIONS, i)}.status`, status, allowed));
    if (!allow.bothApprovedAndDenied) {
      if (type === APPROVED) {
        approved = true;
        if (denied) errs.push(fe.invalid(CONDITIONS, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === DENIED) {
        denied = true;
        if (approved) errs.push(fe.invalid(CONDITIONS, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!allow.duplicateTypes) {
      if (seen.has(type)) errs.push(fe.duplicate(`${index(CONDITIONS, i)}.type`, type));
      seen.add(type);
    }
  });
  return errs;
}

/** The PEM text of status.certificate (a base64 []byte on the wire), '' when unset. */
function certificatePem(csr: CSR | undefined): string {
  const b64 = csr?.status?.certificate;
  return typeof b64 === 'string' && b64 !== '' ? Buffer.from(b64, 'base64').toString('latin1') : '';
}

/** validateCertificate: one or more CERTIFICATE PEM blocks without headers, each a parsable certificate. */
function certificateProblem(pem: string): string | undefined {
  if (pem === '') return undefined;
  const blocks = [...pem.matchAll(/-----BEGIN ([^-\r\n]+)-----\r?\n([\s\S]*?)-----END \1-----/g)];
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const [whole, type, body] of blocks) {
    if (type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(type)}`;
    if (/^[^\s:]+:/m.test(body)) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(whole);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return undefined;
}

/** A short old/new rendering where kube prints a cmp.Diff (whose format kube itself calls unstable). */
function conditionDiff(before: Condition[], after: Condition[]): string {
  return `-${JSON.stringify(before)}\n+${JSON.stringify(after)}`;
}

/**
 * ValidateCertificateSigningRequest{,Status,Approval}Update: the create-time
 * checks (spec only when it changed: every path keeps the stored spec), the
 * conditions, no Approved/Denied/Failed condition removed, Approved/Denied
 * added or changed only through the approval path, status.certificate set
 * only through the status path and only once.
 */
export function validateCSRUpdate(csr: CSR, old: CSR, path: CSRUpdatePath = {}): FieldError[] {
  const errs: FieldError[] = semanticEqual(csr.spec, old.spec) ? [] : validateCSR(csr);
  errs.push(...validateConditions(csr, old));
  const certChanged = certificatePem(csr) !== certificatePem(old);
  if (certChanged && certificateProblem(certificatePem(old)) === undefined) {
    const problem = certificateProblem(certificatePem(csr));
    if (problem) errs.push(fe.invalidShown('status.certificate', '"<certificate data>"', problem));
  }
  for (const t of [APPROVED, DENIED, FAILED]) {
    if (ofType(csr, t).length < ofType(old, t).length)
      errs.push(fe.forbidden(CONDITIONS, `updates may not remove a condition of type ${JSON.stringify(t)}`));
  }
  if (!path.approval) {
    for (const t of [APPROVED, DENIED]) {
      const before = ofType(old, t);
      const after = ofType(csr, t);
      if (after.length > before.length) errs.push(fe.forbidden(CONDITIONS, `updates may not add a condition of type ${JSON.stringify(t)}`));
      else if (after.length === before.length && !semanticEqual(before, after)) {
        errs.push(
          fe.forbidden(CONDITIONS, `updates may not modify a condition of type ${JSON.stringify(t)}\n${conditionDiff(before, after)}`),
        );
      }
    }
  }
  if (certChanged) {
    if (!path.certificate) errs.push(fe.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (certificatePem(old) !== '')
      errs.push(fe.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

/**
 * The CSR rule for every write but the approval subresource. On create the
 * status is empty; on a plain update the stored status is kept, so any
 * status change seen here came through the status subresource, which may set
 * the certificate but not the approval conditions.
 */
export function validateCSRWrite(csr: CSR, old?: CSR): FieldError[] {
  if (!old) return [...validateCSR(csr), ...validateConditions(csr)];
  return validateCSRUpdate(csr, old, { certificate: true });
}

/** populateConditionTimestamps: lastUpdateTime now when unset; lastTransitionTime kept from the same type and status, else now. */
export function populateConditionTimestamps(csr: CSR, old: CSR, now: string): void {
  for (const c of conditionsOf(csr)) {
    if (!c || typeof c !== 'object') continue;
    if (!c.lastUpdateTime) c.lastUpdateTime = now;
    if (!c.lastTransitionTime) {
      const same = conditionsOf(old).find((o) => o?.type === c.type && o?.status === c.status && o?.lastTransitionTime);
      c.lastTransitionTime = same?.lastTransitionTime ?? now;
    }
  }
}

/**
 * csrApprovalStrategy.PrepareForUpdate: `next` (the update as the main
 * resource would store it: the stored spec and status, the request's
 * metadata) with the request's conditions, timestamps filled in. Only the
 * conditions come from `requested`; everything else in its status is ignored.
 */
export function applyApproval(next: CSR, requested: WithConditions, old: CSR, now: string): CSR {
  // The client's conditions, checked by validateCSRUpdate afterwards.
  const conditions = structuredClone(conditionsOf(requested)) as CertificateSigningRequestCondition[];
  const out = { ...next, status: { ...old.status } };
  if (conditions.length > 0) out.status.conditions = conditions;
  else delete out.status.conditions;
  populateConditionTimestamps(out, old, now);
  return out;
}
