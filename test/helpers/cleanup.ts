// One place that tears down what tests leave behind (child processes, temp
// dirs) when the test process ends, even after a failure, an uncaught error
// or a SIGTERM from the `node --test` timeout. Hooks must be synchronous:
// nothing asynchronous runs inside an 'exit' handler.

type Hook = () => void;

const hooks = new Set<Hook>();
let installed = false;

function runHooks(): void {
  for (const hook of [...hooks].reverse()) {
    hooks.delete(hook);
    try {
      hook();
    } catch {
      // Best effort: one failing hook must not stop the others.
    }
  }
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runHooks);
  // A handler replaces the default "die on signal" behaviour, so exit ourselves
  // with the conventional status once everything is cleaned up.
  const signals: Array<[NodeJS.Signals, number]> = [
    ['SIGINT', 2],
    ['SIGTERM', 15],
    ['SIGHUP', 1],
  ];
  for (const [signal, num] of signals) {
    process.once(signal, () => {
      runHooks();
      process.exit(128 + num);
    });
  }
}

/**
 * Registers a synchronous hook that runs when the process exits (normally,
 * on an uncaught error, or on SIGINT/SIGTERM/SIGHUP). Returns a function
 * that unregisters it, for resources already released normally.
 */
export function onExit(hook: Hook): () => void {
  install();
  hooks.add(hook);
  return () => {
    hooks.delete(hook);
  };
}
