// Which of the matching objects a pod fault reaches, with Chaos Mesh's
// selector modes (pkg/selector/generic/mode.go): one (one at random), all,
// fixed (N at random, all when fewer match), fixed-percent (floor(count *
// N / 100) at random), random-max-percent (a percentage drawn in [0, N],
// then as fixed-percent). N is an integer, as Chaos Mesh's Atoi takes it.
// The draws come from a seeded PRNG, so a seed selects the same objects
// from the same list every time.
import type { SelectionMode } from '../../shared/chaos/protocol.ts';
import { randomInt, seededRandom } from './prng.ts';

/** A selection that cannot be made (Chaos Mesh refuses these too). */
export class SelectionError extends Error {}

/** The whole numbers in (0, 100] a percentage mode accepts. */
function percentage(mode: SelectionMode, value: number | undefined): number {
  if (value === undefined || !Number.isInteger(value)) throw new SelectionError(`mode ${mode} needs an integer value (a percentage)`);
  if (value <= 0) throw new SelectionError(`mode ${mode}: cannot select any object as value is below or equal 0`);
  if (value > 100) throw new SelectionError(`mode ${mode}: percentage value of ${value} is invalid, must be (0,100]`);
  return value;
}

/** `count` distinct indexes of [0, n) in the order drawn; every index, in order, when count >= n. */
function randomIndexes(random: () => number, n: number, count: number): number[] {
  if (count >= n) return [...Array(n).keys()];
  const chosen = new Set<number>();
  const out: number[] = [];
  while (out.length < count) {
    const i = randomInt(random, n);
    if (chosen.has(i)) continue;
    chosen.add(i);
    out.push(i);
  }
  return out;
}

/**
 * The items `mode` selects from `items` (given in a stable order, e.g. sorted
 * by namespace/name, for a seed to mean the same selection). Throws a
 * SelectionError when nothing matches or the value is not valid for the mode.
 */
export function selectPods<T>(items: T[], mode: SelectionMode, value: number | undefined, seed: number): T[] {
  if (items.length === 0) throw new SelectionError('no pods match the selector');
  const random = seededRandom(seed);
  const n = items.length;
  let count: number;
  switch (mode) {
    case 'one':
      return [items[randomInt(random, n)]];
    case 'all':
      return [...items];
    case 'fixed':
      if (value === undefined || !Number.isInteger(value)) throw new SelectionError('mode fixed needs an integer value (a count)');
      if (value <= 0) throw new SelectionError('mode fixed: cannot select any object as value is below or equal 0');
      count = Math.min(value, n);
      break;
    case 'fixed-percent':
      count = Math.floor((n * percentage(mode, value)) / 100);
      break;
    case 'random-max-percent': {
      const max = percentage(mode, value);
      count = Math.floor((n * randomInt(random, max + 1)) / 100);
      break;
    }
    default:
      throw new SelectionError(`mode ${String(mode)} not supported`);
  }
  return randomIndexes(random, n, count).map((i) => items[i]);
}
