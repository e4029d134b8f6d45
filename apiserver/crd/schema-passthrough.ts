// CRD bodies past the generic decode-time checks. Those checks know a
// JSONSchemaProps only as a struct of named fields: its special forms (JSON
// for `default`, `enum` and `example`, JSONSchemaPropsOrArray for `items`,
// JSONSchemaPropsOrBool for `additionalProperties`) would be refused
// ("cannot unmarshal number into ... of type v1.JSON") or emptied. So a CRD
// write has each version's openAPIV3Schema taken out of its body (kept in
// the request context) and decoded as `{}`; the CRD strategy puts them back
// before defaulting and validation (restoreSchemas). A patch is applied
// here to the stored CRD and goes on as the update of its result.
import { badRequest, notFound } from '../../shared/api/errors.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, mergeSchemaFor, PatchError } from '../../shared/patch/index.ts';
import type { ApiContext, ApiRequest } from '../handlers/context.ts';
import { mediaType } from '../http/codec.ts';
import { decodeYaml } from '../http/yaml-decode.ts';
import { objectKey } from '../registry/keys.ts';
import type { KubeObject } from '../registry/object.ts';
import { customRequest } from './request-context.ts';
import type { CustomResourceDefinition } from './crd.ts';

function parseBody(body: Buffer, type: string): unknown {
  const text = body.toString('utf8');
  try {
    return type === 'application/json' || type === '' ? JSON.parse(text) : decodeYaml(text);
  } catch {
    return undefined;
  }
}

/** Takes every version's schema out of `obj` (in place), by version name. */
function takeSchemas(obj: unknown): Map<string, unknown> | undefined {
  const versions = (obj as CustomResourceDefinition | undefined)?.spec?.versions;
  if (!Array.isArray(versions)) return undefined;
  const schemas = new Map<string, unknown>();
  for (const v of versions) {
    const s = v?.schema as { openAPIV3Schema?: unknown } | undefined;
    if (s && typeof s === 'object' && s.openAPIV3Schema !== undefined && typeof v.name === 'string') {
      schemas.set(v.name, s.openAPIV3Schema);
      s.openAPIV3Schema = {};
    }
  }
  return schemas;
}

/**
 * The request to hand on for a CRD write: its body with the schemas taken
 * out (they go to `schemas`), a patch turned into the update of its result.
 * Bodies it cannot read go on unchanged, for the generic path to refuse.
 */
export async function passSchemasThrough(ctx: ApiContext, r: ApiRequest): Promise<{ r: ApiRequest; schemas?: Map<string, unknown> }> {
  const { verb } = r.info;
  const type = mediaType(r.contentType);
  if (verb !== 'create' && verb !== 'update' && verb !== 'patch') return { r };
  const body = await r.body();
  let obj: unknown;
  let next: ApiRequest;
  if (verb === 'patch' && type !== 'application/apply-patch+yaml') {
    const entry = ctx.store.get(objectKey(r.info.resource, '', r.info.name));
    if (!entry) throw notFound({ group: r.info.resource.group, resource: r.info.resource.plural }, r.info.name);
    const cur = JSON.parse(entry.json) as KubeObject;
    const patch = parseBody(body, 'application/json');
    if (patch === undefined) throw badRequest('invalid JSON patch');
    try {
      if (type === 'application/json-patch+json') obj = applyJsonPatch(cur, patch);
      else if (type === 'application/merge-patch+json') obj = applyMergePatch(cur, patch);
      else if (type === 'application/strategic-merge-patch+json')
        obj = applyStrategicMergePatch(cur, patch, mergeSchemaFor(cur.kind ?? ''));
      else return { r: { ...r, body: () => Promise.resolve(body) } };
    } catch (err) {
      if (err instanceof PatchError) throw badRequest(err.message);
      throw err;
    }
    const schemas = takeSchemas(obj);
    const json = Buffer.from(JSON.stringify(obj));
    next = { ...r, info: { ...r.info, verb: 'update' }, contentType: 'application/json', body: () => Promise.resolve(json) };
    return { r: next, schemas };
  }
  obj = parseBody(body, type);
  const schemas = obj === undefined ? undefined : takeSchemas(obj);
  if (!schemas) return { r: { ...r, body: () => Promise.resolve(body) } };
  const json = Buffer.from(JSON.stringify(obj));
  next = {
    ...r,
    contentType: type === 'application/apply-patch+yaml' ? r.contentType : 'application/json',
    body: () => Promise.resolve(json),
  };
  return { r: next, schemas };
}

/** Puts the schemas taken out of this request's body back into the decoded CRD. */
export function restoreSchemas(crd: CustomResourceDefinition): void {
  const schemas = customRequest.getStore()?.crdSchemas;
  if (!schemas) return;
  for (const v of crd.spec?.versions ?? []) {
    if (v?.name && schemas.has(v.name)) {
      v.schema ??= {};
      v.schema.openAPIV3Schema = schemas.get(v.name) as never;
    }
  }
}
