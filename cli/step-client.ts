// Finding and driving the step-through gates of a running cluster: the
// controller-manager's controllers and the scheduler, each served on its
// component's own port (shared/controller/stepper-routes.ts) and found in
// DIR/cluster.json. Only a leader runs its loops, so only a leader's gate
// lists controllers; the followers' are skipped. Used by `ksim step` and by
// the web UI's server, so both see the same gates.
import type { ControllerSteps, ItemRecord } from '../shared/controller/stepper.ts';
import { readClusterState } from './cluster-state.ts';

/** The components that serve a step-through gate (replicas are NAME-N). */
const GATED = /^(controller-manager|scheduler)(-\d+)?$/;

/** One component whose gate lists controllers. */
export interface StepEndpoint {
  component: string;
  url: string;
  controllers: ControllerSteps[];
}

/** What a gate answered. */
export interface StepAnswer {
  status: number;
  body: { controllers?: ControllerSteps[]; item?: ItemRecord; error?: string };
}

/** An action on a gate: `show` reads it, the others drive it. */
export type StepAction = 'show' | 'pause' | 'next' | 'resume';

const TIMEOUT_MS = 15_000;

async function call(url: string, method: 'GET' | 'POST'): Promise<StepAnswer> {
  const res = await fetch(url, { method, signal: AbortSignal.timeout(TIMEOUT_MS) });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as StepAnswer['body'] };
}

/** The leading gated components of the cluster in `dataDir`; throws a sentence when there is none. */
export async function stepEndpoints(dataDir: string): Promise<StepEndpoint[]> {
  const state = readClusterState(dataDir);
  if (!state) throw new Error(`no cluster in ${dataDir} (start one with ksim up, or name it with --data-dir)`);
  const running = state.components.filter((c) => GATED.test(c.name) && c.state === 'running');
  if (running.length === 0) throw new Error('no controller-manager or scheduler is running');
  const answers = await Promise.all(
    running.map(async (c) => {
      const r = await call(`${c.endpoint}/debug/reconcile`, 'GET').catch(() => undefined);
      const controllers = r?.status === 200 ? (r.body.controllers ?? []) : [];
      return { component: c.name, url: c.endpoint, controllers };
    }),
  );
  const leading = answers.filter((a) => a.controllers.length > 0);
  if (leading.length === 0) throw new Error(`no component runs controllers yet (${running.map((c) => c.name).join(', ')}: none leads)`);
  return leading;
}

/**
 * Runs `action` for `controller` ("all" for every one; none for `show` of
 * all) on the gates of `endpoints`: one answer with the controllers (or,
 * for `next`, the item stepped).
 */
export async function stepAction(endpoints: StepEndpoint[], action: StepAction, controller?: string): Promise<StepAnswer> {
  const path = action === 'show' ? '' : `/${action === 'next' ? 'step' : action}`;
  const method = action === 'show' ? 'GET' : 'POST';
  if (controller === undefined || controller === 'all') {
    if (action === 'next') return { status: 400, body: { error: 'a step takes one controller' } };
    if (action === 'show') return { status: 200, body: { controllers: endpoints.flatMap((e) => e.controllers) } };
    const answers = await Promise.all(endpoints.map((e) => call(`${e.url}/debug/reconcile${path}?controller=all`, method)));
    const failed = answers.find((a) => a.status !== 200);
    return failed ?? { status: 200, body: { controllers: answers.flatMap((a) => a.body.controllers ?? []) } };
  }
  const owner = endpoints.find((e) => e.controllers.some((c) => c.controller === controller));
  if (!owner) {
    const known = endpoints.flatMap((e) => e.controllers.map((c) => c.controller)).join(', ');
    return { status: 404, body: { error: `no component runs a controller "${controller}" (${known})` } };
  }
  return call(`${owner.url}/debug/reconcile${path}?controller=${encodeURIComponent(controller)}`, method);
}
