// What one watcher still has to send, in order: live batches from the hub,
// a replay after a resume, the initial events of a list-then-watch,
// bookmarks. Live batches go out in one write per pacing window (see
// watch-pacing.ts); a replay or a list goes out a block per turn, pausing
// while the socket is full, so a hundred watchers resuming together never
// stall the apiserver. Live batches that arrive meanwhile queue behind.
// What is queued is bounded per watcher (maxBacklogBytes) and, through the
// budget, over all watchers together (watch-budget.ts).
import { watchBudget, type Budgeted, type DropReason, type WatchBudget } from './watch-budget.ts';
import { encodedBatch, encodedEvent, eventLine, nextReplayBlock, type Replay } from './watch-encoding.ts';
import type { WatchEvent } from './watch-hub.ts';
import { holdLive, wantTurn, type Paced } from './watch-pacing.ts';

/** Where the outbox writes: a watch transport. */
export interface OutboxSink {
  /** Sends complete event lines (no newlines). */
  send(lines: string[]): void;
  /** Sends newline-terminated NDJSON, possibly shared with other watchers (streams that take many events per write). */
  sendChunk?(chunk: Buffer): void;
  /** Bytes queued but not yet written to the peer. */
  backlog(): number;
  /** Calls `cb` once what is queued has been written out. */
  onDrain?(cb: () => void): void;
  /** Between cork() and uncork(), writes are gathered into one. */
  cork?(): void;
  uncork?(): void;
}

/** How the outbox renders and shares. */
export interface OutboxOptions {
  /** Renders an object for this watcher; absent when objects go out as stored. */
  render?: (json: string) => string;
  /**
   * Set when `render` gives the same text for the same object to every
   * watcher with this key (a view that depends on nothing but the object):
   * live batches are then encoded once for all of them.
   */
  renderKey?: string;
  /**
   * Set when this watcher sees exactly what every watcher with the same key
   * sees (objects as stored, no selector): encodings are then shared.
   */
  rangeKey?: string;
  /** The watcher cannot keep up (more than `maxBacklogBytes` queued) or the total budget is spent: it must be dropped. */
  onOverflow(backlog: number, reason: DropReason): void;
  maxBacklogBytes: number;
  /** The budget over all watchers (the process's one by default). */
  budget?: WatchBudget;
  /** Dropped when more than the socket's high-water mark has waited this long without a byte leaving (default STALL_MS). */
  stallMs?: number;
  /** The clock for stalls (tests). */
  now?: () => number;
}

type Part =
  /** A batch from the hub, counted against the backlog limit while it waits. */
  | { kind: 'live'; events: WatchEvent[]; bytes: number; counted: boolean }
  /** Events from the change log. */
  | { kind: 'replay'; replay: Replay; pos: number }
  /** The initial ADDED events of a list. */
  | { kind: 'initial'; items: string[]; pos: number }
  | { kind: 'lines'; lines: string[] };

/** Pause once the socket holds this much, until it drains. */
const HIGH_WATER_BYTES = 1024 * 1024;
/**
 * A peer that has left more than HIGH_WATER_BYTES unread for this long
 * while events keep coming is not reading: kube's cacher terminates such a
 * watcher as soon as its buffer of events is full and stays full; this is
 * more patient (a paused terminal, a stop in a debugger), yet it frees what a
 * client that stopped reading holds long before the 64 MiB limit would.
 */
export const STALL_MS = 10_000;
/** Events rendered per turn when their encoding cannot be shared, and at most about this many bytes of them. */
const EVENTS_PER_TURN = 64;
const BYTES_PER_TURN = 256 * 1024;

function jsonBytes(events: readonly WatchEvent[]): number {
  let n = 0;
  for (const ev of events) n += ev.json.length;
  return n;
}

/** See the file comment. */
export class WatchOutbox implements Paced, Budgeted {
  private readonly queue: Part[] = [];
  /** JSON bytes of the live events queued, this watcher's own measure of how far behind it is (replays and initial events only reference stored strings). */
  private liveBytes = 0;
  private scheduled = false;
  private closed = false;
  private readonly budget: WatchBudget;
  private readonly now: () => number;
  /** The socket's backlog when last looked at: anything less later, with no write in between, means the peer read. */
  private sinkMark = 0;
  /** Since when the socket has been over its high-water mark without the peer reading; undefined while it reads. */
  private stalledSince: number | undefined;
  /**
   * What the socket may still hold, oldest first, from `heldHead` on: each
   * buffer handed to it (shared ones by reference, so that the budget counts
   * them once) or the size of lines rendered for this watcher alone.
   */
  private held: { ref?: object; bytes: number }[] = [];
  private heldHead = 0;
  private heldBytes = 0;
  /** What this step handed the socket, counted at its end only if the socket did not take it all. */
  private readonly stepRefs: (object | undefined)[] = [];
  private readonly stepBytes: number[] = [];
  private stepping = false;

  constructor(
    private readonly sink: OutboxSink,
    private readonly opts: OutboxOptions,
  ) {
    this.budget = opts.budget ?? watchBudget;
    this.now = opts.now ?? (() => performance.now());
    this.budget.join(this);
  }

  /** Bytes this watcher has queued: live batches not yet written, and what its socket still holds. */
  queuedBytes(): number {
    return this.closed ? 0 : this.sink.backlog() + this.liveBytes;
  }

  /** Lets go (in the budget) of what the socket has written: sockets write in order, so what it still holds is the newest of what it was given. */
  refresh(): void {
    if (this.heldHead === this.held.length) return;
    const backlog = this.sink.backlog();
    while (this.heldHead < this.held.length) {
      const h = this.held[this.heldHead];
      if (backlog > 0 && this.heldBytes - h.bytes < backlog) break;
      this.budget.release(h.ref, h.bytes);
      this.heldBytes -= h.bytes;
      this.heldHead++;
    }
    if (this.heldHead === this.held.length) {
      this.held.length = 0;
      this.heldHead = 0;
    } else if (this.heldHead > 1024 && this.heldHead * 2 > this.held.length) {
      this.held = this.held.slice(this.heldHead);
      this.heldHead = 0;
    }
  }

  /** Called by the budget: the total is over it and this watcher is among the furthest behind. */
  drop(): void {
    if (this.closed) return;
    this.opts.onOverflow(this.queuedBytes(), 'total');
  }

  /** True when everything pushed has been handed to the transport. */
  get idle(): boolean {
    return this.queue.length === 0;
  }

  /** A batch from the hub: written when the pacing lets live batches out (see watch-pacing.ts), after anything queued before it. */
  pushLive(events: WatchEvent[]): void {
    if (this.closed || events.length === 0) return;
    const wasIdle = this.queue.length === 0;
    const bytes = jsonBytes(events);
    this.liveBytes += bytes;
    // Counted while it waits behind something else (a watcher that keeps up writes it within the pacing window), once however many watchers hold the array.
    this.queue.push({ kind: 'live', events, bytes, counted: !wasIdle });
    if (!wasIdle) this.budget.hold(events, bytes);
    if (this.checkBacklog()) return;
    if (wasIdle) {
      this.scheduled = true;
      holdLive(this);
    } else this.schedule();
  }

  /** This watcher's events of the revisions after `afterRev` through `throughRev`, replayed from the change log. */
  pushReplay(events: WatchEvent[], afterRev: number, throughRev: number): void {
    if (this.closed || events.length === 0) return;
    this.enqueue({ kind: 'replay', replay: { events, afterRev, throughRev }, pos: 0 });
  }

  /** The initial ADDED events of a list. */
  pushInitial(items: string[]): void {
    if (this.closed || items.length === 0) return;
    this.enqueue({ kind: 'initial', items, pos: 0 });
  }

  /** Ready-made lines (bookmarks, errors). */
  pushLines(lines: string[]): void {
    if (this.closed || lines.length === 0) return;
    if (this.queue.length === 0) this.sendOwn(lines);
    else this.enqueue({ kind: 'lines', lines });
  }

  /** Drops whatever is queued; nothing more is written. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const part of this.queue) if (part.kind === 'live' && part.counted) this.budget.release(part.events, part.bytes);
    this.queue.length = 0;
    this.liveBytes = 0;
    for (let i = this.heldHead; i < this.held.length; i++) this.budget.release(this.held[i].ref, this.held[i].bytes);
    this.held = [];
    this.heldHead = 0;
    this.heldBytes = 0;
    this.budget.leave(this);
  }

  private enqueue(part: Part): void {
    this.queue.push(part);
    if (!this.checkBacklog()) this.schedule();
  }

  /**
   * Updates what the budget counts for this watcher, and reports an
   * overflow or a stall; true when this watcher was dropped. Called before
   * and after every write, so a socket backlog lower than the one seen last
   * means the peer read.
   */
  private checkBacklog(): boolean {
    this.refresh();
    const sinkBacklog = this.sink.backlog();
    const backlog = sinkBacklog + this.liveBytes;
    if (backlog > this.opts.maxBacklogBytes) {
      this.opts.onOverflow(backlog, 'watcher');
      return true;
    }
    if (sinkBacklog <= HIGH_WATER_BYTES || sinkBacklog < this.sinkMark) this.stalledSince = undefined;
    else if (this.stalledSince === undefined) this.stalledSince = this.now();
    else if (this.now() - this.stalledSince > (this.opts.stallMs ?? STALL_MS)) {
      this.opts.onOverflow(backlog, 'stalled');
      return true;
    }
    this.sinkMark = sinkBacklog;
    this.budget.check();
    return this.closed;
  }

  /** Hands the socket a buffer that other watchers may be sending too. */
  private sendShared(chunk: Buffer): void {
    this.sink.sendChunk!(chunk);
    this.sent(chunk, chunk.length);
  }

  /** Hands the socket lines rendered for this watcher alone. */
  private sendOwn(lines: string[]): void {
    this.sink.send(lines);
    let bytes = 0;
    for (const l of lines) bytes += l.length + 1;
    this.sent(undefined, bytes);
  }

  private sent(ref: object | undefined, bytes: number): void {
    if (this.stepping) {
      this.stepRefs.push(ref);
      this.stepBytes.push(bytes);
    } else {
      this.track(ref, bytes);
      this.refresh();
    }
  }

  private track(ref: object | undefined, bytes: number): void {
    this.held.push({ ref, bytes });
    this.heldBytes += bytes;
    this.budget.hold(ref, bytes);
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    wantTurn(this);
  }

  /** Called on its turn: writes the next block (or the live batches queued next), then waits for another turn or for the socket to drain. */
  step(): void {
    this.scheduled = false;
    this.stepping = true;
    this.sink.cork?.();
    try {
      this.writeSome();
    } finally {
      this.sink.uncork?.();
      this.stepping = false;
    }
    // Uncorked, a peer that keeps up has taken it all: nothing to count (the usual case, and no bookkeeping).
    const n = this.stepRefs.length;
    if (n > 0) {
      if (!this.closed && this.sink.backlog() > 0) for (let i = 0; i < n; i++) this.track(this.stepRefs[i], this.stepBytes[i]);
      this.stepRefs.length = 0;
      this.stepBytes.length = 0;
    }
    if (this.closed || (n === 0 && this.heldHead === this.held.length)) return;
    this.refresh();
    this.budget.check();
  }

  private writeSome(): void {
    if (this.closed || this.checkBacklog()) return;
    for (;;) {
      if (this.closed) return;
      const part = this.queue[0];
      if (!part) return;
      const small = this.writePart(part);
      if (this.checkBacklog() || this.queue.length === 0) return;
      if (this.sink.onDrain && this.sink.backlog() > HIGH_WATER_BYTES) {
        this.scheduled = true;
        this.sink.onDrain(() => {
          this.scheduled = false;
          this.schedule();
        });
        return;
      }
      // Live batches waiting behind a replay catch up together; a block of a replay or list is one turn's share.
      if (!small || (this.queue[0].kind !== 'live' && this.queue[0].kind !== 'lines')) break;
    }
    this.schedule();
  }

  /** Writes the next piece of `part` (the head of the queue); true when it was a small one. */
  private writePart(part: Part): boolean {
    switch (part.kind) {
      case 'lines':
        this.sendOwn(part.lines);
        this.queue.shift();
        return true;
      case 'live':
        this.writeLive(part.events);
        if (part.counted) this.budget.release(part.events, part.bytes);
        this.liveBytes -= part.bytes;
        this.queue.shift();
        return true;
      case 'initial': {
        const end = Math.min(part.items.length, part.pos + EVENTS_PER_TURN);
        const render = this.opts.render;
        const lines: string[] = [];
        let bytes = 0;
        let to = part.pos;
        while (to < end && (to === part.pos || bytes < BYTES_PER_TURN)) {
          const line = eventLine('ADDED', render ? render(part.items[to]) : part.items[to]);
          bytes += line.length;
          lines.push(line);
          to++;
        }
        this.sendOwn(lines);
        part.pos = to;
        if (to === part.items.length) this.queue.shift();
        return false;
      }
      case 'replay':
        part.pos = this.writeReplay(part.replay, part.pos);
        if (part.pos === part.replay.events.length) this.queue.shift();
        return false;
    }
  }

  /**
   * A live batch, in one write. The hub hands the very same array to every
   * watcher that sees the same events (a range, or selectors that let the
   * same events through as the same types), so they share one encoding.
   */
  private writeLive(events: WatchEvent[]): void {
    const { render, renderKey } = this.opts;
    if (this.sink.sendChunk && (!render || renderKey !== undefined))
      this.sendShared(encodedBatch(events, render && { key: renderKey!, render }));
    else this.sendLines(events, 0, events.length, true);
  }

  /** The next block of a replay, in one write; returns where the next block starts. */
  private writeReplay(replay: Replay, from: number): number {
    let to: number;
    if (this.opts.rangeKey !== undefined && this.sink.sendChunk) {
      const block = nextReplayBlock(this.opts.rangeKey, replay, from);
      this.sendShared(block.chunk);
      to = block.to;
    } else if (this.sink.sendChunk && !this.opts.render) {
      // A selector's replay is its own list, but mostly of the change log's own event objects: their lines are shared.
      const end = Math.min(replay.events.length, from + EVENTS_PER_TURN);
      let bytes = 0;
      for (to = from; to < end && (to === from || bytes < BYTES_PER_TURN); to++) {
        const line = encodedEvent(replay.events[to]);
        bytes += line.length;
        this.sendShared(line);
      }
    } else {
      to = this.sendLines(replay.events, from, Math.min(replay.events.length, from + EVENTS_PER_TURN));
    }
    return to;
  }

  /** Sends events from `from` up to `to`, or fewer once about BYTES_PER_TURN are rendered; returns where it stopped. */
  private sendLines(events: readonly WatchEvent[], from: number, to: number, all = false): number {
    const render = this.opts.render;
    const lines: string[] = [];
    let bytes = 0;
    let i = from;
    while (i < to && (all || i === from || bytes < BYTES_PER_TURN)) {
      const line = eventLine(events[i].type, render ? render(events[i].json) : events[i].json);
      bytes += line.length;
      lines.push(line);
      i++;
    }
    this.sendOwn(lines);
    return i;
  }
}
