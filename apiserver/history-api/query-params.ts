// The query parameters the history API's reads share (history-api/handler.ts,
// request-trace/routes.ts), each checked with a 400 that names it.
import { badRequest } from '../../shared/api/errors.ts';

/** A query parameter that must be a revision (a resourceVersion): undefined when absent. */
export function revisionParam(query: URLSearchParams, name: string): number | undefined {
  const v = query.get(name);
  if (v === null || v === '') return undefined;
  if (!/^[1-9]\d{0,15}$/.test(v)) throw badRequest(`${name}: must be a resourceVersion (a positive integer), not ${JSON.stringify(v)}`);
  return Number(v);
}

/** The `limit` query parameter of a history read: undefined when absent or 0. */
export function limitParam(query: URLSearchParams): number | undefined {
  const v = query.get('limit');
  if (v === null || v === '') return undefined;
  if (!/^\d{1,9}$/.test(v)) throw badRequest(`limit: must be a non-negative integer, not ${JSON.stringify(v)}`);
  return Number(v) || undefined;
}
