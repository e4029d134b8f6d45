// PATCH with JSON patch (RFC 6902), merge patch (RFC 7396) or strategic
// merge patch, on an object or its status or scale subresource. A patch whose
// result carries a stale metadata.resourceVersion is a 409, as in kube.
import { badRequest, StatusError, unsupportedMediaType } from '../../shared/api/errors.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, mergeSchemaFor, PatchError } from '../../shared/patch/index.ts';
import { jsonTypeName } from '../../shared/patch/go-format.ts';
import { MAX_BODY_BYTES } from '../http/body.ts';
import { mediaType, PATCH_TYPES } from '../http/codec.ts';
import { isStackExhausted, jsonNestingError } from '../http/nesting.ts';
import { objectKey } from '../registry/keys.ts';
import { toScale } from '../registry/scale.ts';
import { isDryRun } from './dry-run.ts';
import { handleApply } from './apply.ts';
import { checkPatched, checkPatchedSize, validationMode } from './decode-object.ts';
import { commitWrite } from './commit-write.ts';
import { admissionAttributes, updateMutation } from './write-object.ts';
import { checkFieldManager, managerName } from '../fieldmanager/index.ts';
import { approvalMutation } from './subresources/csr-approval.ts';
import type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
import type { Mutate, ServerObjectMeta } from '../storage/types.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';
import { writeRecordOf } from './write-record.ts';

/** kube's answer to a JSON patch that does not apply: a 422 with the generic text (the library's reason is not sent). */
const JSON_PATCH_FAILED = 'the server rejected our request due to an error in our request';

/** kube's maxJSONPatchOperations. */
const MAX_JSON_PATCH_OPERATIONS = 10_000;

/** Maps a patch failure to kube's answer: a malformed patch is 400, one that does not apply is 422. */
function patchFailure(err: unknown, jsonPatch: boolean): never {
  if (err instanceof PatchError) {
    if (err.code === 400) throw badRequest(err.message);
    if (jsonPatch) throw new StatusError(422, 'Invalid', JSON_PATCH_FAILED, {});
    throw new StatusError(422, 'Invalid', err.message);
  }
  // Nesting within kube's 10,000 levels can still be deeper than V8's stack allows for the walks of a patch.
  if (isStackExhausted(err)) throw new StatusError(422, 'Invalid', 'the patch or the object it patches is nested too deeply to be applied');
  throw err;
}

/** The first decoding error Go's strict unmarshal of a JSON patch into []jsonPatchOp reports, if any. */
function jsonPatchShapeError(patch: unknown): string | undefined {
  if (!Array.isArray(patch)) return `json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type []handlers.jsonPatchOp`;
  for (const op of patch) {
    if (op === null) continue;
    if (typeof op !== 'object' || Array.isArray(op))
      return `json: cannot unmarshal ${jsonTypeName(op)} into Go value of type handlers.jsonPatchOp`;
    for (const [key, value] of Object.entries(op)) {
      const field = ['op', 'path', 'from'].find((f) => f.toLowerCase() === key.toLowerCase());
      if (field && value !== null && typeof value !== 'string')
        return `json: cannot unmarshal ${jsonTypeName(value)} into Go struct field jsonPatchOp.${field} of type string`;
    }
  }
  return undefined;
}

/** A patch as read: the value, and the literal of a number float64 cannot hold (JSON.parse makes it Infinity), if any. */
interface ReadPatch {
  patch: unknown;
  overflow?: string;
}

/** Reads a JSON, merge or strategic patch as kube does: it must be valid JSON (nesting included) before anything else. */
function readPatch(body: Buffer): ReadPatch {
  const text = body.toString('utf8');
  // validateAndTranscodePatch: json.Valid, which also stops at 10,000 levels.
  if (jsonNestingError(text)) throw badRequest('invalid JSON patch');
  let patch: unknown;
  try {
    patch = JSON.parse(text);
  } catch {
    throw badRequest('invalid JSON patch');
  }
  return { patch, overflow: hasInfinity(patch) ? overflowingLiteral(text) : undefined };
}

/** Whether a parsed value holds a number that overflowed to ±Infinity (iteratively: the value may nest 10,000 deep). */
function hasInfinity(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return true;
    } else if (typeof v === 'object' && v !== null) {
      for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
    }
  }
  return false;
}

/** The first number literal in `text` that float64 cannot hold. */
function overflowingLiteral(text: string): string {
  for (const m of text.matchAll(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) if (!Number.isFinite(Number(m[0]))) return m[0];
  return '1e400';
}

/** Serves a patch. */
export async function handlePatch(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name, subresource } = r.info;
  const type = mediaType(r.contentType);
  if (type === 'application/apply-patch+yaml') return handleApply(ctx, r);
  if (!PATCH_TYPES.includes(type)) throw unsupportedMediaType(type, PATCH_TYPES);
  checkFieldManager(r.query, 'PatchOptions');
  const mode = validationMode(r.query);
  const { patch, overflow } = readPatch(await r.body());
  // Go decodes patch numbers into float64 (or int64): one too large for a float64 is a decoding error.
  const overflowError = (into: string) => `json: cannot unmarshal number ${overflow} into ${into} of type float64`;
  const strictDecode = mode !== 'Ignore';
  const jsonPatch = type === 'application/json-patch+json';
  let apply: (current: unknown) => unknown;
  if (jsonPatch) {
    // null unmarshals into an empty list of operations: nothing changes.
    const ops = patch ?? [];
    const shape = strictDecode ? jsonPatchShapeError(ops) : undefined;
    if (shape) throw badRequest(`error decoding patch: ${shape}`);
    if (overflow && strictDecode) throw badRequest(`error decoding patch: ${overflowError('Go struct field jsonPatchOp.value')}`);
    if (!Array.isArray(ops)) throw badRequest(`json: cannot unmarshal ${jsonTypeName(ops)} into Go value of type jsonpatch.Patch`);
    if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
      throw new StatusError(
        413,
        'RequestEntityTooLarge',
        `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
      );
    }
    apply = (cur) => applyJsonPatch(cur, ops, { maxCopyBytes: MAX_BODY_BYTES });
  } else if (type === 'application/merge-patch+json') {
    const notObject = patch !== null && (typeof patch !== 'object' || Array.isArray(patch));
    if (notObject && strictDecode)
      throw badRequest(`error decoding patch: json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`);
    if (overflow) throw badRequest(`error decoding patch: ${overflowError('Go value')}`);
    // evanphx/json-patch refuses a patch that is not an object (null included) as ErrBadJSONPatch.
    if (notObject || patch === null) throw badRequest('Invalid JSON Patch');
    apply = (cur) => applyMergePatch(cur, patch);
  } else {
    if (patch !== null && (typeof patch !== 'object' || Array.isArray(patch))) {
      throw badRequest(`json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`);
    }
    if (overflow) throw badRequest(overflowError('Go value'));
    // A null patch unmarshals into an empty map: nothing changes.
    const patchMap = patch ?? {};
    const schema = mergeSchemaFor(subresource === 'scale' ? 'Scale' : rt.kind);
    apply = (cur) => applyStrategicMergePatch(cur, patchMap, schema);
  }
  const warnings: string[] = [];
  // The approval update is the main resource's plus the conditions the patched object asks for.
  const approval = subresource === 'approval';
  let requestedConditions: unknown;
  const update = updateMutation({
    rt,
    name,
    subresource: approval ? '' : subresource,
    incoming: (cur) => {
      let patched: unknown;
      try {
        patched = apply(cur());
      } catch (err) {
        patchFailure(err, jsonPatch);
      }
      if (patched === null || typeof patched !== 'object' || Array.isArray(patched))
        throw new StatusError(422, 'Invalid', 'the patched object is not a JSON object');
      const checked = checkPatched(
        r,
        rt,
        patched,
        subresource === 'scale' ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : undefined,
      );
      // A JSON object, its fields not yet known to be of their types (a patch can put anything anywhere).
      const out = checked.obj as { metadata?: ServerObjectMeta };
      warnings.push(...checked.warnings);
      if (subresource !== 'scale') {
        out.metadata ??= {};
        if (out.metadata.name !== name)
          throw badRequest(`the name of the object (${out.metadata.name ?? ''}) does not match the name on the URL (${name})`);
      }
      if (approval) requestedConditions = structuredClone((out as CertificateSigningRequest).status?.conditions);
      return out;
    },
    now: ctx.now(),
    newUid: ctx.newUid,
    allowCreate: false,
    admission: ctx.admission,
    attrs: admissionAttributes(r, 'UPDATE', isDryRun(r.query), warnings),
    manager: managerName(r.query, r.req.headers['user-agent']),
  });
  const mutate = approval ? approvalMutation(rt, () => requestedConditions, ctx.now(), update) : update;
  // Last, after admission and validation, where kube meets etcd's limit on what it stores.
  const sized: Mutate = (cur) => {
    let next: ReturnType<Mutate>;
    try {
      next = mutate(cur);
      if (next) checkPatchedSize(next);
    } catch (err) {
      patchFailure(err, false);
    }
    return next;
  };
  const res = await commitWrite(
    ctx,
    rt,
    objectKey(rt, namespace, name),
    sized,
    isDryRun(r.query),
    (json) => (subresource === 'scale' ? JSON.stringify(toScale(JSON.parse(json))) : json),
    writeRecordOf(r),
  );
  return { ...res, warnings: [...new Set(warnings)] };
}
