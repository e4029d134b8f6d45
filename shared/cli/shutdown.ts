// How every ksim process stops: on SIGINT or SIGTERM, or when the `ksim up`
// supervisor that started it is gone (KSIM_SUPERVISOR_PID), it runs its
// cleanup once and exits (0 after a clean stop, 1 if cleanup failed), with a
// hard deadline so a stuck cleanup never keeps a process alive.
import type { Logger } from 'pino';
import { exitWithParent } from './parent-watch.ts';

const HARD_DEADLINE_MS = 10_000;

/** Installs the handlers; returns `stop(why, code)` for the process's own reasons to stop. */
export function handleShutdown(log: Logger, cleanup: () => Promise<void>): (why: string, code?: number) => void {
  let stopping = false;
  const stop = (why: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    log.info({ why }, 'shutting down');
    setTimeout(() => process.exit(code || 1), HARD_DEADLINE_MS).unref();
    cleanup().then(
      () => process.exit(code),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  const supervisor = Number(process.env.KSIM_SUPERVISOR_PID);
  if (supervisor) exitWithParent(supervisor, () => stop('supervisor gone'));
  return stop;
}
