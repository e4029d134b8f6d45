// When the supervisor starts a component again by itself. With
// --restart=never (the default) a death is only reported: a chaos experiment
// wants to see it. With --restart=on-failure a component that dies other than
// by an intended stop (a crash, `ksim chaos kill`, an exit with a non-zero
// code) comes back after a backoff that doubles with each quick death, as
// kubelet's CrashLoopBackOff does, and resets once it has run for a while.
import type { ExitInfo } from './child.ts';

export type RestartPolicy = 'never' | 'on-failure';

export const RESTART_POLICIES: RestartPolicy[] = ['never', 'on-failure'];

const FIRST_DELAY_MS = 200;
const MAX_DELAY_MS = 10_000;
/** A process that ran this long before dying starts its backoff over. */
const HEALTHY_AFTER_MS = 10_000;

/** Whether a death calls for a restart under `policy`. */
export function shouldRestart(policy: RestartPolicy, exit: ExitInfo): boolean {
  if (policy !== 'on-failure' || exit.intended) return false;
  return exit.signal !== null || (exit.code ?? 1) !== 0;
}

/** The delay before the next restart, and the new count of quick deaths in a row. */
export function nextBackoff(quickDeaths: number, ranForMs: number): { delayMs: number; quickDeaths: number } {
  const n = ranForMs >= HEALTHY_AFTER_MS ? 0 : quickDeaths;
  return { delayMs: Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** n), quickDeaths: n + 1 };
}
