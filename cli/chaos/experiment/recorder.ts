// The run's timeline as it happens: every part of the runner adds its events
// here with the time since the run started, and the report and the SVG are
// drawn from the list at the end. It also knows which faults are in effect
// (for OnChaos probes) and when the last fault event happened (the start of
// a check's time to recovery).
import type { TimelineEvent } from '../../../shared/timeline/types.ts';

/** Reactions beyond this many are counted, not kept: a long run must not grow the report without bound. */
const MAX_REACTIONS = 3000;

export class Recorder {
  readonly events: TimelineEvent[] = [];
  readonly startedAt: number;
  droppedReactions = 0;
  private reactions = 0;
  private activeWindows = 0;
  private lastFaultAt?: number;

  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
  }

  /** Milliseconds since the run started. */
  elapsed(): number {
    return this.now() - this.startedAt;
  }

  add(e: Omit<TimelineEvent, 'at'> & { at?: number }): TimelineEvent {
    if (e.type === 'reaction') {
      if (this.reactions >= MAX_REACTIONS) {
        this.droppedReactions++;
        return { ...e, at: e.at ?? this.elapsed() };
      }
      this.reactions++;
    }
    const event: TimelineEvent = { ...e, at: e.at ?? this.elapsed() };
    if (event.type === 'fault-injected' || event.type === 'fault-recovered') this.lastFaultAt = event.at;
    this.events.push(event);
    return event;
  }

  /** The time of the latest fault injection or recovery, if any. */
  lastFaultEventAt(): number | undefined {
    return this.lastFaultAt;
  }

  /** A fault's window opens (OnChaos probes run while any is open). */
  openChaos(): void {
    this.activeWindows++;
  }

  closeChaos(): void {
    this.activeWindows = Math.max(0, this.activeWindows - 1);
  }

  chaosActive(): boolean {
    return this.activeWindows > 0;
  }

  /** The events in time order (parallel steps may add them slightly out of order). */
  sorted(): TimelineEvent[] {
    return [...this.events].sort((a, b) => a.at - b.at);
  }
}
