// Records core/v1 Events about objects, as kube's EventRecorder does: the
// EventCorrelator (correlator.ts) decides whether an event is a new Event, a
// count bump of an earlier one, or dropped as spam. Writes are
// fire-and-forget: an event that cannot be written is logged, never fatal.
import type { Logger } from 'pino';
import { findResource } from '../api/resources.ts';
import { StatusError } from '../api/errors.ts';
import { realClock, type Clock } from '../clock/clock.ts';
import type { KubeClient } from '../client/kube-client.ts';
import { EventCorrelator } from './correlator.ts';

const events = findResource('', 'v1', 'events')!;
const MAX_IN_FLIGHT = 16;

/** The object an event is about. */
export interface InvolvedObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

/** Who records. */
export interface RecorderOptions {
  component: string;
  host?: string;
  clock?: Clock;
  log?: Logger;
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** See the file comment. */
export class EventRecorder {
  private readonly clock: Clock;
  private readonly correlator: EventCorrelator;
  private readonly chains = new Map<string, Promise<unknown>>();
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  private named = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly opts: RecorderOptions,
  ) {
    this.clock = opts.clock ?? realClock;
    // kube names an Event <object>.<UnixNano in hex>; the counter keeps names unique within a millisecond.
    this.correlator = new EventCorrelator(
      () => this.clock.now(),
      (objectName, now) => `${objectName}.${(BigInt(now) * 1_000_000n + BigInt(this.named++ % 1_000_000)).toString(16)}`,
    );
  }

  /** Records a Normal or Warning event about `obj`. */
  event(obj: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string): void {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace || 'default';
    const now = this.clock.now();
    const source = { component: this.opts.component, ...(this.opts.host ? { host: this.opts.host } : {}) };
    const involvedObject = {
      kind: obj.kind,
      namespace: meta.namespace,
      name: meta.name,
      uid: meta.uid,
      apiVersion: obj.apiVersion,
      resourceVersion: meta.resourceVersion,
      ...(fieldPath ? { fieldPath } : {}),
    };
    const decision = this.correlator.decide({
      source,
      involvedObject,
      type,
      reason,
      message,
      reportingController: this.opts.component,
      reportingInstance: this.opts.host ?? '',
    });
    if (decision.action === 'skip') return;
    const body = (count: number) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: decision.name, namespace },
      involvedObject,
      reason,
      message: decision.message,
      source,
      firstTimestamp: stamp(decision.firstTimestamp),
      lastTimestamp: stamp(now),
      count,
      type,
      eventTime: null,
      reportingComponent: this.opts.component,
      reportingInstance: this.opts.host ?? '',
    });
    let write: () => Promise<unknown>;
    if (decision.action === 'create') write = () => this.client.create(events, namespace, body(1));
    else {
      const patch = { count: decision.count, lastTimestamp: stamp(now), message: decision.message };
      // An Event that expired or was deleted is written again, as kube's recordToSink does.
      write = () =>
        this.client.patch(events, namespace, decision.name, 'merge', patch).catch((err) => {
          if (err instanceof StatusError && err.code === 404) return this.client.create(events, namespace, body(decision.count));
          throw err;
        });
    }
    const key = `${namespace}/${decision.name}`;
    // Writes of one event go out in order, so a count bump never overtakes its create;
    // different events are written concurrently, at most MAX_IN_FLIGHT at a time.
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.slot(write))
      .catch((err) => this.opts.log?.warn({ err: (err as Error).message, reason }, 'could not record event'))
      .finally(() => {
        if (this.chains.get(key) === next) this.chains.delete(key);
      });
    this.chains.set(key, next);
  }

  private async slot(write: () => Promise<unknown>): Promise<unknown> {
    while (this.inFlight >= MAX_IN_FLIGHT) await new Promise<void>((r) => this.waiters.push(r));
    this.inFlight++;
    try {
      return await write();
    } finally {
      this.inFlight--;
      this.waiters.shift()?.();
    }
  }

  /** Resolves when every event recorded so far has been written (or failed). */
  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }
}
