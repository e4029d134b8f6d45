// Runs an experiment's steps: faults (inject, hold for the duration, recover
// what the supervisor can recover), waits, applies, check steps, and serial
// and parallel groups (Chaos Mesh's workflow nodes: a parallel group ends
// when all its children have). A fault the supervisor refuses ends the
// steps (what follows assumed it); a check step that fails is recorded and
// the steps go on, so the report shows everything that happened.
import type { ChaosRequest, ChaosResult } from '../../../shared/chaos/protocol.ts';
import type { KubeClient } from '../../../shared/client/kube-client.ts';
import { holdsWithin, withinResult, type CheckResult } from './checks.ts';
import { prepareCondition } from './conditions.ts';
import type { ChaosDriver } from './driver.ts';
import type { Recorder } from './recorder.ts';
import { applyManifest } from './resources.ts';
import { sleep } from './sleep.ts';
import type { Step } from './spec.ts';

/** One fault the run injected. */
export interface FaultRecord {
  step: string;
  request: ChaosRequest;
  faultId?: string;
  message?: string;
  affected: string[];
  injectedAt: number;
  recoveredAt?: number;
  error?: string;
}

export interface StepContext {
  client: KubeClient;
  driver: ChaosDriver;
  rec: Recorder;
  signal: AbortSignal;
  faults: FaultRecord[];
  checks: CheckResult[];
}

/** A step that could not be carried out. */
export class StepError extends Error {}

/** Gives every fault in `steps` without a seed one from `next`, in file order, so parallel groups stay repeatable. */
export function assignSeeds(steps: Step[], next: () => number): void {
  for (const s of steps) {
    if (s.kind === 'fault' && s.fault.seed === undefined) s.fault.seed = next();
    if (s.kind === 'serial' || s.kind === 'parallel') assignSeeds(s.steps, next);
  }
}

/** A short label for a fault: "kill scheduler", "apiserver latency". */
export function faultLabel(req: ChaosRequest): string {
  if (req.action === 'apiserver') return `apiserver ${Object.keys(req.apiserver ?? {}).join(',')}`;
  if (req.action === 'watch') return `watch ${req.watch?.mode ?? ''} ${req.target ?? ''}`.trim();
  if (req.action === 'skew') return `skew ${req.target} ${(req.offsetMs ?? 0) >= 0 ? '+' : ''}${(req.offsetMs ?? 0) / 1000}s`;
  return [req.action, req.target ?? req.pods?.labelSelector].filter(Boolean).join(' ');
}

/**
 * Recovers one fault and records it; failures are returned, not thrown
 * (cleanup goes on). A fault the supervisor no longer has (a `start` after a
 * `kill`, a `heal` after a `partition` ended it) counts as recovered then.
 */
export async function recoverFault(ctx: Pick<StepContext, 'driver' | 'rec'>, f: FaultRecord): Promise<string | undefined> {
  if (!f.faultId || f.recoveredAt !== undefined) return undefined;
  let message: string | undefined;
  try {
    await ctx.driver.recover(f.faultId);
  } catch (err) {
    let active = true;
    try {
      active = (await ctx.driver.status()).faults.some((a) => a.id === f.faultId);
    } catch {
      // Cannot tell: report the failure.
    }
    if (active) return `recover ${f.faultId} (${faultLabel(f.request)}): ${(err as Error).message}`;
    message = 'ended another way before the run undid it';
  }
  const e = ctx.rec.add({ type: 'fault-recovered', name: faultLabel(f.request), faultId: f.faultId, message });
  f.recoveredAt = e.at;
  return undefined;
}

async function runFault(step: Extract<Step, { kind: 'fault' }>, ctx: StepContext): Promise<void> {
  const record: FaultRecord = { step: step.name, request: step.fault, affected: [], injectedAt: ctx.rec.elapsed() };
  ctx.faults.push(record);
  let result: ChaosResult;
  try {
    result = await ctx.driver.inject(step.fault);
  } catch (err) {
    record.error = (err as Error).message;
    throw new StepError(`step "${step.name}": ${record.error}`);
  }
  const e = ctx.rec.add({
    type: 'fault-injected',
    name: faultLabel(step.fault),
    faultId: result.faultId,
    message: result.message,
    object: result.affected.join(', ') || undefined,
  });
  Object.assign(record, { faultId: result.faultId, message: result.message, affected: result.affected, injectedAt: e.at });
  // Without a duration a lasting fault stays in effect until a later step or the run's end undoes it;
  // OnChaos probes run only within a fault step's duration, the one window the runner knows.
  if (step.durationMs === undefined) return;
  ctx.rec.openChaos();
  try {
    await sleep(step.durationMs, ctx.signal);
  } finally {
    ctx.rec.closeChaos();
  }
  if (ctx.signal.aborted) return;
  const failed = await recoverFault(ctx, record);
  if (failed) throw new StepError(`step "${step.name}": ${failed}`);
}

/** Runs `steps` in order; stops at a StepError or an abort. */
export async function runSteps(steps: Step[], ctx: StepContext): Promise<void> {
  for (const s of steps) {
    if (ctx.signal.aborted) return;
    await runStep(s, ctx);
  }
}

async function runStep(s: Step, ctx: StepContext): Promise<void> {
  switch (s.kind) {
    case 'fault':
      return runFault(s, ctx);
    case 'wait':
      return sleep(s.waitMs, ctx.signal);
    case 'apply':
      ctx.rec.add({ type: 'step', name: s.name });
      for (const m of s.objects) {
        try {
          await applyManifest(ctx.client, m);
        } catch (err) {
          throw new StepError(`step "${s.name}": apply ${m.kind} ${m.metadata.name}: ${(err as Error).message}`);
        }
      }
      return;
    case 'check': {
      const out = await holdsWithin(
        s.check.name,
        'Step',
        prepareCondition(s.check.condition),
        ctx.client,
        s.check.withinMs,
        ctx.rec,
        ctx.signal,
      );
      ctx.checks.push(withinResult(s.check.name, 'Step', out));
      return;
    }
    case 'serial':
      return runSteps(s.steps, ctx);
    case 'parallel': {
      const results = await Promise.allSettled(s.steps.map((c) => runStep(c, ctx)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      return;
    }
  }
}
