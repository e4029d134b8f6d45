// The dryRun query parameter: only "All" is valid, as in kube.
import { badRequest } from '../../shared/api/errors.ts';

/** True for ?dryRun=All; throws 400 for any other value. */
export function isDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== 'All') throw badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  }
  return true;
}
