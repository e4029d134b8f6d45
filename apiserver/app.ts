// Assembles the apiserver: the store, the cluster PKI and the HTTPS server
// (every request authenticated and authorized first, then API requests on the
// hot path, express for health, version and metrics), WebSocket watches, and
// the bootstrap objects and RBAC policy. `startApiserver` is what `ksim
// apiserver` runs.
import http from 'node:http';
import https from 'node:https';
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
import { buildAdmissionChain } from './admission/chain.ts';
import { PRIORITY_CLASSES_BUCKET, storedPriorityClassTexts } from './admission/priority-classes.ts';
import { rbacEscalationPlugin } from './auth/rbac/escalation.ts';
import { CreateWorkerPool } from './create-workers/pool.ts';
import { startEventExpiry } from './registry/event-expiry.ts';
import { startCRDController } from './crd/controller.ts';
import { handleOpenApi, warmOpenApi } from './openapi/handler.ts';
import { sendError } from './http/respond.ts';
import { parseRequestUrl, type RequestUrl } from './http/request-url.ts';
import { writeKubeconfig } from '../shared/client/kubeconfig-file.ts';
import { upgradeHandler } from './http/upgrade.ts';
import { applyConnectionTimeouts, KUBE_CONNECTION_TIMEOUTS } from './http/connection-timeouts.ts';
import type { ApiContext } from './handlers/context.ts';
import { LevelBackend } from './storage/level-backend.ts';
import { Store, type CompactionPolicy } from './storage/store.ts';
import type { HistoryPolicy } from './storage/types.ts';
import { healthHandler, storageCheck } from './storage/health-checks.ts';
import { createApiMetrics } from './metrics.ts';
import { versionInfo } from './version.ts';
import { ALWAYS_ALLOW } from './auth/always-allow.ts';
import { ensureClusterPki, type ClusterPki } from '../shared/pki/cluster-pki.ts';
import { writeClusterKubeconfigs } from '../shared/pki/kubeconfigs.ts';
import { createAuthentication, type AuthnOptions } from './auth/authn/index.ts';
import { createAuthorizer } from './auth/authorizer.ts';
import { RequestPath, type RequestIdentity } from './auth/request-path.ts';
import { serveIssuerDiscovery } from './auth/issuer-discovery.ts';
import { AUDIT_ID_HEADER, createAuditor, requestAuditID } from './audit/auditor.ts';
import { loadPolicyFile } from './audit/policy.ts';
import { reconcileBootstrapPolicy } from './auth/rbac/reconcile.ts';
import { MASTERS_GROUP, AUTHENTICATED_GROUP, type UserInfo } from './auth/user-info.ts';
import type { Authenticated } from './auth/authenticator-types.ts';
import { apiserverFaults } from './chaos/fault-table.ts';
import { registerChaosMetrics } from './chaos/metrics.ts';
import { attributesTarget, injectRequestFaults } from './chaos/request-faults.ts';
import { DEFAULT_TRACE_CAPACITY, RequestTraces, type ActiveTrace } from './request-trace/ring.ts';
import { watchUpgradeAnswer } from './http/upgrade-answer.ts';
import { traceStoreWrites } from './request-trace/store-hook.ts';

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
  /** How long every revision is kept in history (default: for ever; false: not at all). */
  history?: HistoryPolicy | false;
  /**
   * Plain HTTP with neither authentication nor authorization (every request
   * is `system:unsecured` in `system:masters`): only for teaching, and said loudly.
   */
  insecureHttp?: boolean;
  /** More names or addresses for the serving certificate (--advertise-address). */
  advertiseAddresses?: string[];
  /** The audit log (--audit-*): DIR/audit.log at ksim's default policy unless told otherwise. */
  audit?: { path?: string; policyFile?: string; maxSizeMb?: number; maxBackups?: number; maxAgeDays?: number };
  /** kube's --authorization-mode: Node,RBAC by default; AlwaysAllow turns authorization off (for benchmarks). */
  authorizationModes?: ('Node' | 'RBAC' | 'AlwaysAllow')[];
  /** kube's --disable-admission-plugins. */
  disabledAdmissionPlugins?: string[];
  /** Token authenticators' settings (ServiceAccount issuer, static tokens, OIDC). */
  authn?: Pick<AuthnOptions, 'serviceAccountIssuer' | 'apiAudiences' | 'tokenAuthFile' | 'oidc'>;
  /** How many recent requests' traces are kept (history.ksim.io requests; default 2,000; 0: none). */
  requestTraces?: number;
}

/** The user of every request on --insecure-http, as kube's old insecure port had it. */
const UNSECURED: UserInfo = { username: 'system:unsecured', groups: [MASTERS_GROUP, AUTHENTICATED_GROUP] };

/** A running apiserver. */
export interface RunningApiserver {
  port: number;
  /** https://HOST:PORT (http:// on --insecure-http). */
  url: string;
  /** DIR/kubeconfig, the admin's. */
  kubeconfig: string;
  store: Store;
  close(): Promise<void>;
}

/** Opens the data dir, bootstraps, and serves until `close`. */
export async function startApiserver(opts: ApiserverOptions): Promise<RunningApiserver> {
  const { log } = opts;
  const backend = await LevelBackend.open(path.join(opts.dataDir, 'db'));
  const store = await Store.open(backend, {
    compaction: opts.compaction,
    history: opts.history,
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
  let pki: ClusterPki | undefined;
  if (!opts.insecureHttp) {
    pki = await ensureClusterPki(opts.dataDir, { serviceIPs: [KUBERNETES_SERVICE_IP], advertiseAddresses: opts.advertiseAddresses });
    if (pki.written.length > 0) log.info({ files: pki.written }, 'made the cluster PKI');
  } else {
    log.warn(
      'INSECURE: serving plain HTTP with no authentication and no authorization (--insecure-http): every request is system:unsecured in system:masters; use only for teaching',
    );
  }
  const modes = opts.authorizationModes ?? ['Node', 'RBAC'];
  const alwaysAllow = opts.insecureHttp || modes.includes('AlwaysAllow');
  const rbac = alwaysAllow ? undefined : createAuthorizer(store, { modes: modes.filter((m) => m !== 'AlwaysAllow') });
  const authorizer = rbac ?? ALWAYS_ALLOW;
  const traceCapacity = opts.requestTraces ?? DEFAULT_TRACE_CAPACITY;
  const traces = traceCapacity > 0 ? new RequestTraces(traceCapacity) : undefined;
  if (traces) traceStoreWrites(store, traces);
  // RBAC's escalation check is admission of Role and binding writes; with AlwaysAllow there is nothing to escalate past.
  const admission = buildAdmissionChain(store, {
    extra: rbac ? [rbacEscalationPlugin(rbac)] : [],
    disabled: new Set(opts.disabledAdmissionPlugins),
    authorizer,
    traces,
  });
  // Also on --insecure-http: TokenRequest still signs ServiceAccount tokens, which a TokenReview can check.
  const authentication = await createAuthentication({
    ...opts.authn,
    store,
    dataDir: opts.dataDir,
    clientCaPem: pki?.ca.certPem,
    now: () => new Date(),
    log,
  });
  const auditor = createAuditor({
    path: opts.audit?.path ?? path.join(opts.dataDir, 'audit.log'),
    policy: opts.audit?.policyFile ? loadPolicyFile(opts.audit.policyFile) : undefined,
    maxSizeMB: opts.audit?.maxSizeMb,
    maxBackups: opts.audit?.maxBackups,
    maxAgeDays: opts.audit?.maxAgeDays,
    log,
  });
  const requestPath = new RequestPath({
    auditor,
    authenticate: pki
      ? (req) => authentication.authenticate(req)
      : (): Promise<Authenticated> => Promise.resolve({ user: UNSECURED, authenticator: 'insecure-http' }),
    authorizer,
    traces,
  });
  const ctx: ApiContext = {
    store,
    log,
    admission,
    createWorkers,
    now: () => new Date(),
    newUid: randomUUID,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
    authorizer,
    authentication,
    kubeletClientTls: pki && {
      certPem: pki.apiserverKubeletClient.certPem,
      keyPem: pki.apiserverKubeletClient.keyPem,
      caPem: pki.ca.certPem,
    },
  };

  const registry = createMetricsRegistry('apiserver');
  registerChaosMetrics(registry);
  const apiHandler = createApiHandler(ctx, createApiMetrics(registry, store, createWorkers), traces);
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

  const route = (req: http.IncomingMessage, res: http.ServerResponse, url: RequestUrl, who: RequestIdentity) => {
    try {
      if (handleOpenApi(req, res, url)) return;
      if (serveIssuerDiscovery(authentication, req.method ?? 'GET', url.pathname, res)) return;
    } catch (err) {
      sendError(res, err, log);
      return;
    }
    if (url.pathname === '/api' || url.pathname.startsWith('/api/') || url.pathname === '/apis' || url.pathname.startsWith('/apis/')) {
      apiHandler(req, res, url, who);
    } else {
      app(req, res);
    }
  };
  const listener = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = parseRequestUrl(req.url);
    // Every answer names its audit ID, whatever the policy records (kube's WithAuditInit).
    const auditID = requestAuditID(req);
    res.setHeader(AUDIT_ID_HEADER, auditID);
    requestPath.admit(req, url, req.method, auditID).then(
      (who) => {
        auditAnswer(res, who);
        if (who.trace) res.once('close', () => who.trace!.finish(res.statusCode));
        route(req, res, url, who);
      },
      (err: unknown) => {
        if (!req.complete) req.resume();
        sendError(res, err, log);
      },
    );
  };
  const serverOptions = { connectionsCheckingInterval: 1000, maxHeaderSize: 1 << 20 };
  const server = pki
    ? https.createServer(
        {
          ...serverOptions,
          cert: pki.apiserver.certPem,
          key: pki.apiserver.keyPem,
          // Client certificates are asked for, verified against the cluster CA, and read by the x509
          // authenticator; a client without one is still served (tokens, anonymous health checks).
          ca: pki.ca.certPem,
          requestCert: true,
          rejectUnauthorized: false,
          // A client that opens a connection and never finishes the handshake is dropped as one that sends no headers.
          handshakeTimeout: KUBE_CONNECTION_TIMEOUTS.headersMs,
        },
        listener,
      )
    : http.createServer(serverOptions, listener);
  applyConnectionTimeouts(server);
  // A failed handshake (an untrusting client, plain HTTP on the TLS port) is the client's problem, never the server's.
  server.on('tlsClientError', (err: Error) => log.debug({ err: err.message }, 'TLS handshake failed'));

  const wss = new WebSocketServer({ noServer: true });
  server.on(
    'upgrade',
    upgradeHandler(ctx, wss, {
      admit: async (req, url, method) => {
        // Traced as a plain request is; the answer (a 101, or a refusal's Status) names the audit ID.
        const auditID = requestAuditID(req);
        const traced: { trace?: ActiveTrace } = {};
        watchUpgradeAnswer(req.socket, auditID, (code) => traced.trace?.finish(code));
        const who = await requestPath.admit(req, url, method, auditID);
        traced.trace = who.trace;
        // A stream's audit event is complete when its connection ends.
        if (who.audit) req.socket.once('close', () => who.audit!.complete(101));
        if (apiserverFaults.requestFaults && who.attrs.resourceRequest) await injectRequestFaults(attributesTarget(who.attrs, req));
        return who;
      },
    }),
  );

  // The policy is in place before the first request is authorized (kube's rbac/bootstrap-roles post-start hook gates /readyz).
  await reconcileBootstrapPolicy(store, log);
  // The CRD controllers run here, as kube's apiextensions part does; stored CRDs are served before the first request.
  const crdController = startCRDController(store, { log, now: ctx.now });
  await crdController.synced;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  await ensureBootstrapObjects(ctx, port);
  const url = `${pki ? 'https' : 'http'}://${clientHost(opts.host)}:${port}`;
  const kubeconfig = pki
    ? (await writeClusterKubeconfigs(opts.dataDir, url, pki)).admin
    : await writeKubeconfig(path.join(opts.dataDir, 'kubeconfig'), url);
  ready = true;
  log.info({ port, host: opts.host, url, dataDir: opts.dataDir, kubeconfig, insecure: opts.insecureHttp === true }, 'serving');
  createWorkers?.start();
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
    url,
    kubeconfig,
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
      await auditor.close();
      eventExpiry.stop();
      crdController.stop();
      await store.close();
    },
  };
}

/**
 * Completes a request's audit record when its answer is sent (or, for a
 * watch, marks ResponseStarted when the stream opens and completes it when
 * the stream ends).
 */
function auditAnswer(res: http.ServerResponse, who: RequestIdentity): void {
  const audit = who.audit;
  if (!audit) return;
  if (who.attrs.verb === 'watch') {
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => http.ServerResponse;
    res.writeHead = (...args: unknown[]) => {
      if (typeof args[0] === 'number' && args[0] < 300) audit.responseStarted(args[0]);
      return writeHead(...args);
    };
  }
  res.once('close', () => audit.complete(res.statusCode));
}

/** The address clients use for a listen address (a wildcard is reached on loopback). */
function clientHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
