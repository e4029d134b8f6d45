// What kube's ValidatingAdmissionPolicy status controller decides for one
// policy: nothing while status.observedGeneration is the policy's
// generation, else the status to write: that generation, and the type
// checking of its expressions against the kinds it matches.
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyStatus } from 'kubernetes-types/admissionregistration/v1.js';
import { typeCheck } from '../../../apiserver/admission/validating-admission-policy/type-check.ts';

/** The status to write for `policy`, or undefined when its status is current. */
export function planStatus(policy: ValidatingAdmissionPolicy): ValidatingAdmissionPolicyStatus | undefined {
  const generation = policy.metadata?.generation ?? 0;
  if (policy.metadata?.deletionTimestamp) return undefined;
  if (policy.status?.observedGeneration === generation) return undefined;
  const warnings = typeCheck(policy);
  return {
    ...policy.status,
    observedGeneration: generation,
    typeChecking: warnings.length ? { expressionWarnings: warnings } : {},
  };
}
