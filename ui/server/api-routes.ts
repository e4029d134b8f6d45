// The UI's JSON API, a thin layer over the shared client: /api/history/*
// forwards GETs to the history API (status and body passed through) and
// /api/objects lists one of the few resources the graph draws.
import express, { type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { StatusError } from '../../shared/api/errors.ts';
import { HISTORY_API_VERSION } from '../../shared/api/history-types.ts';
import { allResources } from '../../shared/api/resources.ts';
import type { KubeClient } from '../../shared/client/kube-client.ts';

/** The resources /api/objects lists: those the graph needs, by "plural[.group]". */
export const GRAPH_RESOURCES = [
  'deployments.apps',
  'replicasets.apps',
  'pods',
  'nodes',
  'services',
  'endpointslices.discovery.k8s.io',
  'persistentvolumeclaims',
  'configmaps',
] as const;

// A path below the history API: segments of names, no `..`, nothing that needs decoding twice.
const SAFE_PATH = /^(\/[A-Za-z0-9._:~-]+)+$/;

function badRequest(res: Response, message: string): void {
  res.status(400).json({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
}

function sendError(res: Response, log: Logger, err: unknown): void {
  if (err instanceof StatusError) {
    res.status(err.code).json(err.toStatus());
    return;
  }
  log.warn({ err: (err as Error).message }, 'apiserver request failed');
  const message = 'the apiserver could not be reached';
  res
    .status(502)
    .json({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'ServiceUnavailable', code: 502 });
}

/** The router for /api. */
export function apiRouter(client: KubeClient, log: Logger): express.Router {
  const router = express.Router();

  router.get(/^\/history(\/.*)$/, async (req: Request, res: Response) => {
    const rest = req.path.slice('/history'.length);
    if (!SAFE_PATH.test(rest) || rest.split('/').some((s) => s === '.' || s === '..')) return badRequest(res, 'invalid history path');
    const q = req.originalUrl.indexOf('?');
    const search = q < 0 ? '' : req.originalUrl.slice(q);
    if (/[\s#]/.test(search)) return badRequest(res, 'invalid query');
    try {
      res.json(await client.request('GET', `/apis/${HISTORY_API_VERSION}${rest}${search}`));
    } catch (err) {
      sendError(res, log, err);
    }
  });

  router.get('/objects', async (req: Request, res: Response) => {
    const resource = typeof req.query.resource === 'string' ? req.query.resource : '';
    const namespace = typeof req.query.namespace === 'string' && req.query.namespace ? req.query.namespace : undefined;
    if (!(GRAPH_RESOURCES as readonly string[]).includes(resource))
      return badRequest(res, `resource must be one of ${GRAPH_RESOURCES.join(', ')}`);
    const dot = resource.indexOf('.');
    const plural = dot < 0 ? resource : resource.slice(0, dot);
    const group = dot < 0 ? '' : resource.slice(dot + 1);
    const rt = allResources().find((r) => r.plural === plural && r.group === group);
    if (!rt) return badRequest(res, `resource ${resource} is not served`);
    try {
      // As the apiserver sent it: a thousand Pods parsed and written again would hold the live feed up.
      const list = await client.listText(rt, { namespace: rt.namespaced ? namespace : undefined });
      res.type('application/json').send(list);
    } catch (err) {
      sendError(res, log, err);
    }
  });

  router.use((_req: Request, res: Response) => {
    res
      .status(404)
      .json({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'not found', reason: 'NotFound', code: 404 });
  });
  return router;
}
