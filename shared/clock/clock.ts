// The one source of time for components: production uses the real clock,
// tests inject a FakeClock and step it, so a five-minute timeout needs no
// five-minute sleep.

/** Time and timers. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): () => void;
  sleep(ms: number): Promise<void>;
}

/** The wall clock. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
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
