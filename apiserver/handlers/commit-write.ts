// Runs an update-style mutation against the store (or, for dryRun, against
// the current object only) and shapes the response: 201 when the write
// created the object, 200 otherwise.
import type { ResourceType } from '../../shared/api/resource-type.ts';
import type { Mutate, WriteRecord } from '../storage/types.ts';
import type { ApiContext, ApiResponse } from './context.ts';
import { resourceStore } from './resource-store.ts';

/** Commits `mutate` at `key` as `writer` made it; `view` turns the stored JSON into the response body (e.g. a Scale). */
export async function commitWrite(
  ctx: ApiContext,
  rt: ResourceType,
  key: string,
  mutate: Mutate,
  dryRun: boolean,
  view: (json: string) => string,
  writer: WriteRecord,
): Promise<ApiResponse> {
  const objects = resourceStore(ctx.store, rt);
  if (dryRun) {
    const cur = objects.get(key);
    const next = mutate(cur ? JSON.parse(cur.json) : undefined);
    // As a commit that changed nothing: the current object, when there is one (a mutation may leave a missing key missing).
    const json = next === undefined || next === null ? (cur?.json ?? '') : JSON.stringify(next);
    return { status: cur ? 200 : 201, json: json && view(json) };
  }
  const result = await objects.txn(key, mutate, { writer });
  // An update that removed the last finalizer deleted the object.
  if (result.type === 'DELETED') ctx.admission.deleted(rt, JSON.parse(result.json!));
  return { status: result.type === 'ADDED' ? 201 : 200, json: view(result.json!) };
}
