// Polling for end-to-end tests: wait until something holds, with a deadline
// and a message that says what never happened (and the last error seen).

/** Resolves with the first truthy value `fn` returns; rejects after `ms` with `what` in the message. */
export async function until<T>(fn: () => T | undefined | false | Promise<T | undefined | false>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Waits until `check` says true, asking every 250 ms; rejects after `ms` with
 * `what` in the message. Unlike `until`, an error from `check` (a kubectl
 * call that failed, an assertion) fails at once.
 */
export async function eventually(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
