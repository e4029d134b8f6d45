// Who made a write, as history keeps it with the revision: the request's
// user, groups and user agent, its verb and subresource, the field manager
// (kube's: the fieldManager parameter, else the user agent's product), and
// the cause a component's client sends in X-Ksim-Cause (shared/api/write-cause.ts),
// and the request's audit ID.
// Writes the apiserver makes itself (bootstrap, reconciled RBAC, the CRD
// controller, Event expiry, quota charges) are recorded as system:apiserver
// with the job as the cause's controller.
import { badRequest } from '../../shared/api/errors.ts';
import { CAUSE_HEADER, decodeCause, InvalidCause } from '../../shared/api/write-cause.ts';
import { managerName } from '../fieldmanager/index.ts';
import { AUDIT_ID_HEADER } from '../audit/auditor.ts';
import type { WriteRecord } from '../storage/types.ts';
import type { ApiRequest } from './context.ts';

const records = new WeakMap<ApiRequest, WriteRecord>();

/** The write record of request `r` (made once per request); throws 400 for a malformed X-Ksim-Cause header. */
/** The request's audit ID: the apiserver sets the answer's Audit-Id before authentication; it links a write to its request's trace. */
export function requestIDOf(r: ApiRequest): string | undefined {
  const id = r.res.getHeader(AUDIT_ID_HEADER);
  return typeof id === 'string' ? id : undefined;
}

export function writeRecordOf(r: ApiRequest): WriteRecord {
  let rec = records.get(r);
  if (rec) return rec;
  const userAgent = r.req.headers['user-agent'];
  rec = { user: r.user.username, verb: r.info.verb };
  if (r.user.groups.length) rec.groups = r.user.groups;
  if (userAgent) rec.userAgent = userAgent;
  if (r.info.subresource) rec.subresource = r.info.subresource;
  const requestID = requestIDOf(r);
  if (requestID) rec.requestID = requestID;
  const manager = managerName(r.query, userAgent);
  if (manager) rec.fieldManager = manager;
  const header = r.req.headers[CAUSE_HEADER];
  if (typeof header === 'string') {
    try {
      rec.cause = decodeCause(header);
    } catch (err) {
      if (err instanceof InvalidCause) throw badRequest(err.message);
      throw err;
    }
  }
  records.set(r, rec);
  return rec;
}

/** The record of a write the apiserver makes on its own, for `job` (e.g. "bootstrap", "crd-controller"). */
export function apiserverWrite(job: string, verb: string): WriteRecord {
  return { user: 'system:apiserver', verb, cause: { controller: job } };
}
