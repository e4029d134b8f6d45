// The scale subresource of a custom resource: the autoscaling/v1 Scale view
// of the CRD's specReplicasPath, statusReplicasPath and labelSelectorPath,
// and writing a Scale (PUT, merge or JSON patch: what kubectl scale and
// HPAs send) back into the object at specReplicasPath.
import type { Scale } from 'kubernetes-types/autoscaling/v1.js';
import { badRequest, conflict, notFound, StatusError, unsupportedMediaType } from '../../shared/api/errors.ts';
import { applyJsonPatch, applyMergePatch, PatchError } from '../../shared/patch/index.ts';
import { decodeObject } from '../handlers/decode-object.ts';
import { commitWrite } from '../handlers/commit-write.ts';
import { isDryRun } from '../handlers/dry-run.ts';
import type { ApiContext, ApiRequest, ApiResponse } from '../handlers/context.ts';
import { mediaType } from '../http/codec.ts';
import { objectKey } from '../registry/keys.ts';
import { prepareUpdate } from '../registry/lifecycle.ts';
import { replicasFromScale, scaleOf } from '../registry/scale.ts';
import type { StoredObject } from '../storage/types.ts';
import { evalJsonPath, setJsonPath } from './jsonpath.ts';
import type { CustomResourceInfo } from './registry.ts';
import { writeRecordOf } from '../handlers/write-record.ts';

/** The Scale of a custom resource. */
export function toCustomScale(obj: StoredObject, info: CustomResourceInfo): Scale {
  const paths = info.version.subresources?.scale ?? {};
  const num = (path: string | undefined) => {
    const [v] = path ? evalJsonPath(obj, path) : [];
    return typeof v === 'number' ? v : 0;
  };
  const [selector] = paths.labelSelectorPath ? evalJsonPath(obj, paths.labelSelectorPath) : [];
  return scaleOf(obj, num(paths.specReplicasPath), num(paths.statusReplicasPath), typeof selector === 'string' ? selector : undefined);
}

const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/** Serves get, update and patch of `.../scale`. */
export async function handleCustomScale(ctx: ApiContext, r: ApiRequest, info: CustomResourceInfo): Promise<ApiResponse> {
  const { resource: rt, namespace, name, verb } = r.info;
  const gr = { group: rt.group, resource: rt.plural };
  const key = objectKey(rt, namespace, name);
  const view = (json: string) => JSON.stringify(toCustomScale(JSON.parse(json) as StoredObject, info));
  if (verb === 'get') {
    const entry = ctx.store.get(key);
    if (!entry) throw notFound(gr, name);
    return { status: 200, json: view(entry.json) };
  }
  let incoming: (cur: StoredObject) => Scale;
  let warnings: string[] = [];
  if (verb === 'update') {
    const decoded = await decodeObject(r, rt, SCALE_KIND);
    warnings = decoded.warnings;
    incoming = () => decoded.obj as Scale;
  } else {
    const type = mediaType(r.contentType);
    const patch = JSON.parse((await r.body()).toString('utf8') || 'null') as unknown;
    if (type === 'application/merge-patch+json') incoming = (cur) => applyMergePatch(toCustomScale(cur, info), patch);
    else if (type === 'application/json-patch+json') incoming = (cur) => applyJsonPatch(toCustomScale(cur, info), patch);
    else throw unsupportedMediaType(type, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
  }
  const specPath = info.version.subresources?.scale?.specReplicasPath ?? '.spec.replicas';
  const mutate = (cur: StoredObject | undefined) => {
    if (!cur) throw notFound(gr, name);
    let scale: Scale;
    try {
      scale = incoming(cur);
    } catch (err) {
      if (err instanceof PatchError) throw new StatusError(err.code ?? 422, err.code === 400 ? 'BadRequest' : 'Invalid', err.message);
      throw err;
    }
    const rv = scale?.metadata?.resourceVersion;
    if (rv && rv !== cur.metadata.resourceVersion) throw conflict(gr, name);
    const replicas = replicasFromScale(scale);
    const next = structuredClone(cur);
    setJsonPath(next as unknown as Record<string, unknown>, specPath, replicas);
    return prepareUpdate(rt, next, cur, '');
  };
  if (r.info.verb === 'patch' && !r.contentType) throw badRequest('missing content type');
  const res = await commitWrite(ctx, rt, key, mutate, isDryRun(r.query), view, writeRecordOf(r));
  return { ...res, warnings };
}
