// The query parameters the history API's reads share (history-api/handler.ts,
// changes-watch.ts, request-trace/routes.ts), each checked with a 400 that names it.
import { badRequest } from '../../shared/api/errors.ts';
import { resourceOfSegment } from './object-ref.ts';

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

/**
 * `resource=pods,deployments.apps`: the storage prefixes of the resources
 * named (each "RESOURCE[.GROUP]" as in the history paths); undefined when
 * absent. Two APIs for one storage (core and events.k8s.io Events) share a prefix.
 */
export function resourcePrefixesParam(query: URLSearchParams): string[] | undefined {
  const v = query.get('resource');
  if (v === null || v === '') return undefined;
  const prefixes = new Set<string>();
  for (const segment of v.split(',')) {
    const rt = resourceOfSegment(segment.trim());
    if (!rt)
      throw badRequest(
        `resource: ${JSON.stringify(segment)} is not a served resource (RESOURCE or RESOURCE.GROUP, e.g. pods or deployments.apps)`,
      );
    prefixes.add(`${rt.storagePrefix}/`);
  }
  return [...prefixes];
}
