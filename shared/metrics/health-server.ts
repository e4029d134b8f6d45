// The small HTTP server every component besides the apiserver runs:
// /healthz, /livez, /readyz (from a readiness check) and /metrics, and any
// routes of the component's own (the controller-manager's step-through).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Registry } from 'prom-client';

/** A running health server. */
export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/** Serves health and metrics on `host:port` (port 0 picks a free one). */
export async function startHealthServer(opts: {
  host?: string;
  port: number;
  registry: Registry;
  ready: () => boolean;
  /** More routes on the same port (a controller-manager's step-through). */
  routes?: express.Router;
}): Promise<HealthServer> {
  const app = express();
  app.disable('x-powered-by');
  if (opts.routes) app.use(opts.routes);
  app.get(['/healthz', '/livez'], (_req, res) => void res.type('text/plain').send('ok'));
  app.get('/readyz', (_req, res) => {
    const ok = opts.ready();
    res
      .status(ok ? 200 : 503)
      .type('text/plain')
      .send(ok ? 'ok' : 'not ready');
  });
  app.get('/metrics', async (_req, res) => {
    res.type(opts.registry.contentType).send(await opts.registry.metrics());
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
