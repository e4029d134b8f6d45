// The controller loop of kubernetes/sample-controller, once for everyone:
// wait for the informers' caches, then N workers take keys from the queue
// and reconcile them; success forgets the key's failures (or requeues it
// after `requeueAfterMs`), an error requeues it with backoff. Level-based:
// a key carries no data, reconcile re-reads the state from the caches.
// Each reconcile runs with a write cause (the controller, the key and the
// resourceVersions of the events that queued it), which the client sends
// with every write the reconcile makes.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { withCause } from '../causality/cause-context.ts';
import { prom } from '../metrics/registry.ts';
import type { Informer } from '../informer/informer.ts';
import type { WorkQueue } from '../workqueue/work-queue.ts';
import { itemOf, stepper, type ReconcileItem } from './stepper.ts';

/** What a reconcile may ask for after succeeding. */
export interface ReconcileResult {
  requeueAfterMs?: number;
}

/** A controller's parts. */
export interface ControllerSpec {
  name: string;
  queue: WorkQueue;
  informers: Informer[];
  /** Reconciles `key`; `item` takes notes on what it saw and decided, for step-through. */
  reconcile: (key: string, item: ReconcileItem) => Promise<ReconcileResult | void>;
  workers?: number;
  log: Logger;
  registry?: Registry;
}

/** A started controller. */
export interface RunningController {
  /** Stops taking keys; resolves when the workers have finished their current key. */
  stop(): Promise<void>;
}

const durations = new WeakMap<Registry, prom.Histogram<'controller' | 'result'>>();

function reconcileHistogram(registry: Registry): prom.Histogram<'controller' | 'result'> {
  let h = durations.get(registry);
  if (!h) {
    h = new prom.Histogram({
      name: 'ksim_controller_reconcile_duration_seconds',
      help: 'Time spent in one reconcile, by controller and result.',
      labelNames: ['controller', 'result'],
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [registry],
    });
    durations.set(registry, h);
  }
  return h;
}

/** Runs `spec` until stop(). */
export async function runController(spec: ControllerSpec): Promise<RunningController> {
  const log = spec.log.child({ controller: spec.name });
  stepper.register(spec.name);
  await Promise.all(spec.informers.map((i) => i.waitForSync()));
  log.info({ workers: spec.workers ?? 1 }, 'caches synced; starting workers');
  const histogram = spec.registry ? reconcileHistogram(spec.registry) : undefined;
  const worker = async () => {
    for (;;) {
      const key = await spec.queue.get();
      if (key === undefined) return;
      const triggers = spec.queue.triggersOf(key);
      // A paused controller holds the item here until it is stepped (stepper.ts).
      const record = await stepper.admit(spec.name, key, triggers);
      const started = process.hrtime.bigint();
      let result = 'success';
      try {
        const cause = { controller: spec.name, key, triggers: triggers.length ? [...triggers] : undefined };
        const out = await withCause(cause, () => spec.reconcile(key, itemOf(record)));
        spec.queue.forget(key);
        if (out?.requeueAfterMs !== undefined) spec.queue.addAfter(key, out.requeueAfterMs);
        stepper.finish(record, { requeueAfterMs: out?.requeueAfterMs });
      } catch (err) {
        stepper.finish(record, { error: (err as Error).message });
        result = 'error';
        log.warn({ key, err: (err as Error).message, retries: spec.queue.retries(key) }, 'reconcile failed; requeueing');
        spec.queue.addRateLimited(key);
      } finally {
        spec.queue.done(key);
        histogram?.observe({ controller: spec.name, result }, Number(process.hrtime.bigint() - started) / 1e9);
      }
    }
  };
  const workers = Array.from({ length: spec.workers ?? 1 }, () => worker());
  return {
    async stop() {
      spec.queue.shutdown();
      // Items held at a paused gate must finish for the workers to end.
      stepper.resume(spec.name);
      await Promise.all(workers);
    },
  };
}
