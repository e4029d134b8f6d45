// The step-through endpoints on a component's own port (its health server):
//   GET  /debug/reconcile[?controller=NAME]          every controller: paused?, the items held, the recent items with their notes
//   POST /debug/reconcile/pause?controller=NAME|all  hold every later item at the gate
//   POST /debug/reconcile/step?controller=NAME       let the oldest held item through; answers its record once it ended
//   POST /debug/reconcile/resume?controller=NAME|all let everything through and stop holding
// The port listens on 127.0.0.1; a request a web page makes (an Origin
// header other than the port's own) is refused, so a page cannot pause a
// controller behind the user's back.
import express from 'express';
import type { ReconcileStepper } from './stepper.ts';

function refuseForeignPages(req: express.Request, res: express.Response, next: express.NextFunction): void {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host}`) {
    res.status(403).json({ error: `requests from web pages (Origin ${origin}) may not drive the controllers` });
    return;
  }
  next();
}

/** The routes for `stepper`. */
export function stepperRoutes(stepper: ReconcileStepper): express.Router {
  const r = express.Router();
  r.use('/debug/reconcile', refuseForeignPages);
  const controllerOf = (req: express.Request, res: express.Response, allowAll: boolean): string | undefined => {
    const c = typeof req.query.controller === 'string' ? req.query.controller : '';
    if (!c || (c === 'all' && !allowAll) || !stepper.has(c)) {
      const known = stepper.controllers().join(', ');
      res.status(c ? 404 : 400).json({
        error: c
          ? `no controller "${c}" runs here (${known || 'none'})`
          : `controller: required (one of ${known || 'none'}${allowAll ? ', or all' : ''})`,
      });
      return undefined;
    }
    return c;
  };
  r.get('/debug/reconcile', (req, res) => {
    const c = typeof req.query.controller === 'string' ? req.query.controller : undefined;
    if (c !== undefined && !stepper.has(c)) return void res.status(404).json({ error: `no controller "${c}" runs here` });
    res.json({ controllers: stepper.snapshot(c) });
  });
  r.post('/debug/reconcile/pause', (req, res) => {
    const c = controllerOf(req, res, true);
    if (!c) return;
    stepper.pause(c);
    res.json({ controllers: stepper.snapshot(c === 'all' ? undefined : c) });
  });
  r.post('/debug/reconcile/resume', (req, res) => {
    const c = controllerOf(req, res, true);
    if (!c) return;
    stepper.resume(c);
    res.json({ controllers: stepper.snapshot(c === 'all' ? undefined : c) });
  });
  r.post('/debug/reconcile/step', (req, res) => {
    const c = controllerOf(req, res, false);
    if (!c) return;
    const ended = stepper.step(c);
    if (!ended) {
      const paused = stepper.snapshot(c)[0]?.paused;
      return void res.status(409).json({ error: paused ? `no item of ${c} is waiting` : `${c} is not paused: pause it first` });
    }
    void ended.then((item) => res.json({ item }));
  });
  return r;
}
