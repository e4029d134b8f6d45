// API server faults (latency, errors, per-client watch delay, hold and drop)
// live in the apiserver's memory, set and cleared by id over its control
// channel; so they are re-sent when it starts again. --drop-watches and
// --compact act once. A watch fault on one component becomes an apiserver
// fault matching that component's user (identities.ts).
import type { ApiserverFaultSpec, ChaosRequest, ChaosResult } from '../../shared/chaos/protocol.ts';
import { componentObjects } from './chaos-record.ts';
import { kindOf } from './components.ts';
import { ask, type FaultContext } from './context.ts';
import { identityMatch, WATCH_FAULT_KINDS } from './identities.ts';
import { resolveTarget } from './targets.ts';
import { ProcessOpError } from './supervisor.ts';
import { BadRequest } from './validate.ts';

const SPEC_FIELDS = ['latencyMs', 'jitterMs', 'errorRate', 'errorCode', 'watchDelayMs', 'watchHold', 'watchDrop'] as const;

function apiserver(ctx: FaultContext) {
  const child = ctx.supervisor.apiserver;
  if (!child.running) throw new ProcessOpError(`the apiserver is not running (${child.state.state}): start it first`);
  return child;
}

function describe(spec: Omit<ApiserverFaultSpec, 'id'>): string {
  const parts: string[] = [];
  if (spec.latencyMs !== undefined) parts.push(`latency ${spec.latencyMs}ms${spec.jitterMs ? ` (+${spec.jitterMs}ms jitter)` : ''}`);
  if (spec.errorRate !== undefined) parts.push(`error rate ${spec.errorRate} (${spec.errorCode ?? 500})`);
  if (spec.watchDelayMs !== undefined) parts.push(`watch events delayed ${spec.watchDelayMs}ms`);
  if (spec.watchHold) parts.push('watch events held back');
  if (spec.watchDrop) parts.push('watches dropped');
  const m = spec.match ?? {};
  const only = Object.entries(m).map(([k, v]) => `${k}=${v}`);
  return `${parts.join(', ')}${only.length ? ` for ${only.join(' ')}` : ''}`;
}

/** Sets a lasting apiserver fault. */
async function setFault(
  ctx: FaultContext,
  req: ChaosRequest,
  spec: Omit<ApiserverFaultSpec, 'id'>,
  message: string,
  objects = componentObjects('apiserver', ctx.controlPlaneNode),
): Promise<ChaosResult> {
  const id = ctx.registry.newId(req);
  const full: ApiserverFaultSpec = { ...spec, id };
  await ask(apiserver(ctx), 'apiserver.faults.set', { ...full });
  await ctx.recorder.record('ChaosInjected', message, objects, { fault: id, spec: full });
  ctx.registry.add(id, req, message, {
    objects,
    on: 'apiserver',
    apiserverSpec: full,
    undo: async () => {
      const child = ctx.supervisor.apiserver;
      // A stopped apiserver has forgotten it already.
      if (child.running) await ask(child, 'apiserver.faults.clear', { id });
      return `cleared ${id}: ${message}`;
    },
  });
  return { faultId: id, message, affected: ['apiserver'] };
}

/** `ksim chaos apiserver ...`. */
export async function apiserverFault(ctx: FaultContext, req: ChaosRequest): Promise<ChaosResult> {
  const a = req.apiserver!;
  const child = apiserver(ctx);
  const objects = componentObjects('apiserver', ctx.controlPlaneNode);
  const lines: string[] = [];
  if (a.clear) {
    await ask(child, 'apiserver.faults.clear', {});
    const ids = ctx.registry.forget((e) => e.apiserverSpec !== undefined, 'cleared the apiserver faults');
    lines.push(`cleared the apiserver faults${ids.length ? ` (${ids.join(', ')})` : ''}`);
    if (ids.length === 0) await ctx.recorder.record('ChaosRecovered', lines[0], objects);
  }
  if (a.dropWatches) {
    await ask(child, 'apiserver.watches.drop', a.match ? { match: a.match } : {});
    lines.push('dropped every open watch' + (a.match ? ` matching ${JSON.stringify(a.match)}` : ''));
    await ctx.recorder.record('ChaosInjected', lines.at(-1)!, objects);
  }
  if (a.compact) {
    await ask(child, 'apiserver.compact', {});
    lines.push('compacted: watches resuming from an older resourceVersion get 410 Gone');
    await ctx.recorder.record('ChaosInjected', lines.at(-1)!, objects);
  }
  const spec: Omit<ApiserverFaultSpec, 'id'> = {};
  for (const k of SPEC_FIELDS) if (a[k] !== undefined) Object.assign(spec, { [k]: a[k] });
  if (Object.keys(spec).length === 0) {
    if (lines.length === 0)
      throw new BadRequest(`apiserver: give at least one of ${SPEC_FIELDS.join(', ')}, dropWatches, compact or clear`);
    return { message: lines.join('; '), affected: ['apiserver'] };
  }
  if (a.match) spec.match = a.match;
  const seed = a.seed ?? req.seed;
  if (seed !== undefined) spec.seed = seed;
  const r = await setFault(ctx, req, spec, `apiserver: ${describe(spec)}`, objects);
  return { ...r, message: [...lines, r.message].join('; ') };
}

/** `ksim chaos watch COMPONENT --delay|--hold|--drop`: that component's watches only. */
export async function watchFault(ctx: FaultContext, req: ChaosRequest): Promise<ChaosResult> {
  const target = await resolveTarget(ctx, req.target!);
  const kind = 'node' in target ? 'kubelet-sim' : kindOf(target.child.name);
  if (!WATCH_FAULT_KINDS.includes(kind))
    throw new BadRequest(`target: watch faults reach a client of the apiserver: ${WATCH_FAULT_KINDS.join(', ')}`);
  let match;
  try {
    match = identityMatch(ctx.dataDir, kind, ctx.tls);
  } catch (err) {
    throw new ProcessOpError(`cannot tell whom ${kind} connects as: ${(err as Error).message}`, 500);
  }
  const w = req.watch!;
  const spec: Omit<ApiserverFaultSpec, 'id'> = { match };
  if (w.mode === 'delay') spec.watchDelayMs = w.delayMs;
  else if (w.mode === 'hold') spec.watchHold = true;
  else spec.watchDrop = true;
  const name = 'node' in target ? 'kubelet-sim' : target.child.name;
  const objects = componentObjects(name, ctx.controlPlaneNode, 'child' in target && target.viaLeader);
  const what = w.mode === 'delay' ? `delayed by ${w.delayMs}ms` : w.mode === 'hold' ? 'held back' : 'dropped';
  return setFault(
    ctx,
    req,
    spec,
    `${kind}'s watches ${what} (${match.user ? `user ${match.user}` : `user agent ${match.userAgent}`})`,
    objects,
  );
}
