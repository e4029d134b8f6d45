// PATCH with application/apply-patch+yaml (server-side apply), PARTIAL: the
// applied configuration creates the object when it is missing and is merged
// into it (strategic merge semantics) when it exists. Field ownership
// (managedFields), conflicts between managers and the removal of fields a
// manager stops applying are not implemented yet: fields dropped from the
// configuration stay on the object.
import { badRequest, fieldError, invalid } from '../../shared/api/errors.ts';
import { applyStrategicMergePatch, mergeSchemaFor, PatchError } from '../../shared/patch/index.ts';
import { parseYaml } from '../http/codec.ts';
import { objectKey } from '../registry/keys.ts';
import { checkNamespace, checkTypeMeta, prepareCreate, prepareUpdate, readyToDelete } from '../registry/lifecycle.ts';
import { admitNamespace } from './namespace-lifecycle.ts';
import { commitWrite } from './commit-write.ts';
import { checkPatched } from './decode-object.ts';
import { isDryRun } from './dry-run.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';

/** Serves an apply patch on the main resource. */
export async function handleApply(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name, subresource } = r.info;
  if (!r.query.get('fieldManager')) {
    throw invalid('PatchOptions', 'meta.k8s.io', '', [fieldError.required('fieldManager', 'is required for apply patch')]);
  }
  if (subresource) throw badRequest(`server-side apply of the ${subresource} subresource is not supported by ksim yet`);
  const applied = parseYaml(await r.body());
  checkTypeMeta(rt, applied);
  if (applied.metadata.name !== name) {
    throw badRequest(`the name of the object (${applied.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  }
  const { obj: config, warnings } = checkPatched(r, rt, applied);
  const dryRun = isDryRun(r.query);
  const now = ctx.now();
  const res = await commitWrite(
    ctx,
    rt,
    objectKey(rt, namespace, name),
    (cur) => {
      if (!cur) {
        const obj = structuredClone(config);
        checkNamespace(rt, obj, namespace);
        admitNamespace(ctx.store, rt, namespace);
        prepareCreate(rt, obj, now, ctx.newUid());
        if (!dryRun) ctx.admission.admit('CREATE', rt, obj);
        return obj;
      }
      let merged: any;
      try {
        merged = applyStrategicMergePatch(cur, config, mergeSchemaFor(rt.kind));
      } catch (err) {
        if (err instanceof PatchError) throw badRequest(err.message);
        throw err;
      }
      const next = prepareUpdate(rt, merged, cur, '', dryRun ? undefined : (o, old) => ctx.admission.admit('UPDATE', rt, o, old));
      if (next && readyToDelete(rt, next)) return null;
      return next;
    },
    dryRun,
    (json) => json,
  );
  return { ...res, warnings };
}
