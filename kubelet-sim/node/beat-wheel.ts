// Periodic beats for thousands of simulated nodes on one timer: the period is
// cut into slots, each member keeps one slot for life, and each tick beats the
// members of the current slot together. Every member still beats once per
// period, as its own kubelet would; a process with 5,000 nodes wakes up ten
// times a second instead of 5,000 times every ten seconds, and the requests
// of one slot reach the apiserver together, where they share an event-loop
// turn and a synced batch.
import type { Clock } from '../../shared/clock/clock.ts';

/** At most this long between ticks, so one slot holds a small share of the fleet. */
export const DEFAULT_SLOT_MS = 100;

/** See the file comment. */
export class BeatWheel<T> {
  private readonly slots: Set<T>[];
  private readonly slotOf = new Map<T, number>();
  private readonly slotMs: number;
  private next = 0;
  private startedAt = 0;
  private ticks = 0;
  private cancel?: () => void;

  constructor(
    private readonly clock: Clock,
    readonly periodMs: number,
    private readonly beat: (member: T) => void,
    slotMs = DEFAULT_SLOT_MS,
  ) {
    // At least 10 slots per period, so that at high --speed a beat is never late by more than a tenth of it.
    const period = Math.max(1, periodMs);
    const count = Math.max(1, Math.ceil(period / Math.min(slotMs, period / 10)));
    this.slotMs = period / count;
    this.slots = Array.from({ length: count }, () => new Set<T>());
  }

  /** Number of members. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Adds `member` (no-op if present); its first beat comes within one period, its slot picked at random. */
  add(member: T): void {
    if (this.slotOf.has(member)) return;
    const slot = Math.floor(Math.random() * this.slots.length);
    this.slotOf.set(member, slot);
    this.slots[slot].add(member);
    if (!this.cancel) this.start();
  }

  /** Removes `member`; it beats no more. */
  delete(member: T): void {
    const slot = this.slotOf.get(member);
    if (slot === undefined) return;
    this.slotOf.delete(member);
    this.slots[slot].delete(member);
  }

  /** True when `member` beats. */
  has(member: T): boolean {
    return this.slotOf.has(member);
  }

  /** Stops the timer; members stay, and the next add() starts it again. */
  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }

  private start(): void {
    this.startedAt = this.clock.now();
    this.ticks = 0;
    this.schedule();
  }

  private schedule(): void {
    const now = this.clock.now();
    // Aim at the absolute slot boundary, so timer lateness does not add up over hours.
    let at = this.startedAt + (this.ticks + 1) * this.slotMs;
    // The wall clock jumped (chaos clock skew, an NTP step): count again from now, as kubelet's monotonic
    // tickers do, rather than stall for the jump back or burst through the slots a jump ahead skipped.
    if (at - now > this.slotMs || now - at > this.periodMs) {
      this.startedAt = now - this.ticks * this.slotMs;
      at = now + this.slotMs;
    }
    this.cancel = this.clock.setTimeout(() => this.tick(), Math.max(0, at - now));
  }

  private tick(): void {
    this.ticks++;
    const slot = this.slots[this.next];
    this.next = (this.next + 1) % this.slots.length;
    for (const m of [...slot]) {
      try {
        this.beat(m);
      } catch {
        // A beat reports its own failures; one member must not stop the others.
      }
    }
    if (this.slotOf.size === 0) {
      this.cancel = undefined;
      return;
    }
    this.schedule();
  }
}
