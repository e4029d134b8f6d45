// The one source of time for components: production uses the real clock,
// tests inject a FakeClock and step it, so a five-minute timeout needs no
// five-minute sleep.

/** Time and timers. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): () => void;
  sleep(ms: number): Promise<void>;
}

let skewMs = 0;

/**
 * Shifts this process's wall clock by `ms` (chaos: `ksim chaos skew
 * COMPONENT +30s`): every reading of realClock.now() and wallNow() is off by
 * that much, as a machine whose clock drifted would be. Timers are not moved.
 */
export function setClockSkew(ms: number): void {
  skewMs = ms;
}

/** The offset setClockSkew gave (0 normally). */
export function clockSkew(): number {
  return skewMs;
}

/** This process's wall time in ms: Date.now() shifted by any injected skew. Use it for every timestamp a component writes. */
export function wallNow(): number {
  return Date.now() + skewMs;
}

/** The wall clock (shifted by any injected skew). */
export const realClock: Clock = {
  now: wallNow,
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};

/**
 * A clock that only moves forward and ignores any injected skew: for judging
 * how long ago something happened (a Lease last seen renewed), as Go's
 * monotonic time.Now() readings do, so a wall clock that jumps does not make
 * a Lease look expired.
 */
export const monotonicClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimeout: (fn, ms) => realClock.setTimeout(fn, ms),
  sleep: (ms) => realClock.sleep(ms),
};

/** A clock that only moves when a test calls `step`. */
export class FakeClock implements Clock {
  private t: number;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 0;

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): () => void {
    const id = this.nextId++;
    this.timers.push({ at: this.t + Math.max(0, ms), fn, id });
    return () => {
      this.timers = this.timers.filter((x) => x.id !== id);
    };
  }

  sleep(ms: number): Promise<void> {
    return new Promise((r) => this.setTimeout(r, ms));
  }

  /** Number of pending timers. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing due timers in order (and letting promise callbacks run between them). */
  async step(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
      await new Promise((r) => setImmediate(r));
    }
    this.t = end;
    await new Promise((r) => setImmediate(r));
  }
}
