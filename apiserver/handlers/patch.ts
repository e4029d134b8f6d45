// PATCH with JSON patch (RFC 6902), merge patch (RFC 7396) or strategic
// merge patch, on an object or its status or scale subresource. A patch whose
// result carries a stale metadata.resourceVersion is a 409, as in kube.
import { badRequest, StatusError, unsupportedMediaType } from '../../shared/api/errors.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, mergeSchemaFor, PatchError } from '../../shared/patch/index.ts';
import { mediaType, parseJson, PATCH_TYPES } from '../http/codec.ts';
import { objectKey } from '../registry/keys.ts';
import { toScale } from '../registry/scale.ts';
import { isDryRun } from './dry-run.ts';
import { handleApply } from './apply.ts';
import { checkPatched } from './decode-object.ts';
import { commitWrite } from './commit-write.ts';
import { updateMutation } from './write-object.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';

/** Maps a patch failure to kube's answer: a malformed patch is 400, one that does not apply is 422. */
function patchFailure(err: unknown): never {
  if (err instanceof PatchError) {
    if (err.code === 400) throw badRequest(err.message);
    if (err.code === 422) throw new StatusError(422, 'Invalid', err.message);
  }
  throw err;
}

/** Serves a patch. */
export async function handlePatch(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name, subresource } = r.info;
  const type = mediaType(r.contentType);
  if (type === 'application/apply-patch+yaml') return handleApply(ctx, r);
  if (!PATCH_TYPES.includes(type)) throw unsupportedMediaType(type, PATCH_TYPES);
  const patch = parseJson(await r.body());
  let apply: (current: any) => any;
  if (type === 'application/json-patch+json') {
    if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    apply = (cur) => applyJsonPatch(cur, patch);
  } else {
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
      throw badRequest('the body of the request could not be decoded as a JSON object');
    }
    if (type === 'application/merge-patch+json') apply = (cur) => applyMergePatch(cur, patch);
    else {
      const schema = mergeSchemaFor(subresource === 'scale' ? 'Scale' : rt.kind);
      apply = (cur) => applyStrategicMergePatch(cur, patch, schema);
    }
  }
  const warnings: string[] = [];
  const mutate = updateMutation({
    rt,
    name,
    subresource,
    incoming: (cur) => {
      let out: any;
      try {
        out = apply(cur());
      } catch (err) {
        patchFailure(err);
      }
      if (out === null || typeof out !== 'object' || Array.isArray(out)) throw new StatusError(422, 'Invalid', 'the patched object is not a JSON object');
      const checked = checkPatched(r, rt, out, subresource === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : undefined);
      out = checked.obj;
      warnings.push(...checked.warnings);
      if (subresource !== 'scale') {
        out.metadata ??= {};
        if (out.metadata.name !== name) throw badRequest(`the name of the object (${out.metadata.name ?? ''}) does not match the name on the URL (${name})`);
      }
      return out;
    },
    now: ctx.now(),
    newUid: ctx.newUid,
    allowCreate: false,
    admission: isDryRun(r.query) ? undefined : ctx.admission,
  });
  const res = await commitWrite(ctx, rt, objectKey(rt, namespace, name), mutate, isDryRun(r.query), (json) =>
    subresource === 'scale' ? JSON.stringify(toScale(JSON.parse(json))) : json,
  );
  return { ...res, warnings: [...new Set(warnings)] };
}
