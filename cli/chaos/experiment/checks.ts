// Runs checks in Litmus's probe modes. A "within" check (SOT, EOT, the two
// halves of Edge, a check step) polls its condition until it holds or its
// deadline passes; its time to recovery is from the last fault event before
// it began (an injection or a recovery) to the first time it held. A probe
// (Continuous, OnChaos) evaluates at its interval while the steps run
// (OnChaos only while a fault is in effect) and fails on any false result;
// the length of each failing stretch is its time to recovery.
import type { KubeClient } from '../../../shared/client/kube-client.ts';
import type { CompiledCondition } from './conditions.ts';
import type { Recorder } from './recorder.ts';
import { sleep } from './sleep.ts';
import type { ProbeMode } from './spec.ts';

export type CheckMode = ProbeMode | 'Step' | 'Invariant';

/** One row of the report. */
export interface CheckResult {
  name: string;
  mode: CheckMode;
  passed: boolean;
  /** When it held (within checks) or first failed, in ms since the run started. */
  at?: number;
  timeToRecoveryMs?: number;
  evaluations: number;
  failures: { at: number; message: string }[];
  message: string;
}

const POLL_MS = 200;

export interface WithinOutcome {
  passed: boolean;
  at: number;
  timeToRecoveryMs?: number;
  evaluations: number;
  message: string;
}

/** Polls `cond` until it holds or `withinMs` passes; records check-passed or check-failed. */
export async function holdsWithin(
  name: string,
  mode: CheckMode,
  cond: CompiledCondition,
  client: KubeClient,
  withinMs: number,
  rec: Recorder,
  signal?: AbortSignal,
): Promise<WithinOutcome> {
  const reference = rec.lastFaultEventAt();
  const deadline = rec.elapsed() + withinMs;
  let evaluations = 0;
  let message = 'not evaluated';
  for (;;) {
    if (signal?.aborted) {
      const e = rec.add({ type: 'check-failed', name, mode, message: `aborted (last: ${message})` });
      return { passed: false, at: e.at, evaluations, message: e.message! };
    }
    const r = await cond.evaluate(client);
    evaluations++;
    message = r.message;
    const now = rec.elapsed();
    if (r.ok) {
      const timeToRecoveryMs = reference === undefined ? undefined : now - reference;
      rec.add({ type: 'check-passed', name, mode, message, at: now, timeToRecoveryMs });
      return { passed: true, at: now, timeToRecoveryMs, evaluations, message };
    }
    if (now >= deadline) {
      const text = `did not hold within ${withinMs / 1000}s: ${message}`;
      rec.add({ type: 'check-failed', name, mode, message: text, at: now });
      return { passed: false, at: now, evaluations, message: text };
    }
    await sleep(Math.min(POLL_MS, deadline - now), signal);
  }
}

/** The report row of one "within" check. */
export function withinResult(name: string, mode: CheckMode, out: WithinOutcome): CheckResult {
  return {
    name,
    mode,
    passed: out.passed,
    at: out.at,
    timeToRecoveryMs: out.timeToRecoveryMs,
    evaluations: out.evaluations,
    failures: out.passed ? [] : [{ at: out.at, message: out.message }],
    message: out.message,
  };
}

/** A probe running in the background until stop() is called. */
export interface RunningProbe {
  stop(): Promise<CheckResult>;
}

/** Starts a Continuous or OnChaos probe. */
export function startProbe(
  name: string,
  mode: 'Continuous' | 'OnChaos',
  cond: CompiledCondition,
  client: KubeClient,
  intervalMs: number,
  rec: Recorder,
): RunningProbe {
  const stopper = new AbortController();
  const failures: { at: number; message: string }[] = [];
  let evaluations = 0;
  let failingSince: number | undefined;
  let worstRecovery: number | undefined;
  const loop = (async () => {
    while (!stopper.signal.aborted) {
      if (mode === 'Continuous' || rec.chaosActive()) {
        const r = await cond.evaluate(client);
        evaluations++;
        const now = rec.elapsed();
        if (!r.ok) {
          failures.push({ at: now, message: r.message });
          if (failingSince === undefined) {
            failingSince = now;
            rec.add({ type: 'check-failed', name, mode, message: r.message, at: now });
          }
        } else if (failingSince !== undefined) {
          const took = now - failingSince;
          worstRecovery = Math.max(worstRecovery ?? 0, took);
          rec.add({ type: 'check-passed', name, mode, message: `holds again: ${r.message}`, at: now, timeToRecoveryMs: took });
          failingSince = undefined;
        }
      }
      await sleep(intervalMs, stopper.signal);
    }
  })();
  return {
    async stop() {
      stopper.abort();
      await loop;
      const passed = evaluations > 0 && failures.length === 0;
      let message: string;
      if (evaluations === 0) message = mode === 'OnChaos' ? 'never evaluated: no fault was in effect' : 'never evaluated';
      else if (passed) {
        message = `held at all ${evaluations} evaluations`;
        rec.add({ type: 'check-passed', name, mode, message });
      } else
        message = `false at ${failures.length} of ${evaluations} evaluations; first at ${(failures[0].at / 1000).toFixed(1)}s: ${failures[0].message}`;
      return {
        name,
        mode,
        passed,
        at: failures[0]?.at,
        timeToRecoveryMs: worstRecovery,
        evaluations,
        failures: failures.slice(0, 20),
        message,
      };
    },
  };
}
