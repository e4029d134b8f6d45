// POST to a collection: prepare the new object (on a create worker when one
// is free, see create-workers/pool.ts; otherwise here), check the namespace,
// and store it. A generateName collision is retried on the server, as kube
// does since 1.32, never returned to the client.
import { alreadyExists, methodNotAllowed, StatusError } from '../../shared/api/errors.ts';
import { objectKey } from '../registry/keys.ts';
import { SerializedObject } from '../storage/serialized-object.ts';
import { admitNamespace } from './namespace-lifecycle.ts';
import { refuseSetResourceVersion } from '../registry/lifecycle.ts';
import { isDryRun } from './dry-run.ts';
import { prepareNewObject } from './new-object.ts';
import type { NewObjectRequest, PreparedCreate } from './new-object-types.ts';
import { handleBinding } from './subresources/binding.ts';
import { handleEviction } from './subresources/eviction.ts';
import { resourceStore } from './resource-store.ts';
import { storageConversion } from '../registry/conversions.ts';
import type { ApiContext, ApiRequest, ApiResponse } from './context.ts';
import { admissionAttributes } from './write-object.ts';
import { decodeBytes } from './decode-object.ts';
import { serviceAccountTexts } from '../admission/chain.ts';
import type { AdmissionSnapshot } from '../admission/snapshot.ts';
import type { StoredObject } from '../storage/types.ts';
import { checkFieldManager, managerName, trackUpdate, withManager } from '../fieldmanager/index.ts';
import { writeRecordOf } from './write-record.ts';

const GENERATE_NAME_ATTEMPTS = 8;

/** A refusal from decoding the body: malformed, too large, or of a type or media type the resource does not take. */
function isDecodeError(err: unknown): boolean {
  return err instanceof StatusError && (err.code === 400 || err.code === 413 || err.code === 415);
}

/**
 * Hands the new object to the request's audit record, as kube logs the
 * decoded request object: it names the object in the event, and is recorded
 * at the Request level. An object prepared on a worker is parsed only then.
 */
function auditRequestObject(r: ApiRequest, request: NewObjectRequest, prepared: PreparedCreate): void {
  const audit = r.audit;
  if (!audit) return;
  // The object as the client sent it, decoded again only when the level records it; otherwise its name is all the event needs.
  if (audit.wantsRequestObject) {
    const { rt } = request;
    audit.setRequestObject(
      decodeBytes(request.body, request.contentType, request.fieldValidation, { group: rt.group, version: rt.version, kind: rt.kind }).obj,
    );
  } else audit.setRequestObject({ metadata: { name: prepared.name, namespace: request.namespace || undefined } });
}

/** Serves a create. */
export async function handleCreate(ctx: ApiContext, r: ApiRequest): Promise<ApiResponse> {
  const { resource: rt, namespace, name, subresource } = r.info;
  const gr = { group: rt.group, resource: rt.plural };
  if (name && !subresource) throw methodNotAllowed('create', gr);
  if (subresource === 'binding' && rt.group === '' && rt.plural === 'pods') return handleBinding(ctx, r);
  if (subresource === 'eviction' && rt.group === '' && rt.plural === 'pods') return handleEviction(ctx, r);
  if (subresource) throw methodNotAllowed(`create on ${subresource}`, gr);
  const dryRun = isDryRun(r.query);
  checkFieldManager(r.query, 'CreateOptions');
  const writer = writeRecordOf(r);
  const manager = managerName(r.query, r.req.headers['user-agent']);
  const admitted: string[] = [];
  const attrs = admissionAttributes(r, 'CREATE', dryRun, admitted);
  const request: NewObjectRequest & AdmissionSnapshot = {
    rt,
    namespace,
    body: await r.body(),
    contentType: r.contentType,
    fieldValidation: r.query.get('fieldValidation'),
    now: ctx.now(),
    uid: ctx.newUid(),
    user: r.user,
  };
  // Admission that reads the store or the user, or must run inside the transaction, runs here: so does the
  // preparing then. An object stored as another resource's is converted from the parsed object.
  const mainThread = ctx.admission.needsTransaction(rt, attrs) || ctx.admission.needsContext(rt, attrs) || storageConversion(rt);
  const worker = !dryRun && !mainThread ? ctx.createWorkers : undefined;
  // What the worker's ServiceAccount admission reads, sent along with a Pod.
  if (worker && rt.group === '' && rt.plural === 'pods') request.serviceAccounts = serviceAccountTexts(ctx.store, namespace);
  const prepareHere = (): PreparedCreate<StoredObject> => {
    // managedFields before mutating admission, as kube's create handler (prepareNewObject calls back before admitting).
    return prepareNewObject(request, ctx.admission, attrs, (obj) =>
      trackUpdate({ rt, manager, subresource: '', now: request.now }, undefined, obj),
    );
  };
  let prepared: PreparedCreate;
  try {
    // A worker names its managedFields entry's manager with a placeholder (it does not know the request's).
    const fromWorker = await worker?.prepare(request, r.trace);
    prepared = fromWorker ? withManager(fromWorker, manager) : prepareHere();
  } catch (err) {
    // kube decodes first (400, 413, 415), then admits the namespace (404 when it is missing),
    // then validates and runs the other admission plugins: their refusals come after a missing namespace.
    if (!isDecodeError(err)) admitNamespace(ctx.store, rt, namespace);
    throw err;
  }
  admitNamespace(ctx.store, rt, namespace);
  auditRequestObject(r, request, prepared);
  // The plugins that read the store or the user, on an object prepared here (a worker takes only creates that need none).
  const admitHere = (p: PreparedCreate) => {
    if (!(p.value instanceof SerializedObject))
      ctx.admission.admit('CREATE', rt, p.value, undefined, 'context', { ...attrs, name: p.name });
  };
  admitHere(prepared);
  const objects = resourceStore(ctx.store, rt);

  for (let attempt = 0; ; attempt++) {
    const key = objectKey(rt, namespace, prepared.name);
    if (dryRun) {
      if (objects.get(key)) throw alreadyExists(gr, prepared.name);
      // A dry run is admitted in full; its plugins allocate and charge nothing.
      if (!(prepared.value instanceof SerializedObject))
        ctx.admission.admit('CREATE', rt, prepared.value, undefined, 'transaction', { ...attrs, name: prepared.name });
      return { status: 201, json: JSON.stringify(prepared.value), warnings: [...prepared.warnings, ...admitted] };
    }
    try {
      const { value, name: preparedName } = prepared;
      const result = await objects.txn(
        key,
        (cur) => {
          if (cur) throw alreadyExists(gr, prepared.name);
          // Transactional admission runs once, inside the transaction: a name collision throws before it.
          if (!(value instanceof SerializedObject)) {
            ctx.admission.admit('CREATE', rt, value, undefined, 'transaction', { ...attrs, name: preparedName });
            // Last, as kube's storage does (a create worker checked its object before serializing it).
            refuseSetResourceVersion(value);
          }
          return value;
        },
        { writer },
      );
      return { status: 201, json: result.json!, warnings: [...prepared.warnings, ...admitted] };
    } catch (err) {
      const retry =
        prepared.generateName !== undefined &&
        err instanceof StatusError &&
        err.reason === 'AlreadyExists' &&
        attempt + 1 < GENERATE_NAME_ATTEMPTS;
      if (!retry) throw err;
      // As kube, each attempt prepares the object again from the request with a new name:
      // what was derived from the name (a Namespace's kubernetes.io/metadata.name label) follows it.
      prepared = prepareHere();
      admitHere(prepared);
    }
  }
}
