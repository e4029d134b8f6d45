// One experiment run, start to end: check the cluster is big enough, watch
// the system's reactions, apply the objects, start the invariants, run the
// SOT and Edge checks, start the probes, run the steps; then, whatever
// happened (a failed step, Ctrl-C, the run's timeout), recover every fault
// the run injected and start again every component it left stopped, run the
// EOT and Edge checks, judge the invariants, and return the report.
import type { ComponentStatus, SupervisorStatus } from '../../../shared/chaos/protocol.ts';
import type { KubeClient } from '../../../shared/client/kube-client.ts';
import { holdsWithin, startProbe, withinResult, type CheckResult, type RunningProbe } from './checks.ts';
import { prepareCondition } from './conditions.ts';
import type { ChaosDriver } from './driver.ts';
import { maxPodsInvariant } from './invariants/max-pods.ts';
import { noLostWritesInvariant } from './invariants/no-lost-writes.ts';
import type { InvariantDeps, InvariantResult, InvariantRunner } from './invariants/types.ts';
import { watchConsistentInvariant } from './invariants/watch-consistent.ts';
import { watchReactions } from './reactions.ts';
import { Recorder } from './recorder.ts';
import type { ExperimentReport } from './report.ts';
import { applyManifest } from './resources.ts';
import { seededRandom } from './rng.ts';
import { assignSeeds, recoverFault, runSteps, StepError, type StepContext } from './steps.ts';
import type { Check, Experiment } from './spec.ts';

export interface RunDeps {
  client: KubeClient;
  /** A client of the same cluster with its own connections and this request timeout. */
  makeClient(timeoutMs: number): KubeClient;
  driver: ChaosDriver;
  /** Ctrl-C. */
  signal?: AbortSignal;
  file?: string;
  /** Overrides the file's seed. */
  seed?: number;
}

/** The cluster lacks what the experiment needs: the file cannot run here (exit 2). */
export class RequirementError extends Error {}

const isCopy = (c: ComponentStatus, base: string) => c.name === base || new RegExp(`^${base}-\\d+$`).test(c.name);

/** Refuses a cluster with fewer controller-managers or schedulers than the experiment requires. */
export function checkRequirements(exp: Experiment, status: SupervisorStatus): void {
  const need: [number | undefined, string, string][] = [
    [exp.requires.controllerManagers, 'controller-manager', '--controller-managers'],
    [exp.requires.schedulers, 'scheduler', '--schedulers'],
  ];
  for (const [n, base, flag] of need) {
    if (n === undefined) continue;
    const have = status.components.filter((c) => isCopy(c, base)).length;
    if (have < n)
      throw new RequirementError(
        `experiment ${exp.name} needs ${n} ${base}s; the cluster runs ${have} (start it with ksim up ${flag} ${n})`,
      );
  }
}

function makeInvariant(inv: Experiment['invariants'][number], deps: InvariantDeps): InvariantRunner {
  switch (inv.kind) {
    case 'maxPods':
      return maxPodsInvariant(inv.name, inv.maxPods, deps);
    case 'noLostWrites':
      return noLostWritesInvariant(inv.name, inv.noLostWrites, deps);
    case 'watchConsistent':
      return watchConsistentInvariant(inv.name, inv.watchConsistent, deps);
  }
}

export async function runExperiment(exp: Experiment, deps: RunDeps): Promise<ExperimentReport> {
  const seed = deps.seed ?? exp.seed;
  const rng = seededRandom(seed);
  const steps = structuredClone(exp.steps);
  assignSeeds(steps, rng);
  const initial = await deps.driver.status();
  checkRequirements(exp, initial);

  const rec = new Recorder();
  const startedAt = new Date(rec.startedAt).toISOString();
  const run = new AbortController();
  const onOuterAbort = () => run.abort();
  deps.signal?.addEventListener('abort', onOuterAbort, { once: true });
  // Ctrl-C while the first status was read: the listener came too late to hear it.
  if (deps.signal?.aborted) run.abort();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    run.abort();
  }, exp.timeoutMs);
  const errors: string[] = [];
  const checks: CheckResult[] = [];
  const stepChecks: CheckResult[] = [];
  const invariantResults: InvariantResult[] = [];
  const ctx: StepContext = { client: deps.client, driver: deps.driver, rec, signal: run.signal, faults: [], checks: stepChecks };
  const runId = `${exp.name.slice(0, 30)}-${seed}-${rec.startedAt.toString(36)}`.replace(/-+$/, '');
  const invDeps: InvariantDeps = { client: deps.client, makeClient: (ms) => deps.makeClient(ms), recorder: rec, runId };
  const reactions = watchReactions(deps.client, rec);
  const invariants: { name: string; runner: InvariantRunner }[] = [];
  const probes: RunningProbe[] = [];
  const prepared = new Map(exp.checks.map((c) => [c.name, prepareCondition(c.condition)]));
  const edgeStart = new Map<string, CheckResult>();
  const within = async (c: Check, mode: Check['mode']): Promise<CheckResult> => {
    const out = await holdsWithin(c.name, mode, prepared.get(c.name)!, deps.client, c.withinMs, rec, run.signal);
    return withinResult(c.name, mode, out);
  };

  rec.add({ type: 'run-started', name: exp.name, message: `seed ${seed}` });
  try {
    await reactions.start();
    if (exp.objects.length > 0) rec.add({ type: 'step', name: `apply ${exp.objects.length} object(s)` });
    for (const m of exp.objects) {
      try {
        await applyManifest(deps.client, m);
      } catch (err) {
        throw new StepError(`apply ${m.kind} ${m.metadata.name}: ${(err as Error).message}`);
      }
    }
    for (const inv of exp.invariants) {
      const runner = makeInvariant(inv, invDeps);
      invariants.push({ name: inv.name, runner });
      try {
        await runner.start();
      } catch (err) {
        throw new StepError(`invariant ${inv.name} could not start: ${(err as Error).message}`);
      }
    }
    const startChecks = exp.checks.filter((c) => c.mode === 'SOT' || c.mode === 'Edge');
    for (const r of await Promise.all(startChecks.map((c) => within(c, c.mode)))) {
      if (r.mode === 'Edge') edgeStart.set(r.name, r);
      else checks.push(r);
    }
    for (const c of exp.checks)
      if (c.mode === 'Continuous' || c.mode === 'OnChaos')
        probes.push(startProbe(c.name, c.mode, prepared.get(c.name)!, deps.client, c.intervalMs, rec));
    await runSteps(steps, ctx);
  } catch (err) {
    errors.push(err instanceof StepError ? err.message : `run: ${(err as Error).message}`);
  }

  // Cleanup runs whatever happened above.
  for (const p of probes) checks.push(await p.stop());
  for (const f of ctx.faults) {
    const failed = await recoverFault(ctx, f);
    if (failed) errors.push(failed);
  }
  errors.push(...(await restoreComponents(deps.driver, initial, rec)));
  const aborted = run.signal.aborted;
  if (timedOut) errors.push(`the run took longer than its timeout (${exp.timeoutMs / 1000}s)`);
  // EOT checks and invariant verdicts get their own deadlines even after an abort: they judge the recovery.
  const endSignal = deps.signal;
  if (!deps.signal?.aborted) {
    const endChecks = exp.checks.filter((c) => c.mode === 'EOT' || c.mode === 'Edge');
    const results = await Promise.all(
      endChecks.map(async (c) => {
        const out = await holdsWithin(c.name, c.mode, prepared.get(c.name)!, deps.client, c.withinMs, rec, endSignal);
        return { c, out };
      }),
    );
    for (const { c, out } of results) {
      const start = edgeStart.get(c.name);
      const passed = out.passed && (start?.passed ?? true);
      const failures = [...(start?.failures ?? []), ...(out.passed ? [] : [{ at: out.at, message: out.message }])];
      checks.push({
        name: c.name,
        mode: c.mode,
        passed,
        at: passed ? out.at : failures[0]?.at,
        timeToRecoveryMs: out.timeToRecoveryMs,
        evaluations: out.evaluations + (start?.evaluations ?? 0),
        failures,
        message: start && !start.passed ? `at start: ${start.message}; at end: ${out.message}` : out.message,
      });
    }
  }
  for (const { runner } of invariants) {
    try {
      invariantResults.push(await runner.finish(endSignal));
    } catch (err) {
      runner.stop();
      errors.push(`invariant: ${(err as Error).message}`);
    }
  }
  for (const inv of exp.invariants.slice(invariants.length))
    invariantResults.push({ name: inv.name, kind: inv.kind, held: false, violations: [], message: 'not started' });
  reactions.stop();
  clearTimeout(timer);
  deps.signal?.removeEventListener('abort', onOuterAbort);

  const allChecks = orderChecks(exp, [...checks, ...stepChecks]);
  const held = allChecks.every((c) => c.passed) && invariantResults.every((i) => i.held) && errors.length === 0;
  const verdict = deps.signal?.aborted || (aborted && !timedOut) ? 'aborted' : held ? 'passed' : 'failed';
  rec.add({ type: 'run-finished', name: exp.name, message: verdict });
  return {
    experiment: exp.name,
    description: exp.description,
    file: deps.file,
    seed,
    startedAt,
    durationMs: rec.elapsed(),
    verdict,
    checks: allChecks,
    invariants: invariantResults,
    faults: ctx.faults,
    errors,
    droppedReactions: rec.droppedReactions,
    events: rec.sorted(),
  };
}

/** Checks in the file's order (step checks after, in the order they ran). */
function orderChecks(exp: Experiment, results: CheckResult[]): CheckResult[] {
  const order = new Map(exp.checks.map((c, i) => [c.name, i]));
  return [...results].sort((a, b) => (order.get(a.name) ?? Infinity) - (order.get(b.name) ?? Infinity));
}

/**
 * Starts every component that ran before the run and no longer does, and
 * resumes every one left paused: a kill has no fault id to recover, but the
 * run must still leave the cluster as it found it.
 */
async function restoreComponents(driver: ChaosDriver, initial: SupervisorStatus, rec: Recorder): Promise<string[]> {
  const errors: string[] = [];
  let now: SupervisorStatus;
  try {
    now = await driver.status();
  } catch (err) {
    return [`cannot read the cluster's status to restore it: ${(err as Error).message}`];
  }
  for (const before of initial.components) {
    if (before.state !== 'running') continue;
    const cur = now.components.find((c) => c.name === before.name);
    if (!cur || cur.state === 'running' || cur.state === 'starting') continue;
    const action = cur.state === 'paused' ? 'resume' : 'start';
    try {
      const r = await driver.inject({ action, target: before.name });
      rec.add({ type: 'fault-recovered', name: `${action} ${before.name}`, message: `restored at the end: ${r.message}` });
    } catch (err) {
      errors.push(`${action} ${before.name} at the end: ${(err as Error).message}`);
    }
  }
  return errors;
}
