// A PersistenceBackend that keeps everything in process memory: for unit
// tests of the store and for benchmarks that separate disk cost from the rest.
// Its methods do their work at once and answer with a settled promise.
import type { ChangeEvent, HistoryPolicy, HistoryRecord, PersistOp, PersistenceBackend, RevisionRecord } from './types.ts';

/** A history record's size as the LevelDB backend counts it, near enough. */
function recordBytes(r: HistoryRecord): number {
  return 2 * r.key.length + r.json.length + (r.writer ? JSON.stringify(r.writer).length : 0) + 80;
}

/** Volatile persistence with the same contract as LevelBackend. */
export class MemoryBackend implements PersistenceBackend {
  readonly objects = new Map<string, { rev: number; json: string }>();
  readonly log: ChangeEvent[] = [];
  rev = 0;
  compacted = 0;
  commits = 0;
  /** History by key, each oldest first; and every record in revision order. */
  readonly history = new Map<string, HistoryRecord[]>();
  readonly revisions: HistoryRecord[] = [];
  historyBytes = 0;

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
    for (const { event, history } of ops) {
      if (history) {
        const rec: HistoryRecord = { rev: event.rev, type: event.type, key: event.key, at: history.at, json: event.json };
        if (history.writer) rec.writer = structuredClone(history.writer);
        let list = this.history.get(event.key);
        if (!list) this.history.set(event.key, (list = []));
        list.push(rec);
        this.revisions.push(rec);
        this.historyBytes += recordBytes(rec);
      }
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
    this.dropHistory(revs);
    this.rev = rev;
    return Promise.resolve();
  }

  compact(rev: number): Promise<void> {
    while (this.log.length > 0 && this.log[0].rev <= rev) this.log.shift();
    this.compacted = rev;
    return Promise.resolve();
  }

  historyOf(key: string, afterRev: number, limit: number): Promise<RevisionRecord[]> {
    const list = this.history.get(key) ?? [];
    return Promise.resolve(list.filter((r) => r.rev > afterRev).slice(0, limit));
  }

  historyRecords(revs: readonly number[]): Promise<HistoryRecord[]> {
    const byRev = new Map(this.revisions.map((r) => [r.rev, r]));
    return Promise.resolve(revs.flatMap((rev) => (byRev.has(rev) ? [structuredClone(byRev.get(rev)!)] : [])));
  }

  historyAt(key: string, rev: number): Promise<{ at?: HistoryRecord; oldest?: RevisionRecord }> {
    const list = this.history.get(key) ?? [];
    let at: HistoryRecord | undefined;
    for (const r of list) if (r.rev <= rev) at = r;
    return Promise.resolve(at ? { at } : list.length > 0 ? { oldest: list[0] } : {});
  }

  historyBetween(afterRev: number, toRev: number, limit: number): Promise<HistoryRecord[]> {
    return Promise.resolve(this.revisions.filter((r) => r.rev > afterRev && r.rev <= toRev).slice(0, Math.max(0, limit)));
  }

  trimHistory(policy: HistoryPolicy, now: number, keys: Iterable<string>): Promise<void> {
    const doomed = new Set<number>();
    const max = policy.maxRevisionsPerObject;
    if (max !== undefined) {
      for (const key of keys) {
        const list = this.history.get(key) ?? [];
        for (const r of list.slice(0, Math.max(0, list.length - max))) doomed.add(r.rev);
      }
    }
    const cutoff = policy.maxAgeMs !== undefined ? now - policy.maxAgeMs : -Infinity;
    let bytes = this.historyBytes;
    for (const r of this.revisions) if (doomed.has(r.rev)) bytes -= recordBytes(r);
    for (const r of this.revisions) {
      const over = policy.maxBytes !== undefined && bytes > policy.maxBytes;
      if (r.at >= cutoff && !over) break;
      if (doomed.has(r.rev)) continue;
      // As LevelBackend: an object's current version is never trimmed by age or size.
      if (this.objects.get(r.key)?.rev === r.rev) continue;
      doomed.add(r.rev);
      bytes -= recordBytes(r);
    }
    this.dropHistory(doomed);
    return Promise.resolve();
  }

  private dropHistory(revs: Set<number>): void {
    if (revs.size === 0) return;
    for (let i = this.revisions.length - 1; i >= 0; i--) {
      const r = this.revisions[i];
      if (!revs.has(r.rev)) continue;
      this.revisions.splice(i, 1);
      this.historyBytes -= recordBytes(r);
      const list = this.history.get(r.key)!;
      list.splice(list.indexOf(r), 1);
      if (list.length === 0) this.history.delete(r.key);
    }
  }

  sizeBytes(): Promise<number> {
    let n = 0;
    for (const [k, v] of this.objects) n += k.length + v.json.length;
    return Promise.resolve(n);
  }

  async close(): Promise<void> {}
}
