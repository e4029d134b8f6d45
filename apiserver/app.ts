// Assembles the apiserver: the store, the HTTP server (API requests on the
// hot path, express for health, version and metrics), WebSocket watches, and
// the bootstrap namespaces. `startApiserver` is what `ksim apiserver` runs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import express from 'express';
import { WebSocketServer } from 'ws';
import type { Logger } from 'pino';
import { StatusError } from '../shared/api/errors.ts';
import { createMetricsRegistry } from '../shared/metrics/registry.ts';
import { createApiHandler } from './api-handler.ts';
import { ensureBootstrapObjects, KUBERNETES_SERVICE_IP } from './bootstrap.ts';
import { AdmissionChain } from './admission/types.ts';
import { DEFAULT_SERVICE_RANGES, serviceAllocation } from './admission/service-allocation.ts';
import { objectAdmissionPlugins } from './admission/pod-defaults.ts';
import { PRIORITY_CLASSES_BUCKET, storedPriorityClassTexts, storePriorityClasses } from './admission/priority-classes.ts';
import { CreateWorkerPool } from './create-workers/pool.ts';
import { startEventExpiry } from './registry/event-expiry.ts';
import { handleOpenApi, warmOpenApi } from './openapi/handler.ts';
import { sendError } from './http/respond.ts';
import { parseRequestUrl } from './http/request-url.ts';
import { upgradeHandler } from './http/upgrade.ts';
import { applyConnectionTimeouts } from './http/connection-timeouts.ts';
import type { ApiContext } from './handlers/context.ts';
import { LevelBackend } from './storage/level-backend.ts';
import { Store, type CompactionPolicy } from './storage/store.ts';
import { healthHandler, storageCheck } from './storage/health-checks.ts';
import { createApiMetrics } from './metrics.ts';
import { versionInfo } from './version.ts';
import { ALWAYS_ALLOW } from './auth/always-allow.ts';

/** How to run an apiserver. */
export interface ApiserverOptions {
  dataDir: string;
  port: number;
  host: string;
  log: Logger;
  compaction?: Partial<CompactionPolicy>;
  bookmarkIntervalMs?: number;
  /** Threads that prepare new objects (default: one when the machine has a second core). */
  createWorkers?: number;
  /** How long an Event lives after its last write (kube's --event-ttl, default one hour). */
  eventTtlMs?: number;
}

/** A running apiserver. */
export interface RunningApiserver {
  port: number;
  store: Store;
  close(): Promise<void>;
}

/** Opens the data dir, bootstraps, and serves until `close`. */
export async function startApiserver(opts: ApiserverOptions): Promise<RunningApiserver> {
  const { log } = opts;
  const backend = await LevelBackend.open(path.join(opts.dataDir, 'db'));
  const store = await Store.open(backend, {
    compaction: opts.compaction,
    failure: {
      onFailure: (err, kind) =>
        log.error(
          { err, kind },
          'storage is failing: writes are refused with a Status and retried in the background; reads and watches go on',
        ),
      onRecovered: () => log.info('storage works again: writes are accepted'),
      onCompactionError: (err) => log.warn({ err }, 'compacting the stored change log failed; the next compaction retries'),
    },
  });
  log.info({ revision: store.revision, objects: store.objectCount() }, 'storage loaded');
  const admission = buildAdmission(store);
  const eventExpiry = startEventExpiry(store, { ttlMs: opts.eventTtlMs ?? 3_600_000, log });
  const workerCount = Math.max(0, Math.floor(opts.createWorkers ?? (os.availableParallelism() > 1 ? 1 : 0)));
  const createWorkers =
    workerCount > 0
      ? new CreateWorkerPool(
          workerCount,
          { version: () => store.bucketVersion(PRIORITY_CLASSES_BUCKET), texts: () => storedPriorityClassTexts(store) },
          log,
        )
      : undefined;
  const ctx: ApiContext = {
    store,
    log,
    admission,
    createWorkers,
    now: () => new Date(),
    newUid: randomUUID,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
    authorizer: ALWAYS_ALLOW,
  };

  const registry = createMetricsRegistry('apiserver');
  const apiHandler = createApiHandler(ctx, createApiMetrics(registry, store, createWorkers));
  let ready = false;
  const app = express();
  app.disable('x-powered-by');
  // Not live-or-dead on storage: the store recovers by itself, and a restart on a full disk would not start.
  app.get(['/livez', '/healthz'], healthHandler('livez', [{ name: 'ping', check: () => undefined }]));
  app.get(
    '/readyz',
    healthHandler('readyz', [
      { name: 'ping', check: () => undefined },
      storageCheck(store),
      { name: 'shutdown', check: () => (ready ? undefined : 'shutting down') },
    ]),
  );
  app.get('/version', (_req, res) => void res.json(versionInfo()));
  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  app.use((_req, res) => {
    const err = new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
    res.status(404).json(err.toStatus());
  });

  const server = http.createServer({ connectionsCheckingInterval: 1000, maxHeaderSize: 1 << 20 }, (req, res) => {
    const url = parseRequestUrl(req.url);
    try {
      if (handleOpenApi(req, res, url)) return;
    } catch (err) {
      sendError(res, err, log);
      return;
    }
    if (url.pathname === '/api' || url.pathname.startsWith('/api/') || url.pathname === '/apis' || url.pathname.startsWith('/apis/')) {
      apiHandler(req, res, url);
    } else {
      app(req, res);
    }
  });
  applyConnectionTimeouts(server);

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', upgradeHandler(ctx, wss));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  await ensureBootstrapObjects(ctx, port);
  ready = true;
  log.info({ port, host: opts.host, dataDir: opts.dataDir }, 'serving');
  // Build the OpenAPI documents (~0.4 s of blocking work) before kubectl's first
  // write needs them, but not at once: right after a restart, clients re-watching
  // and writing come first.
  setTimeout(() => {
    try {
      warmOpenApi();
    } catch (err) {
      log.error({ err }, 'building the OpenAPI documents failed; /openapi requests will report it');
    }
  }, 5000).unref();

  return {
    port,
    store,
    async close() {
      ready = false;
      for (const ws of wss.clients) ws.close(1001);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Give in-flight requests a moment to answer; open watches never finish on their own.
      await new Promise((r) => setTimeout(r, 200));
      server.closeAllConnections();
      await closed;
      await createWorkers?.close();
      eventExpiry.stop();
      await store.close();
    },
  };
}

/** The admission chain, seeded with what the store already holds. */
function buildAdmission(store: Store): AdmissionChain {
  const services = store.list({ bucket: '/registry/core/services', keyPrefix: '/registry/core/services/' }).items.map((j) => JSON.parse(j));
  return new AdmissionChain([
    serviceAllocation(DEFAULT_SERVICE_RANGES, [...services, { spec: { clusterIPs: [KUBERNETES_SERVICE_IP] } }]),
    ...objectAdmissionPlugins(storePriorityClasses(store)),
  ]);
}
