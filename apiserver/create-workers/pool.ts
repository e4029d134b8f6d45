// The apiserver's create workers, seen from the main thread. Preparing a new
// object (decode, checks, defaults, validation, serialization) is about half
// of a create's CPU time and reads nothing from the store, so it runs on
// worker threads while the main thread serves HTTP and commits. Requests
// go round-robin; a worker that is not ready yet, or has died, is skipped and
// the caller prepares the object itself (prepare() answers undefined).
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { internalError, StatusError } from '../../shared/api/errors.ts';
import type { NewObjectPreparer, NewObjectRequest, PreparedCreate } from '../handlers/new-object-types.ts';
import { RESOURCE_VERSION_PLACEHOLDER, SerializedObject } from '../storage/serialized-object.ts';
import type { AdmissionSnapshot } from '../admission/snapshot.ts';
import type { TraceSink } from '../../shared/api/request-trace-types.ts';
import type { CreateWorkerData, PrepareBatch, PrepareMessage, PrepareReply, WorkerReply } from './protocol.ts';

/** The ksim command, which starts a worker when given `__create-worker`. */
const KSIM_CLI = new URL('../../cli/ksim.mjs', import.meta.url);

/** Where the workers' copy of the PriorityClasses comes from. */
export interface PriorityClassSource {
  /** Changes whenever the PriorityClasses do. */
  version(): number;
  /** The PriorityClasses as JSON texts. */
  texts(): string[];
}

interface Pending {
  resolve: (p: PreparedCreate | undefined) => void;
  reject: (err: unknown) => void;
  trace?: TraceSink;
}

class CreateWorker {
  readonly thread: Worker;
  ready = false;
  gone = false;
  /** The PriorityClass version this worker last received. */
  classesVersion = -1;
  readonly pending = new Map<number, Pending>();
  /** Creates this worker has answered. */
  answered = 0;
  /** Requests of this event-loop turn, sent together (see PrepareBatch). */
  private outbox: PrepareMessage[] = [];

  constructor(log: Logger, onGone: () => void) {
    const data: CreateWorkerData = { placeholder: RESOURCE_VERSION_PLACEHOLDER };
    this.thread = new Worker(KSIM_CLI, { argv: ['__create-worker'], workerData: data });
    // Never what keeps the apiserver running.
    this.thread.unref();
    this.thread.on('message', (m: WorkerReply) => this.onMessage(m, log));
    this.thread.on('error', (err) => log.error({ err }, 'create worker failed; its creates are prepared on the main thread'));
    this.thread.on('exit', () => {
      this.gone = true;
      // What it still held is prepared on the main thread instead.
      for (const p of this.pending.values()) p.resolve(undefined);
      this.pending.clear();
      onGone();
    });
  }

  /** Queues `msg`; the turn's requests leave in one message. */
  send(msg: PrepareMessage): void {
    if (this.outbox.length === 0) setImmediate(() => this.flush());
    this.outbox.push(msg);
  }

  private flush(): void {
    const batch: PrepareBatch = { requests: this.outbox };
    this.outbox = [];
    // A worker that exited meanwhile already handed these back (see the exit handler).
    if (this.gone) return;
    // The bodies are moved, not copied.
    this.thread.postMessage(
      batch,
      batch.requests.map((m) => m.body.buffer as ArrayBuffer),
    );
  }

  private onMessage(m: WorkerReply, log: Logger): void {
    if ('ready' in m) this.ready = true;
    else for (const r of m.replies) this.onReply(r, log);
  }

  private onReply(m: PrepareReply, log: Logger): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    this.answered++;
    if (p.trace && 'steps' in m) for (const s of m.steps ?? []) p.trace.step(s);
    if ('json' in m) p.resolve({ value: new SerializedObject(m.json), name: m.name, generateName: m.generateName, warnings: m.warnings });
    else if ('status' in m) p.reject(new StatusError(m.status.code, m.status.reason, m.status.message, m.status.details));
    else {
      log.error({ failure: m.failure }, 'unexpected error preparing a create on a worker');
      p.reject(internalError());
    }
  }
}

/** See the file comment. */
export class CreateWorkerPool implements NewObjectPreparer {
  private readonly workers: CreateWorker[] = [];
  private next = 0;
  private nextId = 0;
  private closing = false;

  constructor(
    private readonly count: number,
    private readonly classes: PriorityClassSource,
    private readonly log: Logger,
  ) {}

  /**
   * Starts the worker threads. The apiserver calls this once it serves: a
   * thread loading its code competes for the cores with the start itself,
   * and creates before a worker is ready run on the main thread anyway.
   */
  start(): void {
    if (this.closing || this.workers.length > 0) return;
    for (let i = 0; i < this.count; i++) {
      this.workers.push(
        new CreateWorker(this.log, () => {
          if (!this.closing) this.log.error('a create worker exited; creates it would have prepared run on the main thread');
        }),
      );
    }
  }

  /** Prepares `req` on a worker; undefined when no worker can (the caller prepares it itself). */
  prepare(req: NewObjectRequest, trace?: TraceSink): Promise<PreparedCreate | undefined> {
    const worker = this.pick();
    if (!worker) return Promise.resolve(undefined);
    const id = ++this.nextId;
    // A copy of exactly the body's bytes, moved (not copied again) to the worker.
    const body = new Uint8Array(req.body.length);
    body.set(req.body);
    const msg: PrepareMessage = {
      id,
      group: req.rt.group,
      version: req.rt.version,
      plural: req.rt.plural,
      namespace: req.namespace,
      body,
      contentType: req.contentType,
      fieldValidation: req.fieldValidation,
      nowMs: req.now.getTime(),
      uid: req.uid,
      user: req.user,
    };
    if (trace) msg.traced = true;
    // The handler adds what the worker's admission reads (admission/snapshot.ts) to a Pod's request.
    const snapshot = (req as NewObjectRequest & AdmissionSnapshot).serviceAccounts;
    if (snapshot) msg.serviceAccounts = snapshot;
    const version = this.classes.version();
    if (version !== worker.classesVersion) {
      msg.priorityClasses = this.classes.texts();
      worker.classesVersion = version;
    }
    return new Promise((resolve, reject) => {
      worker.pending.set(id, { resolve, reject, trace });
      worker.send(msg);
    });
  }

  private pick(): CreateWorker | undefined {
    for (let i = 0; i < this.workers.length; i++) {
      const w = this.workers[(this.next + i) % this.workers.length];
      if (w.ready && !w.gone) {
        this.next = (this.next + i + 1) % this.workers.length;
        return w;
      }
    }
    return undefined;
  }

  /** Workers ready to prepare, and creates prepared by workers so far (for /metrics). */
  stats(): { ready: number; prepared: number } {
    return {
      ready: this.workers.filter((w) => w.ready && !w.gone).length,
      prepared: this.workers.reduce((n, w) => n + w.answered, 0),
    };
  }

  /** Stops every worker. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.thread.terminate()));
  }
}
