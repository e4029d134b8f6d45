// The in-memory window of the change log: every committed event since the
// compaction point, in revision order, so watches can resume from any
// resourceVersion in the window and lists can be served at an older revision.
import type { ChangeEvent } from './types.ts';

/** An append-only, front-trimmed list of change events ordered by revision. */
export class ChangeLog {
  private events: ChangeEvent[] = [];
  private head = 0;

  append(event: ChangeEvent): void {
    this.events.push(event);
  }

  /** Number of events held. */
  get length(): number {
    return this.events.length - this.head;
  }

  /** The revision of the oldest event held, or undefined when empty. */
  oldestRev(): number | undefined {
    return this.head < this.events.length ? this.events[this.head].rev : undefined;
  }

  /** Index of the first event with rev > `rev`. */
  private indexAfter(rev: number): number {
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid].rev <= rev) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The event at exactly `rev`, if held. */
  at(rev: number): ChangeEvent | undefined {
    const i = this.indexAfter(rev - 1);
    const ev = this.events[i];
    return i < this.events.length && ev.rev === rev ? ev : undefined;
  }

  /** Events with rev > `rev`, oldest first. */
  *since(rev: number): Generator<ChangeEvent> {
    for (let i = this.indexAfter(rev); i < this.events.length; i++) yield this.events[i];
  }

  /** The revision held at position `n` from the oldest (for count-based compaction). */
  revAt(n: number): number | undefined {
    return this.events[this.head + n]?.rev;
  }

  /** Drops every event with rev <= `rev`. */
  trimThrough(rev: number): void {
    this.head = this.indexAfter(rev);
    // Reclaim the array once the dead prefix dominates, keeping trims amortized O(1).
    if (this.head > 1024 && this.head * 2 > this.events.length) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }
}
