// Records core/v1 Events about objects, as kube's EventRecorder does: one
// Event per (object, type, reason, message, source) within ten minutes, its
// count and lastTimestamp bumped on repeats instead of a new object. Writes
// are fire-and-forget: an event that cannot be written is logged, never fatal.
import type { Logger } from 'pino';
import { findResource } from '../api/resources.ts';
import { realClock, type Clock } from '../clock/clock.ts';
import type { KubeClient } from '../client/kube-client.ts';

const events = findResource('', 'v1', 'events')!;
const DEDUP_WINDOW_MS = 10 * 60_000;
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

interface Seen {
  name: string;
  namespace: string;
  count: number;
  at: number;
}

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** See the file comment. */
export class EventRecorder {
  private readonly seen = new Map<string, Seen>();
  private readonly clock: Clock;
  private readonly chains = new Map<string, Promise<unknown>>();
  private inFlight = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly client: KubeClient,
    private readonly opts: RecorderOptions,
  ) {
    this.clock = opts.clock ?? realClock;
  }

  /** Records a Normal or Warning event about `obj`. */
  event(obj: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string): void {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace || 'default';
    const now = this.clock.now();
    const key = [meta.uid, meta.name, namespace, obj.kind, type, reason, message, fieldPath ?? ''].join('\u0000');
    const prior = this.seen.get(key);
    let write: () => Promise<unknown>;
    if (prior && now - prior.at < DEDUP_WINDOW_MS) {
      prior.count++;
      prior.at = now;
      const patch = { count: prior.count, lastTimestamp: stamp(now) };
      write = () => this.client.patch(events, prior.namespace, prior.name, 'merge', patch);
    } else {
      const name = `${meta.name}.${(BigInt(now) * 1_000_000n + BigInt(this.seen.size % 1_000_000)).toString(16)}`;
      this.seen.set(key, { name, namespace, count: 1, at: now });
      if (this.seen.size > 4096) this.evictOld(now);
      const body = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: { kind: obj.kind, namespace: meta.namespace, name: meta.name, uid: meta.uid, apiVersion: obj.apiVersion, resourceVersion: meta.resourceVersion, ...(fieldPath ? { fieldPath } : {}) },
        reason,
        message,
        source: { component: this.opts.component, ...(this.opts.host ? { host: this.opts.host } : {}) },
        firstTimestamp: stamp(now),
        lastTimestamp: stamp(now),
        count: 1,
        type,
        eventTime: null,
        reportingComponent: this.opts.component,
        reportingInstance: this.opts.host ?? '',
      };
      write = () => this.client.create(events, namespace, body);
    }
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

  private evictOld(now: number): void {
    for (const [k, v] of this.seen) if (now - v.at >= DEDUP_WINDOW_MS) this.seen.delete(k);
  }
}
