// The flags and values of `ksim chaos`: splits argv into positional
// arguments and flags (`--name value`, `--name=value`, bare booleans, and
// kubectl's -n and -l), and turns values into numbers and milliseconds.
// A signed duration such as -5s is an argument, not a flag. Every problem is
// a ChaosUsageError naming the flag or argument (`ksim chaos` exits 2).
import { parseDuration } from '../../shared/api/protobuf/special.ts';
import { splitArgs as splitFlagArgs, type SplitArgs as GenericSplitArgs } from '../../shared/cli/split-args.ts';

/** A bad command line; the message names the flag or argument. */
export class ChaosUsageError extends Error {}

/** Every flag `ksim chaos` knows: whether it takes a value, and its one-letter form. */
export const CHAOS_FLAGS = {
  'data-dir': { value: true },
  help: { value: false, short: 'h' },
  duration: { value: true },
  seed: { value: true },
  latency: { value: true },
  'error-rate': { value: true },
  'error-code': { value: true },
  'drop-watches': { value: false },
  'watch-delay': { value: true },
  compact: { value: false },
  clear: { value: false },
  user: { value: true },
  'user-agent': { value: true },
  verb: { value: true },
  resource: { value: true },
  delay: { value: true },
  hold: { value: false },
  drop: { value: false },
  namespace: { value: true, short: 'n' },
  'all-namespaces': { value: false, short: 'A' },
  selector: { value: true, short: 'l' },
  mode: { value: true },
  value: { value: true },
  container: { value: true },
} as const satisfies Record<string, { value: boolean; short?: string }>;

export type ChaosFlag = keyof typeof CHAOS_FLAGS;

/** argv split: positional arguments in order, flags by name (a boolean's value is 'true' or 'false'). */
export type SplitArgs = GenericSplitArgs<ChaosFlag>;

/** Splits argv; unknown flags, missing values and repeated flags are usage errors. */
export function splitArgs(argv: string[]): SplitArgs {
  return splitFlagArgs(argv, CHAOS_FLAGS, (message) => new ChaosUsageError(message));
}

/** A Go duration ("200ms", "1m30s", "+30s", "-5s") in milliseconds; a usage error naming `what` otherwise. */
export function durationMs(text: string, what: string): number {
  const ns = parseDuration(text.trim());
  if (ns === undefined || text.trim() === '') {
    throw new ChaosUsageError(`${what}: "${text}" is not a duration (such as 200ms, 2s, 1m30s)`);
  }
  return Number(ns) / 1e6;
}

/** A duration that must be above 0. */
export function positiveDurationMs(text: string, what: string): number {
  const ms = durationMs(text, what);
  if (ms <= 0) throw new ChaosUsageError(`${what}: "${text}" must be above 0`);
  return ms;
}

/** A finite number. */
export function numberValue(text: string, what: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new ChaosUsageError(`${what}: "${text}" is not a number`);
  return n;
}

/** A whole number (a seed, a count, a percentage). */
export function integerValue(text: string, what: string): number {
  const n = numberValue(text, what);
  if (!Number.isSafeInteger(n)) throw new ChaosUsageError(`${what}: "${text}" is not a whole number`);
  return n;
}
