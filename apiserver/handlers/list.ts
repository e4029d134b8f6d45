// LIST of a collection: selectors, paging with limit/continue over one
// consistent revision, and kube's resourceVersion / resourceVersionMatch rules.
import type { ServerResponse } from 'node:http';
import { badRequest, gone } from '../../shared/api/errors.ts';
import { apiVersionOf, type ResourceType } from '../../shared/api/resource-type.ts';
import { collectionPrefix } from '../registry/keys.ts';
import { decodeContinue, encodeContinue } from './continue-token.ts';
import { parseResourceVersion, waitForRevision } from './resource-version.ts';
import { buildFilter } from './selectors.ts';
import { checkListOptions } from './list-options.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';
import { resourceStore } from './resource-store.ts';

/** The list body up to its first item: kind, apiVersion, metadata, and `"items":[`. */
function listHead(rt: ResourceType, rev: number, cont?: string, remaining?: number): string {
  let head = `{"kind":"${rt.listKind}","apiVersion":"${apiVersionOf(rt)}","metadata":{"resourceVersion":"${rev}"`;
  if (cont) head += `,"continue":"${cont}"`;
  if (remaining !== undefined && remaining > 0) head += `,"remainingItemCount":${remaining}`;
  return head + '},"items":[';
}

/**
 * Builds a list body around already-serialized items, as one flat string
 * made by a single join: a page is about 1 MB, and every intermediate copy
 * of that size (a join, then concatenation that must be flattened again
 * before encoding) costs a few milliseconds of fresh memory.
 */
export function listJson(rt: ResourceType, rev: number, items: string[], cont?: string, remaining?: number): string {
  const head = listHead(rt, rev, cont, remaining);
  const tail = ']}';
  const n = items.length;
  if (n <= 1) return head + (items[0] ?? '') + tail;
  const parts = items.slice();
  parts[0] = head + parts[0];
  parts[n - 1] += tail;
  return parts.join(',');
}

/**
 * Buffers that held a page before. Writing a ~1 MB page into memory already
 * touched takes ~0.4 ms; into fresh memory (a new string or Buffer) 4-5 ms
 * on the benchmark machine, page faults being that slow there.
 */
const spareBuffers: Buffer[] = [];
const SPARE_BUFFERS = 4;
const SPARE_MAX_BYTES = 32 * 1024 * 1024;

/** Encodes a list body as UTF-8 into a spare buffer, which goes back to the spares once `res` has closed (sent or abandoned). */
export function encodeList(res: ServerResponse, rt: ResourceType, rev: number, items: string[], cont?: string, remaining?: number): Buffer {
  let buf = spareBuffers.pop() ?? Buffer.allocUnsafe(1024 * 1024);
  let len = 0;
  const put = (text: string) => {
    // Three bytes per UTF-16 unit is the most UTF-8 can take, so a write is never cut short.
    if (len + text.length * 3 > buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, len + text.length * 3));
      buf.copy(bigger, 0, 0, len);
      buf = bigger;
    }
    len += buf.write(text, len);
  };
  put(listHead(rt, rev, cont, remaining));
  for (let i = 0; i < items.length; i++) {
    if (i > 0) put(',');
    put(items[i]);
  }
  put(']}');
  const used = buf;
  res.once('close', () => {
    if (spareBuffers.length < SPARE_BUFFERS && used.length <= SPARE_MAX_BYTES) spareBuffers.push(used);
  });
  return used.subarray(0, len);
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
  checkListOptions(q, false);
  if (token && rv !== undefined && rv !== 0) throw badRequest('specifying resource version is not allowed when using continue');

  let namespace = r.info.namespace;
  if (filter.namespace !== undefined) {
    if (namespace && namespace !== filter.namespace)
      return { status: 200, json: listJson(rt, ctx.store.revision, []), list: { items: [], rev: ctx.store.revision } };
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
    const page = resourceStore(ctx.store, rt).list({
      bucket: rt.storagePrefix,
      keyPrefix: key,
      atRev,
      matches: (o) => o?.metadata?.name === filter.name && (!filter.matches || filter.matches(o)),
    });
    return { status: 200, json: listJson(rt, page.rev, page.items), list: { items: page.items, rev: page.rev } };
  }
  const page = resourceStore(ctx.store, rt).list({
    bucket: rt.storagePrefix,
    keyPrefix: prefix,
    startAfter,
    atRev,
    limit,
    matches: filter.matches,
  });
  const cont = page.lastKey !== undefined ? encodeContinue({ rev: page.rev, afterKey: page.lastKey.slice(prefix.length) }) : undefined;
  const remaining = cont && !filter.matches ? page.remaining : undefined;
  const list = { items: page.items, rev: page.rev, continue: cont, remaining };
  if (r.view === 'object' && r.format === 'json')
    return { status: 200, json: '', encoded: encodeList(r.res, rt, page.rev, page.items, cont, remaining), list };
  return { status: 200, json: listJson(rt, page.rev, page.items, cont, remaining), list };
}
