// A PersistenceBackend wrapper that fails on demand, as a full or read-only
// disk would: for tests of how the store survives storage failures where a
// real small or read-only file system cannot be mounted.
import type { ChangeEvent, HistoryPolicy, HistoryRecord, PersistOp, PersistenceBackend, RevisionRecord } from './types.ts';

/** When a commit fails: before anything is written, or after the batch reached the disk (a failed sync). */
export type FaultTiming = 'before-write' | 'after-write';

/** Wraps `inner`; `fail()` makes writes (commit, compact, recover) throw until `heal()`. */
export class FaultyBackend implements PersistenceBackend {
  private fault?: { error: () => Error; timing: FaultTiming };
  /** Commits attempted, failed or not. */
  commitAttempts = 0;
  recoverAttempts = 0;

  constructor(readonly inner: PersistenceBackend) {}

  /** From now on every write throws `error()` (a fresh error each time). */
  fail(error: () => Error, timing: FaultTiming = 'before-write'): void {
    this.fault = { error, timing };
  }

  /** Writes work again. */
  heal(): void {
    this.fault = undefined;
  }

  loadObjects(onObject: (key: string, rev: number, json: string) => void): Promise<void> {
    return this.inner.loadObjects(onObject);
  }

  loadLog(afterRev: number, onEvent: (event: ChangeEvent) => void): Promise<void> {
    return this.inner.loadLog(afterRev, onEvent);
  }

  loadMeta(): Promise<{ rev: number; compacted: number }> {
    return this.inner.loadMeta();
  }

  async commit(ops: PersistOp[], rev: number): Promise<void> {
    this.commitAttempts++;
    const fault = this.fault;
    if (fault?.timing === 'before-write') throw fault.error();
    await this.inner.commit(ops, rev);
    if (fault) throw fault.error();
  }

  async recover(failed: ChangeEvent[], rev: number): Promise<void> {
    this.recoverAttempts++;
    if (this.fault) throw this.fault.error();
    await this.inner.recover(failed, rev);
  }

  async compact(rev: number): Promise<void> {
    if (this.fault) throw this.fault.error();
    await this.inner.compact(rev);
  }

  historyOf(key: string, afterRev: number, limit: number): Promise<RevisionRecord[]> {
    return this.inner.historyOf(key, afterRev, limit);
  }

  historyAt(key: string, rev: number): Promise<{ at?: HistoryRecord; oldest?: RevisionRecord }> {
    return this.inner.historyAt(key, rev);
  }

  historyRecords(revs: readonly number[]): Promise<HistoryRecord[]> {
    return this.inner.historyRecords(revs);
  }

  historyBetween(afterRev: number, toRev: number, limit: number): Promise<HistoryRecord[]> {
    return this.inner.historyBetween(afterRev, toRev, limit);
  }

  async trimHistory(policy: HistoryPolicy, now: number, keys: Iterable<string>): Promise<void> {
    if (this.fault) throw this.fault.error();
    await this.inner.trimHistory(policy, now, keys);
  }

  sizeBytes(): Promise<number> {
    return this.inner.sizeBytes();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** An error like the one level gives for a write to a full disk. */
export function noSpaceError(): Error {
  return Object.assign(new Error('IO error: 000003.log: No space left on device'), { code: 'LEVEL_IO_ERROR' });
}

/** An error like the one level gives for a write to a read-only disk. */
export function readOnlyError(): Error {
  return Object.assign(new Error('IO error: 000003.log: Read-only file system'), { code: 'LEVEL_IO_ERROR' });
}
