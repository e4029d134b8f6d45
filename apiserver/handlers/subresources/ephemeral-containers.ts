// pods/ephemeralcontainers: GET is the Pod; PUT and PATCH (what `kubectl
// debug` sends: a strategic merge patch of spec.ephemeralContainers) change
// spec.ephemeralContainers only, as kube's ephemeralContainersStrategy does:
// everything else is kept as stored, and the update is validated by
// ValidatePodEphemeralContainersUpdate's rules: containers may be added, never
// removed or changed; names unique across every container of the Pod; only
// the fields an ephemeral container may have (no ports, probes, resources,
// lifecycle...); a target container that exists. The regular Pod update rule
// (which freezes the spec) does not apply on this path, so the write bypasses it.
import type { EphemeralContainer, Pod } from 'kubernetes-types/core/v1.js';
import { badRequest, conflict, invalid, notFound, StatusError, unsupportedMediaType } from '../../../shared/api/errors.ts';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, mergeSchemaFor } from '../../../shared/patch/index.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import { mediaType } from '../../http/codec.ts';
import { objectKey } from '../../registry/keys.ts';
import { child, fe, index, semanticEqual, type FieldError } from '../../registry/kinds/field.ts';
import { defaultPodSpec } from '../../registry/kinds/pod-spec.ts';
import { dns1123Label } from '../../registry/kinds/validators.ts';
import type { Mutate } from '../../storage/types.ts';
import { commitWrite } from '../commit-write.ts';
import type { ApiContext, ApiRequest, ApiResponse } from '../context.ts';
import { isDryRun } from '../dry-run.ts';
import { admissionAttributes } from '../write-object.ts';
import { writeRecordOf } from '../write-record.ts';

/** The fields of an ephemeral container and whether it may set them (kube's allowedEphemeralContainerFields). */
const ALLOWED: Record<string, boolean> = {
  name: true,
  image: true,
  command: true,
  args: true,
  workingDir: true,
  ports: false,
  envFrom: true,
  env: true,
  resources: false,
  resizePolicy: false,
  restartPolicy: false,
  restartPolicyRules: false,
  volumeMounts: true,
  volumeDevices: true,
  livenessProbe: false,
  readinessProbe: false,
  startupProbe: false,
  lifecycle: false,
  terminationMessagePath: true,
  terminationMessagePolicy: true,
  imagePullPolicy: true,
  securityContext: true,
  stdin: true,
  stdinOnce: true,
  tty: true,
  targetContainerName: true,
};

/** Go's zero value: absent, false, '', an empty list, or an object with nothing set in it. */
function isSet(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === '' || v === 0) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.values(v).some(isSet);
  return true;
}

/** validateEphemeralContainers plus the update rules of ValidatePodEphemeralContainersUpdate. */
export function validateEphemeralContainersUpdate(pod: Pod, old: Pod): FieldError[] {
  const errs: FieldError[] = [];
  const path = 'spec.ephemeralContainers';
  if (old.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined)
    return [fe.forbidden('', 'static pods do not support ephemeral containers')];
  const others = new Set([...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].map((c) => c.name));
  const all = new Set(others);
  const list: unknown = pod.spec?.ephemeralContainers ?? [];
  if (!Array.isArray(list)) return [fe.invalid(path, list, 'must be a list')];
  (list as EphemeralContainer[]).forEach((ec, i) => {
    const p = index(path, i);
    const name = String(ec?.name ?? '');
    if (!name) errs.push(fe.required(child(p, 'name')));
    else errs.push(...dns1123Label(name, child(p, 'name')));
    if (!ec?.image) errs.push(fe.required(child(p, 'image')));
    if (name && all.has(name)) errs.push(fe.duplicate(child(p, 'name'), name));
    else if (name) all.add(name);
    if (ec?.targetContainerName && !others.has(ec.targetContainerName))
      errs.push(fe.notFound(child(p, 'targetContainerName'), ec.targetContainerName));
    for (const [k, v] of Object.entries(ec ?? {}))
      if (ALLOWED[k] === false && isSet(v)) errs.push(fe.forbidden(child(p, k), 'cannot be set for an Ephemeral Container'));
    (ec?.volumeMounts ?? []).forEach((vm, j) => {
      for (const k of ['subPath', 'subPathExpr'] as const)
        if (vm?.[k]) errs.push(fe.forbidden(child(index(child(p, 'volumeMounts'), j), k), 'cannot be set for an Ephemeral Container'));
    });
  });
  const byName = new Map((list as EphemeralContainer[]).map((c) => [c?.name, c]));
  for (const o of old.spec?.ephemeralContainers ?? []) {
    const n = byName.get(o.name);
    if (!n) errs.push(fe.forbidden(path, `existing ephemeral containers "${o.name}" may not be removed\n`));
    else if (!semanticEqual(o, n))
      errs.push(fe.forbidden(`${path}[${o.name}]`, `existing ephemeral containers "${o.name}" may not be changed\n`));
  }
  return errs;
}

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];

/** Serves PUT and PATCH of pods/NAME/ephemeralcontainers (GET is the Pod's own). */
export async function handleEphemeralContainers(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name, verb } = r.info;
  let incoming: (cur: Pod) => Pod;
  const raw = (await r.body()).toString('utf8');
  let body: unknown;
  try {
    body = raw.trim() ? JSON.parse(raw) : null;
  } catch (err) {
    throw badRequest(`error decoding ${verb === 'patch' ? 'patch' : 'body'}: ${(err as Error).message}`);
  }
  if (verb === 'update') {
    const pod = body as Pod | null;
    if (!pod || typeof pod !== 'object' || pod.kind !== 'Pod') throw badRequest('the body of the request was not a Pod');
    if (pod.metadata?.name !== name)
      throw badRequest(`the name of the object (${pod.metadata?.name ?? ''}) does not match the name on the URL (${name})`);
    incoming = () => structuredClone(pod);
  } else {
    const type = mediaType(r.contentType);
    if (!PATCH_TYPES.includes(type)) throw unsupportedMediaType(type, PATCH_TYPES);
    incoming = (cur) => {
      let out: unknown;
      try {
        if (type === 'application/json-patch+json') out = applyJsonPatch(cur, (body ?? []) as never);
        else if (type === 'application/merge-patch+json') out = applyMergePatch(cur, body);
        else out = applyStrategicMergePatch(cur, (body ?? {}) as never, mergeSchemaFor('Pod'));
      } catch (err) {
        throw new StatusError(422, 'Invalid', (err as Error).message);
      }
      if (!out || typeof out !== 'object') throw new StatusError(422, 'Invalid', 'the patched object is not a JSON object');
      return out;
    };
  }
  const dryRun = isDryRun(r.query);
  const warnings: string[] = [];
  const attrs = admissionAttributes(r, 'UPDATE', dryRun, warnings);
  const mutate: Mutate = (stored) => {
    if (!stored) throw notFound({ group: '', resource: 'pods' }, name);
    const cur = stored as unknown as Pod;
    const wanted = incoming(structuredClone(cur));
    const rv = wanted.metadata?.resourceVersion;
    if (rv && rv !== cur.metadata?.resourceVersion) throw conflict({ group: '', resource: 'pods' }, name);
    const next = structuredClone(cur);
    next.spec = { ...next.spec!, ephemeralContainers: wanted.spec?.ephemeralContainers };
    if (!next.spec.ephemeralContainers) delete next.spec.ephemeralContainers;
    defaultPodSpec(next.spec);
    const errs = validateEphemeralContainersUpdate(next, cur);
    if (errs.length) throw invalid('Pod', '', name, errs);
    ctx.admission.admit('UPDATE', rt, next, stored, 'all', attrs);
    return deepEqual(next, cur) ? undefined : next;
  };
  const res = await commitWrite(ctx, rt, objectKey(rt, namespace, name), mutate, dryRun, (json) => json, writeRecordOf(r));
  return { ...res, warnings };
}
