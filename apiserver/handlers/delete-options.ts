// Reads metav1.DeleteOptions from a DELETE's body and query parameters.
import { badRequest } from '../../shared/api/errors.ts';
import { queryBool } from '../../shared/api/query-bool.ts';
import { parseJson } from '../http/codec.ts';
import type { DeleteOptions } from '../registry/lifecycle.ts';

const POLICIES = ['Orphan', 'Background', 'Foreground'];

/** The effective delete options; the body wins over query parameters. */
export function readDeleteOptions(body: Buffer, query: URLSearchParams): DeleteOptions {
  const opts: DeleteOptions = {};
  const grace = query.get('gracePeriodSeconds');
  if (grace !== null && grace !== '') opts.gracePeriodSeconds = Number(grace);
  const policy = query.get('propagationPolicy');
  if (policy) opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  const orphan = queryBool(query, 'orphanDependents');
  if (orphan !== undefined) opts.orphanDependents = orphan;
  if (body.length > 0) {
    const b = parseJson(body);
    if (b && typeof b === 'object') {
      if (b.gracePeriodSeconds !== undefined && b.gracePeriodSeconds !== null) opts.gracePeriodSeconds = b.gracePeriodSeconds;
      if (b.propagationPolicy) opts.propagationPolicy = b.propagationPolicy;
      if (typeof b.orphanDependents === 'boolean') opts.orphanDependents = b.orphanDependents;
      if (b.preconditions) opts.preconditions = b.preconditions;
    }
  }
  if (opts.gracePeriodSeconds !== undefined && !Number.isInteger(opts.gracePeriodSeconds)) {
    throw badRequest(`gracePeriodSeconds: Invalid value: ${JSON.stringify(opts.gracePeriodSeconds)}: must be an integer`);
  }
  if (opts.propagationPolicy && !POLICIES.includes(opts.propagationPolicy)) {
    throw badRequest(`propagationPolicy: Unsupported value: "${opts.propagationPolicy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  if (opts.propagationPolicy && opts.orphanDependents !== undefined) {
    throw badRequest('orphanDependents: Invalid value: ... : orphanDependents and deletionPropagation cannot be both set');
  }
  return opts;
}
