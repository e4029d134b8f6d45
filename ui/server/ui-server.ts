// The UI server: one HTTP port for the page, the app bundle, the JSON API
// (api-routes.ts), the step-through (step-routes.ts), the /live WebSocket (live-feed.ts) and the usual
// /healthz, /readyz and /metrics of every ksim process.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { WebSocketServer } from 'ws';
import type { KubeClient } from '../../shared/client/kube-client.ts';
import { apiRouter } from './api-routes.ts';
import type { AppBundle } from './bundle.ts';
import { LiveFeed } from './live-feed.ts';
import { pageHtml } from './page.ts';
import { sameOrigin } from './same-origin.ts';
import { stepRouter } from './step-routes.ts';

/** A running UI server. */
export interface UiServer {
  port: number;
  feed: LiveFeed;
  close(): Promise<void>;
}

/** What the server needs. */
export interface UiServerOptions {
  client: KubeClient;
  log: Logger;
  registry: Registry;
  /** The app, built on first use (so the server serves at once; the first page load waits for the build). */
  bundle: () => Promise<AppBundle>;
  host?: string;
  port: number;
  /** The cluster's data dir, where the step-through gates are found (undefined: no step-through). */
  dataDir?: string;
}

/** Starts serving on host:port (port 0 picks a free one) and starts the live feed. */
export async function startUiServer(opts: UiServerOptions): Promise<UiServer> {
  const { client, log, registry, bundle } = opts;
  const feed = new LiveFeed({ client, log: log.child({ part: 'live' }), registry });
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  const page = pageHtml();
  app.get('/', (_req, res) => void res.type('html').set('Cache-Control', 'no-cache').send(page));
  const send = (part: keyof AppBundle, type: string) => (_req: express.Request, res: express.Response) =>
    void bundle().then(
      (b) => res.type(type).set('Cache-Control', 'no-cache').send(b[part]),
      (err: Error) => {
        log.error({ err }, 'could not build the app');
        res.status(500).type('text/plain').send(`could not build the app: ${err.message}`);
      },
    );
  app.get('/app.js', send('js', 'text/javascript'));
  app.get('/app.css', send('css', 'text/css'));
  app.get('/favicon.ico', (_req, res) => void res.status(204).end());
  app.get(['/healthz', '/livez'], (_req, res) => void res.type('text/plain').send('ok'));
  app.get('/readyz', (_req, res) => {
    res
      .status(feed.synced ? 200 : 503)
      .type('text/plain')
      .send(feed.synced ? 'ok' : 'not ready');
  });
  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  app.use('/api/step', stepRouter(opts.dataDir));
  app.use('/api', apiRouter(client, log));

  const server = http.createServer(app);
  // Browsers send nothing on /live: a tiny payload limit keeps a hostile one from making the server buffer.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 });
  server.on('upgrade', (req, socket, head) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/live' || !sameOrigin(req)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => feed.attach(ws));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', () => resolve());
  });
  feed.start();
  return {
    port: (server.address() as AddressInfo).port,
    feed,
    close: async () => {
      feed.stop();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
