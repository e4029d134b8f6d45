// PATCH with application/apply-patch+yaml (server-side apply, YAML or JSON
// body): the applied configuration is merged by the schema (keyed and set
// lists, granular and atomic maps; see shared/smd), its manager owns what it
// applies, a field another manager owns that the apply would change is a 409
// (unless force=true, which takes it), and a field its manager applied last
// time and no longer applies is removed unless another manager owns it (see
// fieldmanager/). A missing object is created. An apply that changes nothing
// writes nothing. The status subresource applies to status; the scale
// subresource takes an autoscaling/v1 Scale and applies its spec.replicas.
import { badRequest, fieldError, invalid, notFound, StatusError } from '../../shared/api/errors.ts';
import { apiVersionOf } from '../../shared/api/resource-type.ts';
import { queryFlag } from '../../shared/api/query-bool.ts';
import { TypedError } from '../../shared/smd/index.ts';
import { deepEqual } from '../../shared/util/deep-equal.ts';
import { isStackExhausted } from '../http/nesting.ts';
import { decodeYaml, YamlDecodeError } from '../http/yaml-decode.ts';
import { objectKey } from '../registry/keys.ts';
import { checkNamespace, prepareCreate, prepareUpdate, readyToDelete } from '../registry/lifecycle.ts';
import { toScale } from '../registry/scale.ts';
import type { StoredObject } from '../storage/types.ts';
import { checkFieldManager, trackApply } from '../fieldmanager/index.ts';
import { admitNamespace } from './namespace-lifecycle.ts';
import { commitWrite } from './commit-write.ts';
import { asObjectOf, checkPatched, checkPatchedSize } from './decode-object.ts';
import { isDryRun } from './dry-run.ts';
import { admissionAttributes } from './write-object.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';
import { writeRecordOf } from './write-record.ts';

/** The subresources apply serves, as kube's patch handler does for them. */
const APPLY_SUBRESOURCES = new Set(['', 'status', 'scale']);

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

/** An applied autoscaling/v1 Scale as the part of the workload it stands for: spec.replicas. */
function scaleConfig(applied: unknown, apiVersion: string, kind: string, name: string): StoredObject {
  const scale = applied as { apiVersion?: unknown; kind?: unknown; spec?: { replicas?: unknown } } | null;
  if (scale === null || typeof scale !== 'object' || Array.isArray(scale)) throw badRequest('the apply patch must be an object');
  if (scale.apiVersion !== 'autoscaling/v1' || scale.kind !== 'Scale') {
    throw badRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${typeof scale.apiVersion === 'string' ? scale.apiVersion : ''}, expected: autoscaling/v1`,
    );
  }
  const obj = { apiVersion, kind, metadata: { name } } as StoredObject;
  const replicas = scale.spec?.replicas;
  if (replicas !== undefined) (obj as { spec?: unknown }).spec = { replicas };
  return obj;
}

/** Serves an apply patch on an object or its status or scale subresource. */
export async function handleApply(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name, subresource } = r.info;
  const manager = r.query.get('fieldManager');
  if (!manager) {
    throw invalid('PatchOptions', 'meta.k8s.io', '', [fieldError.required('fieldManager', 'is required for apply patch')]);
  }
  checkFieldManager(r.query, 'PatchOptions');
  if (!APPLY_SUBRESOURCES.has(subresource)) throw badRequest(`server-side apply of the ${subresource} subresource is not supported`);
  const raw = readApplyPatch(await r.body());
  let config: StoredObject;
  let warnings: string[] = [];
  if (subresource === 'scale') config = scaleConfig(raw, apiVersionOf(rt), rt.kind, name);
  else {
    const version = (raw as { apiVersion?: unknown } | null)?.apiVersion;
    if (raw !== null && typeof raw === 'object' && typeof version === 'string' && version !== apiVersionOf(rt)) {
      throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${version}, expected: ${apiVersionOf(rt)}`);
    }
    const applied = asObjectOf(rt, raw);
    if (applied.metadata.name !== name) {
      throw badRequest(`the name of the object (${applied.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    }
    if (applied.metadata.managedFields !== undefined && applied.metadata.managedFields !== null)
      throw badRequest('metadata.managedFields must be nil');
    delete applied.metadata.managedFields;
    ({ obj: config, warnings } = checkPatched(r, rt, applied));
  }
  const force = queryFlag(r.query, 'force');
  const dryRun = isDryRun(r.query);
  const now = ctx.now();
  const admitted: string[] = [];
  const attrs = admissionAttributes(r, 'UPDATE', dryRun, admitted);
  const write = { rt, manager, subresource, now };
  const res = await commitWrite(
    ctx,
    rt,
    objectKey(rt, namespace, name),
    (cur) => {
      if (!cur) {
        if (subresource) throw notFound({ group: rt.group, resource: rt.plural }, name);
        const obj = structuredClone(config);
        obj.metadata.managedFields = trackApply(write, undefined, config, force).metadata.managedFields;
        checkNamespace(rt, obj, namespace);
        admitNamespace(ctx.store, rt, namespace);
        prepareCreate(rt, obj, now, ctx.newUid(), r.user);
        ctx.admission.admit('CREATE', rt, obj, undefined, 'all', { ...attrs, operation: 'CREATE' });
        return obj;
      }
      let applied: StoredObject;
      try {
        applied = trackApply(write, cur, config, force);
      } catch (err) {
        if (err instanceof TypedError) throw new StatusError(422, 'Invalid', err.message);
        // Nesting within kube's 10,000 levels can still be deeper than V8's stack allows for the merge.
        if (isStackExhausted(err))
          throw new StatusError(422, 'Invalid', 'the patch or the object it patches is nested too deeply to be applied');
        throw err;
      }
      // The rest of the update compares with the stored managedFields; the new ones are put back after.
      const managedFields = applied.metadata.managedFields;
      applied.metadata.managedFields = cur.metadata.managedFields;
      let next = prepareUpdate(rt, applied, cur, subresource === 'status' ? 'status' : '', (o, old) =>
        ctx.admission.admit('UPDATE', rt, o, old, 'all', attrs),
      );
      if (!deepEqual(managedFields, cur.metadata.managedFields)) next ??= structuredClone(cur);
      if (next) {
        next.metadata = { ...next.metadata, managedFields };
        if (managedFields === undefined) delete next.metadata.managedFields;
      }
      if (next && readyToDelete(rt, next)) return null;
      // Last, after admission and validation, where kube meets etcd's limit on what it stores.
      if (next) checkPatchedSize(next);
      return next;
    },
    dryRun,
    (json) => (subresource === 'scale' ? JSON.stringify(toScale(JSON.parse(json))) : json),
    writeRecordOf(r),
  );
  return { ...res, warnings: [...warnings, ...admitted] };
}
