// LIST of a collection: selectors, paging with limit/continue over one
// consistent revision, and kube's resourceVersion / resourceVersionMatch rules.
import { badRequest, gone } from '../../shared/api/errors.ts';
import { apiVersionOf, type ResourceType } from '../../shared/api/resource-type.ts';
import { collectionPrefix } from '../registry/keys.ts';
import { decodeContinue, encodeContinue } from './continue-token.ts';
import { parseResourceVersion, waitForRevision } from './resource-version.ts';
import { buildFilter } from './selectors.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';

/** Builds a list body around already-serialized items. */
export function listJson(rt: ResourceType, rev: number, items: string[], cont?: string, remaining?: number): string {
  let meta = `{"resourceVersion":"${rev}"`;
  if (cont) meta += `,"continue":"${cont}"`;
  if (remaining !== undefined && remaining > 0) meta += `,"remainingItemCount":${remaining}`;
  meta += '}';
  return `{"kind":"${rt.listKind}","apiVersion":"${apiVersionOf(rt)}","metadata":${meta},"items":[${items.join(',')}]}`;
}

/** Serves a list. */
export async function handleList(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const rt = r.info.resource;
  const q = r.query;
  const filter = buildFilter(rt, q);
  const limit = parseResourceVersion(q.get('limit'), 'limit');
  const rv = parseResourceVersion(q.get('resourceVersion'));
  const match = q.get('resourceVersionMatch') ?? '';
  const token = q.get('continue') ?? '';
  if (match && !['Exact', 'NotOlderThan'].includes(match)) {
    throw badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
  }
  if (match && rv === undefined) throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  if (match === 'Exact' && rv === 0) throw badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  if (token && rv !== undefined && rv !== 0) throw badRequest('specifying resource version is not allowed when using continue');

  let namespace = r.info.namespace;
  if (filter.namespace !== undefined) {
    if (namespace && namespace !== filter.namespace) return { status: 200, json: listJson(rt, ctx.store.revision, []), list: { items: [], rev: ctx.store.revision } };
    namespace = filter.namespace;
  }
  const prefix = collectionPrefix(rt, namespace);
  let atRev: number | undefined;
  let startAfter: string | undefined;
  if (token) {
    const point = decodeContinue(token);
    if (point.rev < ctx.store.compactedRevision) {
      throw gone(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
    }
    atRev = point.rev;
    startAfter = prefix + point.afterKey;
  } else if (rv !== undefined && rv > 0) {
    const exact = match === 'Exact' || (match === '' && limit !== undefined && limit > 0);
    if (exact) {
      if (rv < ctx.store.compactedRevision) throw gone('The resourceVersion for the provided list is too old.');
      await waitForRevision(ctx.store, rv);
      atRev = rv;
    } else {
      await waitForRevision(ctx.store, rv);
    }
  }
  if (filter.name !== undefined && (!rt.namespaced || namespace)) {
    // A name pins the key: a range of one.
    const key = prefix + filter.name;
    const page = ctx.store.list({ bucket: rt.storagePrefix, keyPrefix: key, atRev, matches: (o) => o?.metadata?.name === filter.name && (!filter.matches || filter.matches(o)) });
    return { status: 200, json: listJson(rt, page.rev, page.items), list: { items: page.items, rev: page.rev } };
  }
  const page = ctx.store.list({ bucket: rt.storagePrefix, keyPrefix: prefix, startAfter, atRev, limit, matches: filter.matches });
  const cont = page.lastKey !== undefined ? encodeContinue({ rev: page.rev, afterKey: page.lastKey.slice(prefix.length) }) : undefined;
  const remaining = cont && !filter.matches ? page.remaining : undefined;
  return { status: 200, json: listJson(rt, page.rev, page.items, cont, remaining), list: { items: page.items, rev: page.rev, continue: cont, remaining } };
}
