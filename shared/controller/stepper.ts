// Step-through of a component's reconciliation: each controller's workers
// pass a gate before every work item; a paused controller holds its items
// there until it is stepped (one item at a time) or resumed. Every item
// leaves a record: the key, the watch events that queued it, what the
// controller noted while reconciling it (want vs have, the arithmetic of
// its decision), how it ended and how long it took, so a learner can watch
// one reconcile at a time. One stepper per process (`stepper`), shown and
// driven through the component's own port (stepper-routes.ts).

/** What a reconcile notes about its decision: plain JSON values. */
export type DecisionNotes = Record<string, unknown>;

/** One work item: queued, waiting at a paused gate, running, or done. */
export interface ItemRecord {
  /** Increasing per process: the order items were taken. */
  id: number;
  controller: string;
  key: string;
  /** The resourceVersions of the watch events that queued the key. */
  triggers: string[];
  state: 'waiting' | 'running' | 'done' | 'failed';
  /** When the item was taken from the queue, and when it started and ended (ms since the epoch). */
  takenAt: number;
  startedAt?: number;
  endedAt?: number;
  /** What the reconcile noted, in the order it noted it. */
  notes: DecisionNotes[];
  /** The error message of a failed reconcile; the requeue delay of one that asked for it. */
  error?: string;
  requeueAfterMs?: number;
}

/** What a reconcile gets for its item: a way to note what it saw and decided. */
export interface ReconcileItem {
  note(notes: DecisionNotes): void;
}

const RECENT = 50;

interface ControllerGate {
  paused: boolean;
  /** Items held at the gate, oldest first, each with the function that lets it through. */
  waiting: { record: ItemRecord; release: () => void }[];
  recent: ItemRecord[];
  /** Called when an item that was let through by a step ends. */
  onEnd: Map<number, (r: ItemRecord) => void>;
}

/** A snapshot of one controller's gate, for the port and the CLI. */
export interface ControllerSteps {
  controller: string;
  paused: boolean;
  waiting: ItemRecord[];
  recent: ItemRecord[];
}

/** See the file comment. */
export class ReconcileStepper {
  private readonly gates = new Map<string, ControllerGate>();
  private nextId = 1;

  constructor(private readonly now: () => number = Date.now) {}

  private gate(controller: string): ControllerGate {
    let g = this.gates.get(controller);
    if (!g) this.gates.set(controller, (g = { paused: false, waiting: [], recent: [], onEnd: new Map() }));
    return g;
  }

  /** Registers a controller (so it is listed before it takes its first item). */
  register(controller: string): void {
    this.gate(controller);
  }

  /** The controllers, in registration order. */
  controllers(): string[] {
    return [...this.gates.keys()];
  }

  /**
   * Called by a worker with the item it took: resolves at once unless the
   * controller is paused, then when the item is stepped or the controller
   * resumed. The record is kept (the newest RECENT per controller).
   */
  async admit(controller: string, key: string, triggers: readonly string[]): Promise<ItemRecord> {
    const g = this.gate(controller);
    const record: ItemRecord = {
      id: this.nextId++,
      controller,
      key,
      triggers: [...triggers],
      state: 'waiting',
      takenAt: this.now(),
      notes: [],
    };
    g.recent.push(record);
    if (g.recent.length > RECENT) g.recent.shift();
    if (g.paused) await new Promise<void>((release) => g.waiting.push({ record, release }));
    record.state = 'running';
    record.startedAt = this.now();
    return record;
  }

  /** Ends an item admitted with admit(). */
  finish(record: ItemRecord, outcome: { error?: string; requeueAfterMs?: number } = {}): void {
    record.state = outcome.error ? 'failed' : 'done';
    record.endedAt = this.now();
    if (outcome.error) record.error = outcome.error;
    if (outcome.requeueAfterMs !== undefined) record.requeueAfterMs = outcome.requeueAfterMs;
    const g = this.gate(record.controller);
    const done = g.onEnd.get(record.id);
    g.onEnd.delete(record.id);
    done?.(record);
  }

  /** Holds every later item of `controller` (or of every controller, for "all") at the gate. */
  pause(controller: string): void {
    for (const name of this.targets(controller)) this.gate(name).paused = true;
  }

  /** Lets every held item through and stops holding. */
  resume(controller: string): void {
    for (const name of this.targets(controller)) {
      const g = this.gate(name);
      g.paused = false;
      for (const w of g.waiting.splice(0)) w.release();
    }
  }

  /**
   * Lets the oldest held item of a paused controller through; resolves with
   * its record once it has ended (or after `timeoutMs`, as it is then).
   * Undefined when no item is held.
   */
  step(controller: string, timeoutMs = 10_000): Promise<ItemRecord> | undefined {
    const g = this.gates.get(controller);
    const next = g?.waiting.shift();
    if (!g || !next) return undefined;
    const ended = new Promise<ItemRecord>((resolve) => {
      g.onEnd.set(next.record.id, resolve);
      setTimeout(() => resolve(next.record), timeoutMs).unref();
    });
    next.release();
    return ended;
  }

  /** Every controller's gate, or one's. */
  snapshot(controller?: string): ControllerSteps[] {
    return [...this.gates]
      .filter(([name]) => controller === undefined || name === controller)
      .map(([name, g]) => ({
        controller: name,
        paused: g.paused,
        waiting: g.waiting.map((w) => w.record),
        recent: [...g.recent].reverse(),
      }));
  }

  private targets(controller: string): string[] {
    if (controller === 'all') return this.controllers();
    return [controller];
  }

  /** Whether `controller` is one this process runs. */
  has(controller: string): boolean {
    return controller === 'all' || this.gates.has(controller);
  }
}

/** The process's stepper. */
export const stepper = new ReconcileStepper();

/** The item handed to a reconcile: notes go to its record. */
export function itemOf(record: ItemRecord): ReconcileItem {
  return { note: (notes) => void record.notes.push(notes) };
}
