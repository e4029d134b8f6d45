// PUT certificatesigningrequests/<name>/approval: how `kubectl certificate
// approve` and `deny` record a decision. kube's csrApprovalStrategy: the
// update is the main resource's (metadata from the request, spec and status
// as stored), except that status.conditions come from the request, with their
// timestamps filled in; then the approval-path validation, the only one that
// lets Approved and Denied conditions be added or changed.
import { invalid } from '../../../shared/api/errors.ts';
import type { ResourceType } from '../../../shared/api/resource-type.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import { applyApproval, validateCSRUpdate } from '../../registry/kinds/certificates.ts';
import { timestamp } from '../../registry/lifecycle.ts';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { Mutate, StoredObject } from '../../storage/types.ts';

/**
 * Wraps `mainUpdate` (the update of the object itself) into the approval
 * update. `conditions` gives the requested status.conditions; it is called
 * after `mainUpdate`, which replaces the request's status with the stored
 * one, so the caller takes them before that (a PUT from its body up front; a
 * patch from the patched object, inside its `incoming`).
 */
export function approvalMutation(rt: ResourceType, conditions: () => unknown, now: Date, mainUpdate: Mutate): Mutate {
  return (cur) => {
    // Preconditions, metadata rules, admission and a missing object (404) are the main update's.
    const base = mainUpdate(cur);
    if (base === null) return null;
    // The main update threw for a missing object (a CSR is never created by an update), and hands back parsed objects only.
    const old = cur as CertificateSigningRequest & StoredObject;
    const requested = { status: { conditions: conditions() } };
    const next = applyApproval((base as CertificateSigningRequest | undefined) ?? structuredClone(old), requested, old, timestamp(now));
    const errs = validateCSRUpdate(next, old, { approval: true });
    if (errs.length > 0) throw invalid(rt.kind, rt.group, old.metadata.name ?? '', errs);
    return deepEqual(next, old) ? undefined : next;
  };
}
