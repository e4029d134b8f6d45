// When watch outboxes get to write. Two rules, both about sharing one
// event loop between a hundred watchers and the requests:
// - Backlogs (replays, initial lists) are written in turns: every outbox
//   with something queued writes one block, round robin, a few milliseconds
//   of writing per event-loop turn in all; requests run in between.
// - Live batches are written at most once per window per watcher: the first
//   commit after a quiet moment goes out at the end of the event-loop turn
//   (after the commit's own responses), later ones wait until the window
//   ends and go out together, in one socket write. Commits at 1,000/s
//   come every millisecond or so with a few events each, and a write per
//   commit per watcher costs more than the events themselves.
import { performance } from 'node:perf_hooks';

/** An outbox as the pacing sees it. */
export interface Paced {
  /** Writes what its turn allows and asks for another turn if more is left. */
  step(): void;
}

/** Writing time per event-loop turn for all backlogged outboxes together. */
const TURN_BUDGET_MS = 4;
/** At most one live write per watcher per this many milliseconds. */
export const LIVE_WINDOW_MS = 5;

let ready: Paced[] = [];
let turnScheduled = false;

/** Queues `o` for a turn. */
export function wantTurn(o: Paced): void {
  ready.push(o);
  if (!turnScheduled) {
    turnScheduled = true;
    setImmediate(runTurn);
  }
}

/** Gives each waiting outbox one step, round robin, until the turn's budget is spent. */
function runTurn(): void {
  turnScheduled = false;
  const waiting = ready;
  ready = [];
  const deadline = performance.now() + TURN_BUDGET_MS;
  let i = 0;
  while (i < waiting.length) {
    waiting[i++].step();
    if (performance.now() > deadline) break;
  }
  // Those not served go first next turn; those served asked again behind them.
  if (i < waiting.length) ready = waiting.slice(i).concat(ready);
  if (ready.length > 0 && !turnScheduled) {
    turnScheduled = true;
    setImmediate(runTurn);
  }
}

/** Live writes wait until then. */
let windowEnd = 0;
let held: Paced[] = [];
let flushPending = false;

/**
 * Has `o` write its held live batches: at the end of this event-loop turn
 * when the window is open, else when it ends. Even "at once" waits for the
 * turn's end: the commit that produced the batch first sends its responses
 * (its writers are waiting on them), then the watchers get the events.
 */
export function holdLive(o: Paced): void {
  held.push(o);
  if (flushPending) return;
  flushPending = true;
  const now = performance.now();
  if (now >= windowEnd) {
    windowEnd = now + LIVE_WINDOW_MS;
    setImmediate(flushHeld);
  } else setTimeout(flushHeld, windowEnd - now);
}

function flushHeld(): void {
  flushPending = false;
  windowEnd = Math.max(windowEnd, performance.now() + LIVE_WINDOW_MS);
  const due = held;
  held = [];
  for (const o of due) o.step();
}
