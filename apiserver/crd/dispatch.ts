// The steps custom resources and CRDs take around the generic verb
// handlers (api-handler.ts calls withCustomResources for every request):
// - a custom resource is prepared on the main thread (the create workers do
//   not know the CRDs), its writes run inside a request context that the
//   pruning hook reports unknown fields to, its scale subresource is the
//   CRD's paths, strategic merge patch is refused with kube's 415, a create
//   while its CRD is terminating is refused, and an object read through a
//   version other than the storage one gets that version's apiVersion
//   (conversion None);
// - a CRD's first delete adds the customresourcecleanup finalizer and the
//   Terminating condition (kube's CRD REST Delete), so the finalizing
//   controller deletes its objects before the CRD goes.
import { methodNotAllowed, notFound, StatusError, unsupportedMediaType } from '../../shared/api/errors.ts';
import type { ApiContext, ApiRequest, ApiResponse } from '../handlers/context.ts';
import { mediaType } from '../http/codec.ts';
import { objectKey } from '../registry/keys.ts';
import { timestamp } from '../registry/lifecycle.ts';
import { fieldValidationMode } from '../validation/index.ts';
import { CLEANUP_FINALIZER, setCondition, type CustomResourceDefinition } from './crd.ts';
import { customResourceInfo, type CustomResourceInfo } from './registry.ts';
import { customRequest } from './request-context.ts';
import { handleCustomScale } from './scale.ts';
import { bookmarkObject, checkWatchParams, runWatch, type WatchTransport } from '../handlers/watch.ts';
import { watchView } from '../http/views.ts';
import { httpWatchTransport } from '../http/watch-transports.ts';
import { applyDefaults } from './schema/index.ts';
import { passSchemasThrough } from './schema-passthrough.ts';
import { writeRecordOf } from '../handlers/write-record.ts';

type Next = (ctx: ApiContext, r: ApiRequest) => Promise<ApiResponse | undefined>;

const CR_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];

/** Runs `next` for `r`, with the extra steps of custom resources and CRDs. */
export async function withCustomResources(ctx: ApiContext, r: ApiRequest, next: Next): Promise<ApiResponse | undefined> {
  const rt = r.info.resource;
  if (rt.group === 'apiextensions.k8s.io' && rt.plural === 'customresourcedefinitions') {
    if (r.info.verb === 'delete' && !r.info.subresource) await markForCleanup(ctx, r);
    const { r: passed, schemas } = await passSchemasThrough(ctx, r);
    const req = { fieldValidation: fieldValidationMode(r.query.get('fieldValidation')), warnings: [] as string[], crdSchemas: schemas };
    const local: ApiContext = ctx.createWorkers ? { ...ctx, createWorkers: undefined } : ctx;
    return customRequest.run(req, () => next(local, passed));
  }
  const info = customResourceInfo(rt);
  if (!info) return next(ctx, r);
  const { verb, subresource } = r.info;
  const gr = { group: rt.group, resource: rt.plural };
  if (info.terminating && verb === 'create') {
    const err = methodNotAllowed('create', gr);
    throw new StatusError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', err.details);
  }
  if (verb === 'patch' && mediaType(r.contentType) === 'application/strategic-merge-patch+json') {
    throw unsupportedMediaType(mediaType(r.contentType), CR_PATCH_TYPES);
  }
  const local: ApiContext = ctx.createWorkers ? { ...ctx, createWorkers: undefined } : ctx;
  if (subresource === 'scale') return handleCustomScale(local, r, info);
  if (verb === 'watch' && info.version.name !== info.storageVersion) {
    await watchServedVersion(local, r, info);
    return undefined;
  }
  const req = { fieldValidation: fieldValidationMode(r.query.get('fieldValidation')), warnings: [] as string[], verb };
  // As kube's CRD handler: every request to a deprecated version says so.
  if (info.version.deprecated) req.warnings.push(info.version.deprecationWarning ?? `${rt.group}/${rt.version} ${rt.kind} is deprecated`);
  const out = await customRequest.run(req, () => next(local, r));
  if (!out) return out;
  const read = (verb === 'get' || verb === 'list') && r.view === 'object' && !subresource;
  const converted = info.version.name === info.storageVersion && !read ? out : asServedVersion(out, info, read);
  return req.warnings.length ? { ...converted, warnings: [...(converted.warnings ?? []), ...req.warnings] } : converted;
}

/**
 * A response of the storage version's objects as objects of the version
 * asked for (conversion None: the apiVersion only), and, for a read, with
 * the schema's defaults applied, as kube defaults what it reads from storage
 * (an object stored before a default was added gets it).
 */
function asServedVersion(out: ApiResponse, info: CustomResourceInfo, read: boolean): ApiResponse {
  const apiVersion = `${info.rt.group}/${info.rt.version}`;
  const stored = `${info.rt.group}/${info.storageVersion}`;
  const fix = (o: unknown) => {
    if (!o || typeof o !== 'object') return;
    if ((o as { apiVersion?: unknown }).apiVersion === stored) (o as { apiVersion: string }).apiVersion = apiVersion;
    if (read && (o as { kind?: unknown }).kind === info.rt.kind) applyDefaults(o, info.schema);
  };
  const text = out.encoded ? out.encoded.toString('utf8') : out.json;
  if (!text) return out;
  let body: { items?: unknown[] };
  try {
    body = JSON.parse(text) as { items?: unknown[] };
  } catch {
    return out;
  }
  fix(body);
  if (Array.isArray(body.items)) body.items.forEach(fix);
  const list = out.list && {
    ...out.list,
    items: out.list.items.map((j) => {
      const o = JSON.parse(j) as unknown;
      fix(o);
      return JSON.stringify(o);
    }),
  };
  return { ...out, json: JSON.stringify(body), encoded: undefined, list };
}

/**
 * A watch through a version other than the storage one: the same watch,
 * every event's apiVersion that of the version asked for (conversion None).
 */
async function watchServedVersion(ctx: ApiContext, r: ApiRequest, info: CustomResourceInfo): Promise<void> {
  const rt = r.info.resource;
  const params = { rt, namespace: r.info.namespace, name: r.info.name, query: r.query };
  checkWatchParams(params);
  const view = watchView(r.view, rt, r.query, ctx.now, (rev, end) => bookmarkObject(rt, rev, end));
  const from = `"apiVersion":${JSON.stringify(`${rt.group}/${info.storageVersion}`)}`;
  const to = `"apiVersion":${JSON.stringify(`${rt.group}/${rt.version}`)}`;
  // Without sendChunk the outbox hands this watcher its own lines, which can be rewritten.
  // eslint-disable-next-line @typescript-eslint/unbound-method -- the transport's methods are closures, not bound to it.
  const { sendChunk: _shared, ...http } = httpWatchTransport(r.res);
  const transport: WatchTransport = { ...http, send: (lines) => http.send(lines.map((l) => l.replaceAll(from, to))) };
  await runWatch(ctx, { ...params, view }, transport);
}

/** kube's CRD delete: the first one adds the cleanup finalizer and the Terminating condition. */
async function markForCleanup(ctx: ApiContext, r: ApiRequest): Promise<void> {
  const rt = r.info.resource;
  const key = objectKey(rt, '', r.info.name);
  const entry = ctx.store.get(key);
  if (!entry) throw notFound({ group: rt.group, resource: rt.plural }, r.info.name);
  const crd = JSON.parse(entry.json) as CustomResourceDefinition;
  if (crd.metadata.deletionTimestamp || r.query.has('dryRun')) return;
  await ctx.store.txn(
    key,
    (cur) => {
      if (!cur || cur.metadata.deletionTimestamp) return undefined;
      const next = structuredClone(cur) as CustomResourceDefinition;
      const finalizers = next.metadata.finalizers ?? [];
      if (!finalizers.includes(CLEANUP_FINALIZER)) next.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
      setCondition(
        next,
        {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionPending',
          message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
        },
        timestamp(ctx.now()),
      );
      return next;
    },
    { writer: writeRecordOf(r) },
  );
}
