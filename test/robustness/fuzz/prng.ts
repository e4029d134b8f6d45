// A small seeded PRNG (mulberry32) and the choices the fuzzer makes with it.
// Each request gets its own generator derived from (seed, index), so request
// N can be regenerated for a replay without generating the N-1 before it.

/** Random choices from one mulberry32 stream. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The generator for request `index` of a run with `seed`. */
  static forRequest(seed: number, index: number): Rng {
    // Mix the pair so neighbouring indexes do not give correlated streams.
    let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 0x632be5ab, 0xc2b2ae35);
    h ^= h >>> 16;
    h = Math.imul(h, 0x7feb352d);
    h ^= h >>> 15;
    return new Rng(h);
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = Math.imul(this.state ^ (this.state >>> 15), 1 | this.state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** One key of a table of weights, chosen in proportion to its weight. */
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as [K, number][];
    let x = this.next() * entries.reduce((s, [, w]) => s + w, 0);
    for (const [k, w] of entries) {
      x -= w;
      if (x < 0) return k;
    }
    return entries[entries.length - 1][0];
  }

  /** A lower-case DNS-1123 label of the given length range. */
  dnsLabel(min = 3, max = 12): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
    let s = this.pick('abcdefghijklmnopqrstuvwxyz'.split(''));
    const n = this.int(min, max);
    while (s.length < n) s += this.pick(alphabet.split(''));
    return s;
  }
}

/** A fresh seed when none is given: printed, so the run can be replayed. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}
