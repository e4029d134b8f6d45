// The faults in effect: each with its ChaosRequest, when it was injected,
// how to undo it, and (with a duration) the timer that undoes it. A fault
// ends by `recover` (its undo runs), by its timer, or by the same thing
// being undone another way (`start` after `kill`, a restart by
// --restart=on-failure, `heal` after `partition`): then it is only
// forgotten. Either way a ChaosRecovered is recorded.
import type { ObjectReference } from 'kubernetes-types/core/v1.js';
import type { Logger } from 'pino';
import type { ActiveFault, ApiserverFaultSpec, ChaosRequest } from '../../shared/chaos/protocol.ts';
import type { ChaosRecorder } from './chaos-record.ts';

/** A fault in effect, with what the supervisor needs to undo or re-apply it. */
export interface FaultEntry {
  fault: ActiveFault;
  /** Undoes the fault; resolves with the line to report. */
  undo: () => Promise<string>;
  /** The objects its Events name. */
  objects: ObjectReference[];
  /** The component (or node/NAME) it is on, for `start`/`heal` to find it. */
  on: string;
  /** An apiserver fault, re-sent when the apiserver starts again (it lives in its memory). */
  apiserverSpec?: ApiserverFaultSpec;
  /** A clock skew, re-sent when that component starts again. */
  skewMs?: number;
  timer?: NodeJS.Timeout;
}

/** The active faults. */
export class FaultRegistry {
  private readonly entries = new Map<string, FaultEntry>();
  private seq = 0;

  constructor(
    private readonly recorder: ChaosRecorder,
    private readonly log: Logger,
  ) {}

  /** A new fault id: its action and a sequence number (partition-3). */
  newId(req: ChaosRequest): string {
    return `${req.action}-${++this.seq}`;
  }

  /** Records a fault as in effect (after it was injected); with a duration, its undo is scheduled. */
  add(id: string, req: ChaosRequest, message: string, entry: Omit<FaultEntry, 'fault' | 'timer'>): ActiveFault {
    const now = Date.now();
    const fault: ActiveFault = {
      id,
      request: req,
      injectedAt: new Date(now).toISOString(),
      ...(req.durationMs !== undefined ? { recoversAt: new Date(now + req.durationMs).toISOString() } : {}),
      message,
    };
    const e: FaultEntry = { ...entry, fault };
    if (req.durationMs !== undefined) {
      e.timer = setTimeout(() => {
        this.recover(id, `after ${req.durationMs}ms`).catch((err) =>
          this.log.error({ fault: id, err: (err as Error).message }, `could not undo fault ${id} at the end of its duration`),
        );
      }, req.durationMs);
    }
    this.entries.set(id, e);
    return fault;
  }

  list(): ActiveFault[] {
    return [...this.entries.values()].map((e) => e.fault);
  }

  entriesWhere(pred: (e: FaultEntry) => boolean): FaultEntry[] {
    return [...this.entries.values()].filter(pred);
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Undoes fault `id`; resolves with what was done. If the undo fails the fault stays. */
  async recover(id: string, why = ''): Promise<string> {
    const e = this.entries.get(id);
    if (!e) throw new Error(`no active fault "${id}"`);
    const line = await e.undo();
    // The undo may have ended it already (a start after a kill forgets the kill).
    if (this.entries.has(id)) this.end(e, `${line}${why ? ` (${why})` : ''}`);
    return line;
  }

  /** Undoes every fault, the newest first; resolves with the lines and the failures. */
  async recoverAll(): Promise<{ done: string[]; failed: string[] }> {
    const done: string[] = [];
    const failed: string[] = [];
    for (const id of [...this.entries.keys()].reverse()) {
      try {
        done.push(await this.recover(id));
      } catch (err) {
        failed.push(`${id}: ${(err as Error).message}`);
      }
    }
    return { done, failed };
  }

  /** Ends the faults `pred` picks without undoing them (they were undone another way). */
  forget(pred: (e: FaultEntry) => boolean, line: string): string[] {
    const gone = this.entriesWhere(pred);
    for (const e of gone) this.end(e, `${line} (fault ${e.fault.id})`);
    return gone.map((e) => e.fault.id);
  }

  /** Stops every timer (the supervisor is stopping). */
  close(): void {
    for (const e of this.entries.values()) clearTimeout(e.timer);
  }

  private end(e: FaultEntry, line: string): void {
    clearTimeout(e.timer);
    this.entries.delete(e.fault.id);
    void this.recorder.record('ChaosRecovered', line, e.objects, { fault: e.fault.id });
  }
}
