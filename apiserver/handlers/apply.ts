// PATCH with application/apply-patch+yaml (server-side apply), PARTIAL: the
// applied configuration creates the object when it is missing and is merged
// into it (strategic merge semantics) when it exists. Field ownership
// (managedFields), conflicts between managers and the removal of fields a
// manager stops applying are not implemented yet: fields dropped from the
// configuration stay on the object.
import { badRequest, fieldError, invalid, StatusError } from '../../shared/api/errors.ts';
import { applyStrategicMergePatch, mergeSchemaFor, PatchError } from '../../shared/patch/index.ts';
import { isStackExhausted } from '../http/nesting.ts';
import { decodeYaml, YamlDecodeError } from '../http/yaml-decode.ts';
import { objectKey } from '../registry/keys.ts';
import { checkNamespace, prepareCreate, prepareUpdate, readyToDelete } from '../registry/lifecycle.ts';
import type { StoredObject } from '../storage/types.ts';
import { admitNamespace } from './namespace-lifecycle.ts';
import { commitWrite } from './commit-write.ts';
import { asObjectOf, checkPatched, checkPatchedSize } from './decode-object.ts';
import { isDryRun } from './dry-run.ts';
import { admissionAttributes } from './write-object.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';

/**
 * Reads an apply patch as kube does. YAML is converted to JSON first, and a
 * failure there is "error encoding patch: yaml: ..."; text that looks like
 * JSON skips that step and fails when it is unmarshalled with sigs.k8s.io/yaml:
 * "error decoding patch: error converting YAML to JSON: yaml: ...".
 */
function readApplyPatch(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return decodeYaml(text);
  } catch (err) {
    if (!(err instanceof YamlDecodeError)) throw err;
    if (/^\s*\{/.test(text)) throw badRequest(`error decoding patch: error converting YAML to JSON: ${err.message}`);
    throw badRequest(`error encoding patch: ${err.message}`);
  }
}

/** Serves an apply patch on the main resource. */
export async function handleApply(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name, subresource } = r.info;
  if (!r.query.get('fieldManager')) {
    throw invalid('PatchOptions', 'meta.k8s.io', '', [fieldError.required('fieldManager', 'is required for apply patch')]);
  }
  if (subresource) throw badRequest(`server-side apply of the ${subresource} subresource is not supported by ksim yet`);
  const applied = asObjectOf(rt, readApplyPatch(await r.body()));
  if (applied.metadata.name !== name) {
    throw badRequest(`the name of the object (${applied.metadata.name ?? ''}) does not match the name on the URL (${name})`);
  }
  const { obj: config, warnings } = checkPatched(r, rt, applied);
  const dryRun = isDryRun(r.query);
  const now = ctx.now();
  const admitted: string[] = [];
  const attrs = admissionAttributes(r, 'UPDATE', dryRun, admitted);
  const res = await commitWrite(
    ctx,
    rt,
    objectKey(rt, namespace, name),
    (cur) => {
      if (!cur) {
        const obj = structuredClone(config);
        checkNamespace(rt, obj, namespace);
        admitNamespace(ctx.store, rt, namespace);
        prepareCreate(rt, obj, now, ctx.newUid(), r.user);
        ctx.admission.admit('CREATE', rt, obj, undefined, 'all', { ...attrs, operation: 'CREATE' });
        return obj;
      }
      let merged: StoredObject;
      try {
        merged = applyStrategicMergePatch(cur, config, mergeSchemaFor(rt.kind));
      } catch (err) {
        if (err instanceof PatchError) throw badRequest(err.message);
        // Nesting within kube's 10,000 levels can still be deeper than V8's stack allows for the merge.
        if (isStackExhausted(err))
          throw new StatusError(422, 'Invalid', 'the patch or the object it patches is nested too deeply to be applied');
        throw err;
      }
      const next = prepareUpdate(rt, merged, cur, '', (o, old) => ctx.admission.admit('UPDATE', rt, o, old, 'all', attrs));
      if (next && readyToDelete(rt, next)) return null;
      // Last, after admission and validation, where kube meets etcd's limit on what it stores.
      if (next) checkPatchedSize(next);
      return next;
    },
    dryRun,
    (json) => json,
  );
  return { ...res, warnings: [...warnings, ...admitted] };
}
