// Which watch event is being dispatched right now. The informer marks the
// resourceVersion of the event's object around its (synchronous) handler
// calls, so that WorkQueue.add, called from a handler, can remember what
// queued a key without the ~100 `queue.add(key)` call sites passing it.
// Dispatch is synchronous, so a module-level variable is enough.

let current: string | undefined;

/** Runs `fn` with `rv` as the current event's resourceVersion; the previous one is restored even if `fn` throws. */
export function dispatching<R>(rv: string | undefined, fn: () => R): R {
  const previous = current;
  current = rv || undefined;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

/** The resourceVersion of the event whose handlers are running, or undefined outside a dispatch. */
export function currentEventRV(): string | undefined {
  return current;
}
