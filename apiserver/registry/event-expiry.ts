// kube-apiserver's --event-ttl: an Event is deleted a while (an hour by
// default) after it was last written, through either Event API (both are
// core Events in storage). kube attaches an etcd lease to every Event write;
// here the apiserver learns each Event's last write from a watch on their
// storage and a periodic sweep deletes the expired ones, so watchers see a
// DELETED event, as they do when a lease expires. After a restart, every
// stored Event gets a full TTL from the start (kube's leases would keep
// their original deadlines).
import type { Logger } from 'pino';
import { findResource } from '../../shared/api/resources.ts';
import type { Store } from '../storage/store.ts';
import { apiserverWrite } from '../handlers/write-record.ts';

const EXPIRY_WRITER = apiserverWrite('event-expiry', 'delete');

const EVENTS = findResource('', 'v1', 'events')!;

/** How often expired Events are looked for, at most. */
const MAX_SWEEP_INTERVAL_MS = 10_000;

/** A running expiry; stop() ends it. */
export interface EventExpiry {
  stop(): void;
}

/** Starts deleting Events `ttlMs` after their last write. */
export function startEventExpiry(store: Store, opts: { ttlMs: number; log: Logger; now?: () => number }): EventExpiry {
  const now = opts.now ?? Date.now;
  /** Storage key -> when it expires, in expiry order (a write moves its key to the end). */
  const expiries = new Map<string, number>();
  const touch = (key: string, deleted: boolean) => {
    expiries.delete(key);
    if (!deleted) expiries.set(key, now() + opts.ttlMs);
  };

  const bucket = EVENTS.storagePrefix;
  const keyPrefix = `${bucket}/`;
  // The stored Events and the watch from the current revision, in one synchronous step: none falls between.
  for (const key of store.keys(bucket, keyPrefix)) touch(key, false);
  const unregister = store.watch(
    {
      bucket,
      keyPrefix,
      deliver: (events) => {
        for (const ev of events) touch(ev.key, ev.type === 'DELETED');
      },
    },
    store.revision,
  );

  const sweep = () => {
    const t = now();
    let expired = 0;
    for (const [key, at] of expiries) {
      if (at > t) break;
      expiries.delete(key);
      expired++;
      store
        .txn(key, (cur) => (cur ? null : undefined), { writer: EXPIRY_WRITER })
        .catch((err) => opts.log.warn({ err, key }, 'could not delete an expired Event'));
    }
    if (expired > 0) opts.log.debug({ expired }, 'deleted expired Events');
  };
  const timer = setInterval(sweep, Math.max(10, Math.min(MAX_SWEEP_INTERVAL_MS, opts.ttlMs / 10)));
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      unregister();
    },
  };
}
