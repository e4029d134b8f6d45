// When watch outboxes get to write. Two rules, both about sharing one
// event loop between a hundred watchers and the requests:
// - Backlogs (replays, initial lists) are written in turns: every outbox
//   with something queued writes one block, round robin, a few milliseconds
//   of writing per event-loop turn in all; requests run in between.
// - Live batches are written at most once per window per watcher: the first
//   commit after a quiet moment goes out at once, later ones wait until the
//   window ends and go out together, in one socket write. Commits at 1,000/s
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
/** The decision for the dispatch running now: every watcher of one commit is treated alike. */
let decision: boolean | undefined;
let held: Paced[] = [];
let flushTimer: NodeJS.Timeout | undefined;

function forgetDecision(): void {
  decision = undefined;
}

/** Whether a live batch dispatched now is written at once (else it is held until the window ends). */
export function liveWriteNow(): boolean {
  if (decision === undefined) {
    const now = performance.now();
    decision = now >= windowEnd;
    if (decision) windowEnd = now + LIVE_WINDOW_MS;
    // One dispatch delivers to every watcher synchronously: decide once for all of them.
    queueMicrotask(forgetDecision);
  }
  return decision;
}

/** Has `o` write its held live batches when the window ends. */
export function holdLive(o: Paced): void {
  held.push(o);
  flushTimer ??= setTimeout(flushHeld, Math.max(0, windowEnd - performance.now()));
}

function flushHeld(): void {
  flushTimer = undefined;
  windowEnd = performance.now() + LIVE_WINDOW_MS;
  const due = held;
  held = [];
  for (const o of due) o.step();
}
