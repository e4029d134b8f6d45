// A PersistenceBackend that keeps everything in process memory: for unit
// tests of the store and for benchmarks that separate disk cost from the rest.
// Its methods do their work at once and answer with a settled promise.
import type { ChangeEvent, PersistOp, PersistenceBackend } from './types.ts';

/** Volatile persistence with the same contract as LevelBackend. */
export class MemoryBackend implements PersistenceBackend {
  readonly objects = new Map<string, { rev: number; json: string }>();
  readonly log: ChangeEvent[] = [];
  rev = 0;
  compacted = 0;
  commits = 0;

  loadObjects(onObject: (key: string, rev: number, json: string) => void): Promise<void> {
    for (const key of [...this.objects.keys()].sort()) {
      const o = this.objects.get(key)!;
      onObject(key, o.rev, o.json);
    }
    return Promise.resolve();
  }

  loadLog(afterRev: number, onEvent: (event: ChangeEvent) => void): Promise<void> {
    for (const e of this.log) if (e.rev > afterRev) onEvent({ rev: e.rev, type: e.type, key: e.key, json: e.json, prevRev: e.prevRev });
    return Promise.resolve();
  }

  loadMeta(): Promise<{ rev: number; compacted: number }> {
    return Promise.resolve({ rev: this.rev, compacted: this.compacted });
  }

  commit(ops: PersistOp[], rev: number): Promise<void> {
    this.commits++;
    for (const { event } of ops) {
      if (event.type === 'DELETED') this.objects.delete(event.key);
      else this.objects.set(event.key, { rev: event.rev, json: event.json });
      this.log.push(event);
    }
    this.rev = rev;
    return Promise.resolve();
  }

  recover(failed: ChangeEvent[], rev: number): Promise<void> {
    // The newest first, so that a key written twice in the batch ends at its version before the batch.
    for (const event of [...failed].reverse()) {
      if (event.prevRev === 0) this.objects.delete(event.key);
      else if (event.prev !== undefined) this.objects.set(event.key, { rev: event.prevRev, json: event.prev });
    }
    const revs = new Set(failed.map((e) => e.rev));
    for (let i = this.log.length - 1; i >= 0; i--) if (revs.has(this.log[i].rev)) this.log.splice(i, 1);
    this.rev = rev;
    return Promise.resolve();
  }

  compact(rev: number): Promise<void> {
    while (this.log.length > 0 && this.log[0].rev <= rev) this.log.shift();
    this.compacted = rev;
    return Promise.resolve();
  }

  sizeBytes(): Promise<number> {
    let n = 0;
    for (const [k, v] of this.objects) n += k.length + v.json.length;
    return Promise.resolve(n);
  }

  async close(): Promise<void> {}
}
