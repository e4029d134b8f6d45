// The cause of the writes a piece of work makes: runController runs each
// reconcile inside one, the scheduler its bind, kubelet-sim its status
// writes; the client reads it to send the X-Ksim-Cause header. Node 20's
// AsyncLocalStorage costs something on every promise once it is in use, so
// with KSIM_CAUSALITY=off it is never entered at all.
import { AsyncLocalStorage } from 'node:async_hooks';
import { encodeCause, type WriteCause } from '../api/write-cause.ts';

/** False when `env` turns causality recording off (KSIM_CAUSALITY=off). */
export function causalityEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.KSIM_CAUSALITY ?? '').trim().toLowerCase() !== 'off';
}

/** Read once: a process records causes or it does not. */
export const CAUSALITY = causalityEnabled();

interface Frame {
  cause: WriteCause;
  /** The header value, encoded on the first write that needs it (undefined inside: none can be sent). */
  encoded?: string | undefined;
}

const storage = new AsyncLocalStorage<Frame>();

/** Runs `fn` with `cause` as the cause of every write it makes (synchronously or in what it awaits). */
export function withCause<R>(cause: WriteCause, fn: () => R): R {
  if (!CAUSALITY) return fn();
  return storage.run({ cause }, fn);
}

/** The current cause, or undefined outside withCause (and always with causality off). */
export function currentCause(): WriteCause | undefined {
  return CAUSALITY ? storage.getStore()?.cause : undefined;
}

/** The X-Ksim-Cause value of the current cause, or undefined when there is none. */
export function currentCauseHeader(): string | undefined {
  if (!CAUSALITY) return undefined;
  const frame = storage.getStore();
  if (!frame) return undefined;
  return (frame.encoded ??= encodeCause(frame.cause));
}
