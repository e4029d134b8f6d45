// A create worker thread: prepares new objects (decode, checks, defaults,
// validation, object-only admission; see handlers/new-object.ts) and returns
// them serialized, so that the main thread keeps only the HTTP exchange and
// the transaction. Started by pool.ts through `ksim __create-worker`.
import { parentPort, workerData } from 'node:worker_threads';
import { StatusError } from '../../shared/api/errors.ts';
import { findResource } from '../../shared/api/resources.ts';
import { objectAdmissionPlugins } from '../admission/pod-defaults.ts';
import { priorityClassSnapshot, type PriorityClassView } from '../admission/priority-classes.ts';
import { AdmissionChain } from '../admission/types.ts';
import type { TraceSink, TraceStep } from '../../shared/api/request-trace-types.ts';
import { tracedPlugin } from '../request-trace/admission.ts';
import { serviceAccountSnapshot, type ServiceAccountView } from '../admission/service-account.ts';
import { prepareNewObject } from '../handlers/new-object.ts';
import { refuseSetResourceVersion } from '../registry/lifecycle.ts';
import { createdFields, managerPlaceholder, serializeWithCreatedFields, type CreatedFields } from '../fieldmanager/index.ts';
import type { CreateWorkerData, PrepareBatch, PrepareMessage, PrepareReply, WorkerReply } from './protocol.ts';

/** Serves prepare requests until the main thread goes away. */
export function runCreateWorker(): void {
  const port = parentPort;
  if (!port) throw new Error('ksim __create-worker runs only as a worker thread of the apiserver');
  const { placeholder } = workerData as CreateWorkerData;
  let classes: PriorityClassView = priorityClassSnapshot([]);
  let accounts: ServiceAccountView = serviceAccountSnapshot([]);
  // A traced request's admission steps are collected while it is prepared, and sent back with it.
  let steps: TraceStep[] | undefined;
  const sink: TraceSink = { step: (s) => steps?.push(s) };
  const admission = new AdmissionChain(
    objectAdmissionPlugins(
      { lookup: (name) => classes.lookup(name), globalDefault: () => classes.globalDefault() },
      { get: (ns, name) => accounts.get(ns, name) },
    ).map((p) => tracedPlugin(p, () => (steps ? sink : undefined))),
  );
  const send = (m: WorkerReply) => port.postMessage(m);

  const prepare = (m: PrepareMessage): PrepareReply => {
    steps = m.traced ? [] : undefined;
    const taken = (): { steps?: TraceStep[] } => (steps ? { steps } : {});
    try {
      accounts = serviceAccountSnapshot(m.serviceAccounts ?? []);
      if (m.priorityClasses) classes = priorityClassSnapshot(m.priorityClasses.map((j) => JSON.parse(j)));
      const rt = findResource(m.group, m.version, m.plural);
      if (!rt) throw new Error(`unknown resource ${m.group}/${m.version}/${m.plural}`);
      const body = Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength);
      // The main thread puts the request's field manager in the placeholder's place.
      const w = { rt, manager: managerPlaceholder(placeholder), subresource: '', now: new Date(m.nowMs) };
      let created: CreatedFields = { inPlace: false };
      const out = prepareNewObject(
        {
          rt,
          namespace: m.namespace,
          body,
          contentType: m.contentType,
          fieldValidation: m.fieldValidation,
          now: new Date(m.nowMs),
          uid: m.uid,
          user: m.user,
        },
        admission,
        undefined,
        // managedFields before mutating admission, as kube's create handler.
        (obj) => (created = createdFields(w, obj)),
      );
      // Last, as kube's storage does: every check and admission plugin of a worker's create has run.
      refuseSetResourceVersion(out.value);
      out.value.metadata.resourceVersion = placeholder;
      const json = serializeWithCreatedFields(w, out.value, created);
      return { id: m.id, json, name: out.name, generateName: out.generateName, warnings: out.warnings, ...taken() };
    } catch (err) {
      if (err instanceof StatusError)
        return { id: m.id, status: { code: err.code, reason: err.reason, message: err.message, details: err.details }, ...taken() };
      return { id: m.id, failure: err instanceof Error ? (err.stack ?? err.message) : String(err) };
    }
  };

  port.on('message', (batch: PrepareBatch) => send({ replies: batch.requests.map(prepare) }));
  send({ ready: true });
}
