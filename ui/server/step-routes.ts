// The UI's step-through: /api/step reads the step-through gates of the
// cluster's controller-manager and scheduler, /api/step/{pause,next,resume}
// drives them, through the same step client as `ksim step`
// (cli/step-client.ts; the gates are found in DIR/cluster.json, so the UI
// needs --data-dir). The gates listen on 127.0.0.1 and refuse web pages; this
// server is the page's way to them, and refuses other sites' pages in turn.
import express, { type Request, type Response } from 'express';
import { stepAction, stepEndpoints, type StepAction } from '../../cli/step-client.ts';
import { sameOrigin } from './same-origin.ts';

const CONTROLLER = /^[a-z0-9][a-z0-9-]{0,62}$/;

function fail(res: Response, code: number, message: string): void {
  const reason = code === 400 ? 'BadRequest' : code === 403 ? 'Forbidden' : code === 404 ? 'NotFound' : 'ServiceUnavailable';
  res.status(code).json({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
}

/** The router for /api/step; `dataDir` is the cluster's (undefined: step-through is off). */
export function stepRouter(dataDir: string | undefined): express.Router {
  const router = express.Router();
  const run = async (req: Request, res: Response, action: StepAction) => {
    if (!dataDir) return fail(res, 404, 'step-through needs the cluster: start the UI with --data-dir (ksim up does)');
    if (action !== 'show' && !sameOrigin(req))
      return fail(res, 403, `requests from other pages (Origin ${req.headers.origin}) may not drive the controllers`);
    const raw = req.query.controller;
    const controller = typeof raw === 'string' && raw !== '' ? raw : undefined;
    if (raw !== undefined && (controller === undefined || (controller !== 'all' && !CONTROLLER.test(controller))))
      return fail(res, 400, `controller: must be a controller's name or all, not ${JSON.stringify(raw)}`);
    if (action !== 'show' && !controller) return fail(res, 400, 'controller: required');
    try {
      const answer = await stepAction(await stepEndpoints(dataDir), action, controller);
      if (answer.status !== 200) return fail(res, answer.status, answer.body.error ?? `the gate answered ${answer.status}`);
      res.json(answer.body);
    } catch (err) {
      fail(res, 503, (err as Error).message);
    }
  };
  router.get('/', (req, res) => void run(req, res, 'show'));
  for (const action of ['pause', 'next', 'resume'] as const) router.post(`/${action}`, (req, res) => void run(req, res, action));
  return router;
}
