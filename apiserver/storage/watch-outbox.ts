// What one watcher still has to send, in order: live batches from the hub,
// a replay after a resume, the initial events of a list-then-watch,
// bookmarks. Live batches go out in one write per pacing window (see
// watch-pacing.ts); a replay or a list goes out a block per turn, pausing
// while the socket is full, so a hundred watchers resuming together never
// stall the apiserver. Live batches that arrive meanwhile queue behind.
import { encodedBatch, eventLine, nextReplayBlock, type Replay } from './watch-encoding.ts';
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
   * Set when this watcher sees exactly what every watcher with the same key
   * sees (objects as stored, no selector): encodings are then shared.
   */
  rangeKey?: string;
  /** More than `maxBacklogBytes` of live events are waiting: the watcher cannot keep up. */
  onOverflow(backlog: number): void;
  maxBacklogBytes: number;
}

type Part =
  /** A batch from the hub, counted against the backlog limit while it waits. */
  | { kind: 'live'; events: WatchEvent[]; bytes: number }
  /** Events from the change log. */
  | { kind: 'replay'; replay: Replay; pos: number }
  /** The initial ADDED events of a list. */
  | { kind: 'initial'; items: string[]; pos: number }
  | { kind: 'lines'; lines: string[] };

/** Pause once the socket holds this much, until it drains. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** Events rendered per turn when their encoding cannot be shared. */
const EVENTS_PER_TURN = 64;

function jsonBytes(events: readonly WatchEvent[]): number {
  let n = 0;
  for (const ev of events) n += ev.json.length;
  return n;
}

/** See the file comment. */
export class WatchOutbox implements Paced {
  private readonly queue: Part[] = [];
  /** JSON bytes of the live events queued (replays and initial events only reference stored strings). */
  private liveBytes = 0;
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly sink: OutboxSink,
    private readonly opts: OutboxOptions,
  ) {}

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
    this.queue.push({ kind: 'live', events, bytes });
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
    if (this.queue.length === 0) this.sink.send(lines);
    else this.enqueue({ kind: 'lines', lines });
  }

  /** Drops whatever is queued; nothing more is written. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.liveBytes = 0;
  }

  private enqueue(part: Part): void {
    this.queue.push(part);
    if (!this.checkBacklog()) this.schedule();
  }

  /** Reports an overflow; true when it did. */
  private checkBacklog(): boolean {
    const backlog = this.sink.backlog() + this.liveBytes;
    if (backlog <= this.opts.maxBacklogBytes) return false;
    this.opts.onOverflow(backlog);
    return true;
  }

  private schedule(): void {
    if (this.scheduled || this.closed) return;
    this.scheduled = true;
    wantTurn(this);
  }

  /** Called on its turn: writes the next block (or the live batches queued next), then waits for another turn or for the socket to drain. */
  step(): void {
    this.scheduled = false;
    this.sink.cork?.();
    try {
      this.writeSome();
    } finally {
      this.sink.uncork?.();
    }
  }

  private writeSome(): void {
    for (;;) {
      if (this.closed) return;
      const part = this.queue[0];
      if (!part) return;
      const small = this.writePart(part);
      if (this.queue.length === 0 || this.checkBacklog()) return;
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
        this.sink.send(part.lines);
        this.queue.shift();
        return true;
      case 'live':
        this.writeLive(part.events);
        this.liveBytes -= part.bytes;
        this.queue.shift();
        return true;
      case 'initial': {
        const to = Math.min(part.items.length, part.pos + EVENTS_PER_TURN);
        const render = this.opts.render;
        const lines: string[] = [];
        for (let i = part.pos; i < to; i++) lines.push(eventLine('ADDED', render ? render(part.items[i]) : part.items[i]));
        this.sink.send(lines);
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

  /** A live batch, in one write: every watcher of this range got this very array, so it shares one encoding. */
  private writeLive(events: WatchEvent[]): void {
    if (this.opts.rangeKey !== undefined && this.sink.sendChunk) this.sink.sendChunk(encodedBatch(events));
    else this.sendLines(events, 0, events.length);
  }

  /** The next block of a replay, in one write; returns where the next block starts. */
  private writeReplay(replay: Replay, from: number): number {
    let to: number;
    if (this.opts.rangeKey !== undefined && this.sink.sendChunk) {
      const block = nextReplayBlock(this.opts.rangeKey, replay, from);
      this.sink.sendChunk(block.chunk);
      to = block.to;
    } else {
      to = Math.min(replay.events.length, from + EVENTS_PER_TURN);
      this.sendLines(replay.events, from, to);
    }
    return to;
  }

  private sendLines(events: readonly WatchEvent[], from: number, to: number): void {
    const render = this.opts.render;
    const lines: string[] = [];
    for (let i = from; i < to; i++) lines.push(eventLine(events[i].type, render ? render(events[i].json) : events[i].json));
    this.sink.send(lines);
  }
}
