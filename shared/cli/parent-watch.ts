// A child of `ksim up` must not outlive it: if the supervisor is killed with
// SIGKILL it cannot stop its children, so each child notices being orphaned.

/** Exits the process (through `onOrphaned`) once its parent `parentPid` is gone. */
export function exitWithParent(parentPid: number, onOrphaned: () => void): void {
  const timer = setInterval(() => {
    if (process.ppid !== parentPid) {
      clearInterval(timer);
      onOrphaned();
    }
  }, 1000);
  timer.unref();
}
