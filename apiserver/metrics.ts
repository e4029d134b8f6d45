// The apiserver's own metrics, named as kube-apiserver names them where an
// equivalent exists: requests by verb/resource/code, request latency, open
// watches, stored objects and storage size, how long a write waits for its
// commit, watchers dropped for falling behind and the bytes queued to watchers.
import { prom } from '../shared/metrics/registry.ts';
import type { Registry } from 'prom-client';
import type { Store } from './storage/store.ts';
import type { CreateWorkerPool } from './create-workers/pool.ts';
import { watchBudget, watchTerminations } from './storage/watch-budget.ts';

/** What the request path reports. */
export interface RequestMetrics {
  observe(verb: string, resource: string, code: number, seconds: number): void;
  watchOpened(): void;
  watchClosed(): void;
}

/** Registers the apiserver's metrics on `registry`, reading storage and create-worker figures at scrape time. */
export function createApiMetrics(registry: Registry, store: Store, createWorkers?: CreateWorkerPool): RequestMetrics {
  const requests = new prom.Counter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out by verb, resource and HTTP response code.',
    labelNames: ['verb', 'resource', 'code'],
    registers: [registry],
  });
  const latency = new prom.Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb and resource (watches: their whole life).',
    labelNames: ['verb', 'resource'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
    registers: [registry],
  });
  const watches = new prom.Gauge({
    name: 'apiserver_longrunning_requests',
    help: 'Number of open long-running requests (watches).',
    labelNames: ['verb'],
    registers: [registry],
  });
  const commitDelay = new prom.Histogram({
    name: 'ksim_storage_commit_delay_seconds',
    help: "Each write's delay from its sequencing (its revision's time) to its commit: the wait for the batch before it and its own durable write.",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  store.observeCommitDelays((ms) => commitDelay.observe(ms / 1000));
  new prom.Gauge({
    name: 'apiserver_storage_objects',
    help: 'Number of stored objects.',
    registers: [registry],
    collect() {
      this.set(store.objectCount());
    },
  });
  new prom.Gauge({
    name: 'apiserver_storage_size_bytes',
    help: 'Size of the storage database on disk in bytes.',
    registers: [registry],
    async collect() {
      this.set(await store.sizeBytes());
    },
  });
  new prom.Gauge({
    name: 'ksim_storage_revision',
    help: 'The last committed revision (resourceVersion).',
    registers: [registry],
    collect() {
      this.set(store.revision);
    },
  });
  new prom.Gauge({
    name: 'ksim_create_workers_ready',
    help: 'Create worker threads ready to prepare new objects.',
    registers: [registry],
    collect() {
      this.set(createWorkers?.stats().ready ?? 0);
    },
  });
  new prom.Counter({
    name: 'ksim_create_workers_prepared_total',
    help: 'Creates whose object a create worker thread prepared (the others were prepared on the main thread).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(createWorkers?.stats().prepared ?? 0);
    },
  });
  new prom.Counter({
    name: 'apiserver_terminated_watchers_total',
    help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
    labelNames: ['group', 'resource'],
    registers: [registry],
    collect() {
      this.reset();
      for (const t of watchTerminations.all()) this.inc({ group: t.group, resource: t.resource }, t.count);
    },
  });
  new prom.Counter({
    name: 'ksim_watch_dropped_total',
    help: 'Watchers dropped for falling behind, by reason: watcher (it alone had more than 64 MiB queued), stalled (more than 1 MiB unread for 10 s while events kept coming) or total (all watchers together were over ksim_watch_queued_bytes_limit).',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const t of watchTerminations.all()) this.inc({ reason: t.reason }, t.count);
    },
  });
  new prom.Gauge({
    name: 'ksim_watch_queued_bytes',
    help: 'Bytes queued to watchers and not yet written to their peers, each buffer shared by several watchers counted once.',
    registers: [registry],
    collect() {
      this.set(watchBudget.recount());
    },
  });
  new prom.Gauge({
    name: 'ksim_watch_queued_bytes_limit',
    help: 'The budget for ksim_watch_queued_bytes: past it, the watchers furthest behind are dropped.',
    registers: [registry],
    collect() {
      this.set(watchBudget.limit);
    },
  });
  return {
    observe(verb, resource, code, seconds) {
      requests.inc({ verb, resource, code: String(code) });
      if (verb !== 'watch') latency.observe({ verb, resource }, seconds);
    },
    watchOpened: () => watches.inc({ verb: 'WATCH' }),
    watchClosed: () => watches.dec({ verb: 'WATCH' }),
  };
}
