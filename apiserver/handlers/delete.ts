// DELETE of one object and of a collection: at once, or marked with a
// deletionTimestamp while finalizers or a Pod's grace period hold it.
import { notFound, StatusError } from '../../shared/api/errors.ts';
import type { ResourceType } from '../../shared/api/resource-type.ts';
import { collectionPrefix, objectKey } from '../registry/keys.ts';
import { planDelete, type DeleteOptions } from '../registry/lifecycle.ts';
import { strategyFor } from '../registry/strategy.ts';
import type { Mutate, StoredObject } from '../storage/types.ts';
import { admissionAttributes } from './write-object.ts';
import { readDeleteOptions } from './delete-options.ts';
import { listJson } from './list.ts';
import { buildFilter } from './selectors.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';
import { resourceStore } from './resource-store.ts';
import { writeRecordOf } from './write-record.ts';

function deleteMutation(rt: ResourceType, name: string, opts: DeleteOptions, now: Date, admit: (cur: StoredObject) => void): Mutate {
  return (cur) => {
    if (!cur) throw notFound({ group: rt.group, resource: rt.plural }, name);
    admit(cur);
    const plan = planDelete(rt, cur, opts, now);
    return plan.action === 'delete' ? null : plan.obj;
  };
}

function successStatus(rt: ResourceType, json: string): string {
  const meta = JSON.parse(json).metadata;
  const details: Record<string, string> = { name: meta.name };
  if (rt.group) details.group = rt.group;
  details.kind = rt.plural;
  details.uid = meta.uid;
  return JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details });
}

/** Serves a delete of one object. */
export async function handleDelete(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name } = r.info;
  const opts = readDeleteOptions(await r.body(), r.query, r.contentType);
  const key = objectKey(rt, namespace, name);
  const attrs = admissionAttributes(r, 'DELETE', opts.dryRun, []);
  const mutate = deleteMutation(rt, name, opts, ctx.now(), (cur) => ctx.admission.admitDelete(rt, cur, attrs));
  const objects = resourceStore(ctx.store, rt);
  if (opts.dryRun) {
    const cur = objects.get(key);
    const next = mutate(cur ? JSON.parse(cur.json) : undefined);
    return next === null ? { status: 200, json: cur!.json } : { status: 202, json: JSON.stringify(next) };
  }
  const result = await objects.txn(key, mutate, { writer: writeRecordOf(r) });
  if (result.type === 'DELETED') {
    ctx.admission.deleted(rt, JSON.parse(result.json!));
    return { status: 200, json: strategyFor(rt).returnDeletedObject ? result.json! : successStatus(rt, result.json!) };
  }
  return { status: 202, json: result.json! };
}

/** Serves a deletecollection: deletes every object the selectors match, answering with the list of them. */
export async function handleDeleteCollection(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const rt = r.info.resource;
  const filter = buildFilter(rt, r.query);
  const opts = readDeleteOptions(await r.body(), r.query, r.contentType);
  const dryRun = opts.dryRun;
  const prefix = collectionPrefix(rt, r.info.namespace);
  const objects = resourceStore(ctx.store, rt);
  const page = objects.list({ bucket: rt.storagePrefix, keyPrefix: prefix, matches: filter.matches });
  const now = ctx.now();
  const attrs = admissionAttributes(r, 'DELETE', dryRun, []);
  const admit = (cur: StoredObject) => ctx.admission.admitDelete(rt, cur, { ...attrs, name: cur.metadata.name ?? '' });
  const done = await Promise.all(
    page.items.map(async (json) => {
      const meta = JSON.parse(json).metadata;
      if (dryRun) {
        admit(JSON.parse(json));
        return json;
      }
      try {
        const res = await objects.txn(objectKey(rt, meta.namespace ?? '', meta.name), deleteMutation(rt, meta.name, opts, now, admit), {
          writer: writeRecordOf(r),
        });
        if (res.type === 'DELETED') ctx.admission.deleted(rt, JSON.parse(res.json!));
        return res.json!;
      } catch (err) {
        // An admission refusal fails the call, as kube's DeleteCollection returns its errors.
        if (err instanceof StatusError && err.code === 403) throw err;
        return undefined; // Deleted by someone else meanwhile: nothing left to do.
      }
    }),
  );
  return {
    status: 200,
    json: listJson(
      rt,
      ctx.store.revision,
      done.filter((j): j is string => j !== undefined),
    ),
  };
}
