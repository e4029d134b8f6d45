// Child processes started by tests. Each one runs in its own process group
// (so anything it starts in turn goes with it) and is SIGKILLed when the test
// process exits, so a failed or timed-out test never leaves a server behind.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { onExit } from './cleanup.ts';

/** How a tracked process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A spawned child with a promise of its exit, plus signal helpers for its group. */
export interface TrackedProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves once the process has exited (never rejects). */
  exited: Promise<ExitStatus>;
  /** Whether the process is still running. */
  running(): boolean;
  /** Sends a signal to the process group; a no-op once it has exited. */
  signal(sig: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if it has not exited after graceMs. */
  stop(graceMs?: number): Promise<ExitStatus>;
  /** SIGKILL and wait for the exit. */
  kill9(): Promise<ExitStatus>;
}

/**
 * Spawns a command detached into its own process group, tracked for cleanup
 * at process exit. Rejects if the command cannot be started at all.
 */
export async function spawnTracked(command: string, args: string[], options: SpawnOptions = {}): Promise<TrackedProcess> {
  const child = spawn(command, args, { ...options, detached: true });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const pid = child.pid as number;
  let done = false;
  const sendGroup = (sig: NodeJS.Signals): void => {
    if (done) return;
    try {
      process.kill(-pid, sig);
    } catch {
      // Group already gone; fall back to the process itself.
      try {
        child.kill(sig);
      } catch {
        // Already exited.
      }
    }
  };
  const unregister = onExit(() => sendGroup('SIGKILL'));
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      unregister();
      resolve({ code, signal });
    });
  });
  const tracked: TrackedProcess = {
    child,
    pid,
    exited,
    running: () => !done,
    signal: sendGroup,
    async stop(graceMs = 5000) {
      sendGroup('SIGTERM');
      const timer = setTimeout(() => sendGroup('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    async kill9() {
      sendGroup('SIGKILL');
      return exited;
    },
  };
  return tracked;
}
