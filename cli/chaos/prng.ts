// A small seeded PRNG (mulberry32) for the choices `ksim chaos` makes at
// random (which Pods a selector's mode picks), so a seed repeats a run.
// shared/ has none; test/robustness/fuzz has its own for the fuzzer.

/** Returns a function giving floats in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [0, n) drawn from `random` (Go's rand.Intn). */
export function randomInt(random: () => number, n: number): number {
  return Math.floor(random() * n);
}
