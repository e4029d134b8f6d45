// Reads metav1.DeleteOptions from a DELETE, as kube's delete handler does: a
// non-empty body is decoded by its Content-Type (JSON, YAML or protobuf, as
// helm 4 sends it; 415 for anything else) and then the query parameters are
// not read at all; without a body the options come from the query.
import { badRequest, fieldError, invalid, type FieldError } from '../../shared/api/errors.ts';
import { queryBool } from '../../shared/api/query-bool.ts';
import type { DeleteOptions } from '../registry/lifecycle.ts';
import { decodeBytes } from './decode-object.ts';

const POLICIES = ['Foreground', 'Background', 'Orphan'];

/** The options of a DELETE, with the dryRun it asks for. */
export interface ReadDeleteOptions extends DeleteOptions {
  dryRun: boolean;
}

/** The options from the query parameters (kube's ParameterCodec: a bad number is a 400). */
function fromQuery(query: URLSearchParams): DeleteOptions & { dryRun?: string[] } {
  const opts: DeleteOptions & { dryRun?: string[] } = {};
  const grace = query.get('gracePeriodSeconds');
  if (grace !== null && grace !== '') {
    if (!/^[+-]?\d+$/.test(grace)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`);
    opts.gracePeriodSeconds = Number(grace);
  }
  const policy = query.get('propagationPolicy');
  if (policy) opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  const orphan = queryBool(query, 'orphanDependents');
  if (orphan !== undefined) opts.orphanDependents = orphan;
  const dryRun = query.getAll('dryRun');
  if (dryRun.length) opts.dryRun = dryRun;
  return opts;
}

/** The options from a body; decoding errors are kube's 400s. */
function fromBody(body: Buffer, contentType: string | undefined): DeleteOptions & { dryRun?: string[] } {
  // Delete bodies are decoded without field validation: unknown fields are dropped silently.
  // The client's JSON, each field read only when it has the type DeleteOptions gives it.
  const b = (decodeBytes(body, contentType, 'Ignore', { group: '', version: 'v1', kind: 'DeleteOptions' }).obj ?? {}) as Record<
    string,
    unknown
  >;
  if (b.kind !== undefined && b.kind !== '' && b.kind !== 'DeleteOptions')
    throw badRequest('decoded object cannot be converted to DeleteOptions');
  const opts: DeleteOptions & { dryRun?: string[] } = {};
  if (typeof b.gracePeriodSeconds === 'number') opts.gracePeriodSeconds = b.gracePeriodSeconds;
  if (typeof b.propagationPolicy === 'string') opts.propagationPolicy = b.propagationPolicy as DeleteOptions['propagationPolicy'];
  if (typeof b.orphanDependents === 'boolean') opts.orphanDependents = b.orphanDependents;
  if (b.preconditions && typeof b.preconditions === 'object') opts.preconditions = b.preconditions;
  if (Array.isArray(b.dryRun) && b.dryRun.length) opts.dryRun = b.dryRun;
  return opts;
}

/** The effective delete options: from the body when there is one, else from the query. */
export function readDeleteOptions(body: Buffer, query: URLSearchParams, contentType?: string): ReadDeleteOptions {
  const { dryRun, ...opts } = body.length > 0 ? fromBody(body, contentType) : fromQuery(query);
  // kube's ValidateDeleteOptions.
  const errors: FieldError[] = [];
  if (opts.orphanDependents !== undefined && opts.propagationPolicy !== undefined) {
    errors.push(
      fieldError.invalid('propagationPolicy', opts.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'),
    );
  }
  if (opts.propagationPolicy !== undefined && !POLICIES.includes(opts.propagationPolicy)) {
    errors.push(fieldError.notSupported('propagationPolicy', opts.propagationPolicy, [...POLICIES, 'nil']));
  }
  if (dryRun?.some((v) => v !== 'All')) {
    // Go prints the []string with %#v.
    const value = `[]string{${dryRun.map((v) => JSON.stringify(v)).join(', ')}}`;
    errors.push({
      type: 'FieldValueNotSupported',
      field: 'dryRun',
      message: `dryRun: Unsupported value: ${value}: supported values: "All"`,
    });
  }
  if (errors.length) throw invalid('DeleteOptions', 'meta.k8s.io', '', errors);
  return { ...opts, dryRun: dryRun !== undefined };
}
