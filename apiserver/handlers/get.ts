// GET of one object (and of the status subresource, which is the object).
import { notFound } from '../../shared/api/errors.ts';
import { objectKey } from '../registry/keys.ts';
import { parseResourceVersion, waitForRevision } from './resource-version.ts';
import { resourceStore } from './resource-store.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';

/** Serves a get. */
export async function handleGet(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name } = r.info;
  const rv = parseResourceVersion(r.query.get('resourceVersion'));
  if (rv !== undefined && rv > 0) await waitForRevision(ctx.store, rv);
  const entry = resourceStore(ctx.store, rt).get(objectKey(rt, namespace, name));
  if (!entry) throw notFound({ group: rt.group, resource: rt.plural }, name);
  return { status: 200, json: entry.json };
}
