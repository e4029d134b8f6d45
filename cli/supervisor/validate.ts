// Checks a ChaosRequest that came over the control endpoint before anything
// is done: every field has the type protocol.ts gives it, and a refusal
// names the field (answered as 400 {message}).
import { CHAOS_ACTIONS, SELECTION_MODES, type ChaosAction, type ChaosRequest, type SelectionMode } from '../../shared/chaos/protocol.ts';

/** A request the control endpoint refuses with 400. */
export class BadRequest extends Error {}

export const ACTIONS: readonly ChaosAction[] = CHAOS_ACTIONS;
const MODES: readonly SelectionMode[] = SELECTION_MODES;
const ERROR_CODES = [500, 429, 409, 504];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function optional(o: Obj, key: string, type: 'string' | 'number' | 'boolean' | 'object', where: string): void {
  const v = o[key];
  if (v === undefined) return;
  if (type === 'object' ? !isObj(v) : typeof v !== type || (type === 'number' && !Number.isFinite(v)))
    throw new BadRequest(`${where}${key}: must be ${type === 'object' ? 'an object' : `a ${type}`}`);
}

function nonNegative(o: Obj, key: string, where: string): void {
  optional(o, key, 'number', where);
  if (typeof o[key] === 'number' && o[key] < 0) throw new BadRequest(`${where}${key}: must not be negative`);
}

/** The request, checked; throws BadRequest naming the first bad field. */
export function validateChaosRequest(body: unknown): ChaosRequest {
  if (!isObj(body)) throw new BadRequest('the body must be a JSON object (a ChaosRequest)');
  if (typeof body.action !== 'string' || !ACTIONS.includes(body.action as ChaosAction))
    throw new BadRequest(
      `action: must be one of ${ACTIONS.join(', ')}${body.action === undefined ? '' : ` (got ${JSON.stringify(body.action)})`}`,
    );
  for (const k of ['target', 'pressure', 'faultId'] as const) optional(body, k, 'string', '');
  nonNegative(body, 'durationMs', '');
  optional(body, 'offsetMs', 'number', '');
  optional(body, 'seed', 'number', '');
  for (const k of ['apiserver', 'watch', 'pods'] as const) optional(body, k, 'object', '');
  const action = body.action as ChaosAction;
  const needsTarget = !['apiserver', 'recover', 'kill-pod', 'delete-pod'].includes(action);
  if (needsTarget && !body.target) throw new BadRequest(`target: ${action} needs a target`);
  if (action === 'pressure' && !['memory', 'disk', 'pid'].includes(body.pressure as string))
    throw new BadRequest('pressure: must be memory, disk or pid');
  if (action === 'skew' && typeof body.offsetMs !== 'number') throw new BadRequest('offsetMs: skew needs an offset in milliseconds');
  if (action === 'watch') {
    const w = body.watch;
    if (!isObj(w) || !['delay', 'hold', 'drop'].includes(w.mode as string)) throw new BadRequest('watch.mode: must be delay, hold or drop');
    nonNegative(w, 'delayMs', 'watch.');
    if (w.mode === 'delay' && !w.delayMs) throw new BadRequest('watch.delayMs: a delay fault needs a delay above 0');
  }
  if (action === 'apiserver') {
    const a = body.apiserver;
    if (!isObj(a)) throw new BadRequest('apiserver: the fault is missing');
    for (const k of ['latencyMs', 'jitterMs', 'watchDelayMs']) nonNegative(a, k, 'apiserver.');
    optional(a, 'errorRate', 'number', 'apiserver.');
    if (typeof a.errorRate === 'number' && (a.errorRate < 0 || a.errorRate > 1))
      throw new BadRequest('apiserver.errorRate: must be between 0 and 1');
    optional(a, 'errorCode', 'number', 'apiserver.');
    if (a.errorCode !== undefined && !ERROR_CODES.includes(a.errorCode as number))
      throw new BadRequest(`apiserver.errorCode: must be one of ${ERROR_CODES.join(', ')}`);
    for (const k of ['watchHold', 'watchDrop', 'dropWatches', 'compact', 'clear']) optional(a, k, 'boolean', 'apiserver.');
    optional(a, 'seed', 'number', 'apiserver.');
    optional(a, 'match', 'object', 'apiserver.');
    if (isObj(a.match)) for (const k of ['userAgent', 'user', 'verb', 'resource']) optional(a.match, k, 'string', 'apiserver.match.');
  }
  if (action === 'kill-pod' || action === 'delete-pod') {
    const p = body.pods;
    if (!body.target && !isObj(p)) throw new BadRequest(`target: ${action} needs pod/NS/NAME or a pods selector`);
    if (typeof body.target === 'string' && !/^pod\/[^/]+\/[^/]+$/.test(body.target))
      throw new BadRequest(`target: "${body.target}" is not pod/NAMESPACE/NAME`);
    if (isObj(p)) {
      for (const k of ['namespace', 'labelSelector', 'container'] as const) optional(p, k, 'string', 'pods.');
      optional(p, 'allNamespaces', 'boolean', 'pods.');
      if (p.allNamespaces === true && p.namespace !== undefined)
        throw new BadRequest('pods.allNamespaces: cannot be set with pods.namespace');
      if (p.mode !== undefined && !MODES.includes(p.mode as SelectionMode))
        throw new BadRequest(`pods.mode: must be one of ${MODES.join(', ')}`);
      optional(p, 'value', 'number', 'pods.');
    }
  }
  return body as unknown as ChaosRequest;
}
