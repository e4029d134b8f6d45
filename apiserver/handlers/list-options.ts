// kube's ValidateListOptions for list and watch requests
// (apimachinery/pkg/apis/meta/internalversion/validation): the
// resourceVersionMatch / sendInitialEvents / continue combinations a request
// may not make. Every violation is collected and answered as kube-apiserver's
// ListResource answers them: 422 Invalid for the `ListOptions.meta.k8s.io`
// kind with an empty name, one cause per violation.
import { fieldError, invalid, type FieldError } from '../../shared/api/errors.ts';
import { queryBool } from '../../shared/api/query-bool.ts';

const MATCH = 'resourceVersionMatch';

/** The violations of a list (watch false) or watch request's options, in kube's order. */
export function listOptionErrors(q: URLSearchParams, watch: boolean): FieldError[] {
  const match = q.get(MATCH) ?? '';
  const sendInitialEvents = queryBool(q, 'sendInitialEvents');
  const continued = !!q.get('continue');
  const errors: FieldError[] = [];
  if (watch) {
    if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      errors.push(fieldError.forbidden(MATCH, 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match) {
      if (sendInitialEvents === undefined) {
        errors.push(fieldError.forbidden(MATCH, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      }
      if (match !== 'NotOlderThan') errors.push(fieldError.notSupported(MATCH, match, ['NotOlderThan']));
      if (continued) errors.push(fieldError.forbidden(MATCH, 'resourceVersionMatch is forbidden when continue is provided'));
    }
    return errors;
  }
  if (match) {
    if (!q.get('resourceVersion')) {
      errors.push(fieldError.forbidden(MATCH, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    }
    if (continued) errors.push(fieldError.forbidden(MATCH, 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errors.push(fieldError.notSupported(MATCH, match, ['Exact', 'NotOlderThan', '']));
    }
    if (match === 'Exact' && q.get('resourceVersion') === '0') {
      errors.push(fieldError.forbidden(MATCH, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (sendInitialEvents !== undefined) errors.push(fieldError.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errors;
}

/** Throws kube's 422 when the options of a list or watch are not valid together. */
export function checkListOptions(q: URLSearchParams, watch: boolean): void {
  const errors = listOptionErrors(q, watch);
  if (errors.length) throw invalid('ListOptions', 'meta.k8s.io', '', errors);
}
