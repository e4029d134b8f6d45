// Watch-level faults: every open watch's transport is wrapped here (one
// object per watch, nothing per event while no fault matches it: send goes
// straight through), so that a fault can delay its events, hold them back,
// or close it. Order is kept: while a watch is delayed or held, everything
// it would send (events, bookmarks, an ERROR, the end of the stream) waits
// in one queue and leaves in the order it came.
//
// Held or delayed events are bounded: once a watch has more than
// MAX_PENDING_BYTES waiting, what waits is dropped and the watch ends with
// kube's 410 Expired ERROR event, as a watch cache that has moved past a
// watcher ends it, so the client relists instead of the apiserver holding
// an ever-growing stale backlog. Clearing a hold or a delay sends what waits
// at once, in order.
//
// A dropped watch ends cleanly (the chunked stream's last chunk, a WebSocket
// close frame), as kube ends a watch it terminates: client-go watches again
// from its last resourceVersion, and a watch that ends within a second with
// no event makes its reflector back off and relist.
import type { Logger } from 'pino';
import type { RequestMatch } from '../../shared/chaos/protocol.ts';
import { gone } from '../../shared/api/errors.ts';
import type { OutboxSink } from '../storage/watch-outbox.ts';
import { eventLine } from '../storage/watch-encoding.ts';
import { apiserverFaults, type WatchVerdict } from './fault-table.ts';
import { matches, type RequestTarget } from './match.ts';
import { countInjected } from './metrics.ts';

/** The transport of a watch (handlers/watch.ts WatchTransport, restated here so that neither file imports the other). */
export interface ChaosWatchTransport extends OutboxSink {
  close(): void;
  abort(): void;
  onClose(cb: () => void): void;
}

/** Most bytes a held or delayed watch keeps waiting before it is ended with 410 Expired. */
export const MAX_PENDING_BYTES = 16 * 1024 * 1024;

type Pending = { due?: number; bytes: number } & (
  { kind: 'lines'; lines: string[] } | { kind: 'chunk'; chunk: Buffer } | { kind: 'close' }
);

const open = new Set<FaultedWatch>();
let log: Logger | undefined;

/** Where watch faults log (the apiserver's logger). */
export function setWatchFaultLog(l: Logger): void {
  log = l;
}

/** A watch's transport with the faults in front of it. */
class FaultedWatch implements ChaosWatchTransport {
  private verdict: WatchVerdict = { drop: false, hold: false, delayMs: 0 };
  private gated = false;
  private pending: Pending[] = [];
  private pendingBytes = 0;
  private lastDue = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  sendChunk?: (chunk: Buffer) => void;
  onDrain?: (cb: () => void) => void;

  constructor(
    private readonly inner: ChaosWatchTransport,
    readonly target: RequestTarget,
  ) {
    if (inner.sendChunk)
      this.sendChunk = (chunk) => {
        if (this.closed) return;
        if (!this.gated) this.inner.sendChunk!(chunk);
        else this.enqueue({ kind: 'chunk', chunk, bytes: chunk.length });
      };
    if (inner.onDrain) this.onDrain = (cb) => this.inner.onDrain!(cb);
    inner.onClose(() => this.finished());
  }

  send(lines: string[]): void {
    if (this.closed) return;
    if (!this.gated) return this.inner.send(lines);
    let bytes = 0;
    for (const l of lines) bytes += l.length + 1;
    this.enqueue({ kind: 'lines', lines, bytes });
  }

  backlog(): number {
    return this.inner.backlog();
  }

  cork(): void {
    this.inner.cork?.();
  }

  uncork(): void {
    this.inner.uncork?.();
  }

  close(): void {
    if (this.closed) return;
    if (this.gated) this.enqueue({ kind: 'close', bytes: 0 });
    else this.inner.close();
  }

  abort(): void {
    this.discard();
    this.inner.abort();
  }

  onClose(cb: () => void): void {
    this.inner.onClose(cb);
  }

  /** Ends the watch now, dropping what waits (a watchDrop fault, apiserver.watches.drop). */
  drop(): void {
    if (this.closed) return;
    countInjected('watch-drop');
    this.discard();
    this.closed = true;
    this.inner.close();
  }

  /** Takes the faults' verdict for this watch (at its start, and after every change of the faults). */
  apply(v: WatchVerdict): void {
    if (this.closed) return;
    if (v.drop) return this.drop();
    if (v.hold && !this.verdict.hold) countInjected('watch-hold');
    if (v.delayMs > 0 && this.verdict.delayMs === 0) countInjected('watch-delay');
    this.verdict = v;
    this.gated = v.hold || v.delayMs > 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.gated) {
      this.flush(Infinity);
      return;
    }
    if (v.hold) return;
    // Released from a hold into a delay: what was held leaves one delay from now, together.
    const due = Date.now() + v.delayMs;
    for (const p of this.pending) if (p.due === undefined) p.due = Math.max(due, this.lastDue);
    this.lastDue = Math.max(this.lastDue, due);
    this.schedule();
  }

  private enqueue(p: Pending): void {
    if (!this.verdict.hold) {
      // Never before what is already waiting: a shorter delay set later must not reorder.
      p.due = Math.max(Date.now() + this.verdict.delayMs, this.lastDue);
      this.lastDue = p.due;
    }
    this.pending.push(p);
    this.pendingBytes += p.bytes;
    if (this.pendingBytes > MAX_PENDING_BYTES) return this.expire();
    if (!this.verdict.hold && !this.timer) this.schedule();
  }

  /** Too much waits: drop it and end the watch with kube's 410, so that the client relists. */
  private expire(): void {
    log?.warn(
      { resource: this.target.resource, user: this.target.user, pendingBytes: this.pendingBytes },
      'chaos: a held or delayed watch has too much waiting; ending it with 410 Expired so that its client relists',
    );
    countInjected('watch-drop');
    this.discard();
    this.closed = true;
    const status = gone('The resourceVersion for the provided watch is too old.').toStatus();
    this.inner.send([eventLine('ERROR', JSON.stringify(status))]);
    this.inner.close();
  }

  private schedule(): void {
    const head = this.pending[0];
    if (!head || head.due === undefined) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.flush(Date.now());
        this.schedule();
      },
      Math.max(0, head.due - Date.now()),
    );
    this.timer.unref();
  }

  /** Sends, in order, everything due by `now`. */
  private flush(now: number): void {
    let n = 0;
    while (n < this.pending.length && (this.pending[n].due ?? Infinity) <= now) n++;
    if (now === Infinity) n = this.pending.length;
    if (n === 0) return;
    const out = this.pending.splice(0, n);
    this.inner.cork?.();
    try {
      for (const p of out) {
        this.pendingBytes -= p.bytes;
        if (p.kind === 'lines') this.inner.send(p.lines);
        else if (p.kind === 'chunk') this.inner.sendChunk!(p.chunk);
        else {
          this.closed = true;
          this.discard();
          this.inner.close();
          break;
        }
      }
    } finally {
      this.inner.uncork?.();
    }
  }

  private discard(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = [];
    this.pendingBytes = 0;
  }

  private finished(): void {
    this.closed = true;
    this.discard();
    open.delete(this);
  }
}

apiserverFaults.onChange(() => {
  for (const w of open) w.apply(apiserverFaults.watch(w.target));
});

/**
 * Wraps a watch's transport (handlers/watch.ts, at the start of every
 * watch). A watch that a dropping fault matches is closed right after it starts.
 */
export function trackWatch<T extends ChaosWatchTransport>(t: T, target: RequestTarget): ChaosWatchTransport {
  const w = new FaultedWatch(t, target);
  open.add(w);
  if (apiserverFaults.watchFaults) {
    const verdict = apiserverFaults.watch(target);
    if (verdict.drop) setImmediate(() => w.drop());
    else w.apply(verdict);
  }
  return w;
}

/** Closes every open watch `match` names (all of them without one); returns how many. */
export function dropWatches(match?: RequestMatch): number {
  let n = 0;
  for (const w of [...open]) {
    if (!matches(match, w.target)) continue;
    w.drop();
    n++;
  }
  return n;
}

/** Number of open watches (tests). */
export function openWatchCount(): number {
  return open.size;
}
