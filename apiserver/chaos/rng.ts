// Seeded random draws for injected faults: each fault has its own stream,
// so the n-th request a fault matches gets the same outcome in every run
// with the same seed, whatever other faults draw meanwhile.

/** A stream of uniform draws in [0, 1) from a 32-bit seed (mulberry32). */
export type Draw = () => number;

/** A fresh stream seeded with `seed` (any number; only its low 32 bits count). */
export function seededDraws(seed: number): Draw {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed for a fault that names none (reported back, so that the run can be repeated). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 0x1_0000_0000);
}
