// LevelDB persistence: the only file in the project that imports `level`.
// Layout: "o<key>" -> "<rev>\n<object JSON>", "l<rev:16>" -> change-log record,
// "m/rev" and "m/compacted" -> counters. Each commit is one synced batch.
//
// An object's JSON is written once: a change-log record whose version is
// still the live object says so ("a"/"m", no JSON) instead of repeating it.
// The commit that replaces or deletes that version rewrites the record with
// the JSON in full ("A"/"M"), in the same batch. A create writes about half
// the bytes it did, and a synced batch's time grows with its bytes.
import { Level } from 'level';
import fs from 'node:fs/promises';
import path from 'node:path';
import { mkdirFailureCause, StorageOpenError } from './open-failure.ts';
import type { ChangeEvent, EventType, PersistOp, PersistenceBackend } from './types.ts';

const WRITE_BUFFER_BYTES = 16 * 1024 * 1024;
const OBJECT = 'o';
const LOG = 'l';
const META_REV = 'm/rev';
const META_COMPACTED = 'm/compacted';
const TYPE_CODE: Record<EventType, string> = { ADDED: 'A', MODIFIED: 'M', DELETED: 'D' };
/** The record's JSON is the object record's (this version is still live). */
const LIVE_TYPE_CODE: Record<EventType, string> = { ADDED: 'a', MODIFIED: 'm', DELETED: 'D' };
const CODE_TYPE: Record<string, EventType> = { A: 'ADDED', M: 'MODIFIED', D: 'DELETED', a: 'ADDED', m: 'MODIFIED' };
/**
 * Entries per read when loading. classic-level also stops a read once it
 * holds highWaterMarkBytes, 16 KiB by default: about eight 2 KB objects, so
 * 150,000 Pods took some 19,000 round trips to the thread pool. The byte
 * limit is raised so that the entry count decides (a batch of ~2 MB).
 */
const SCAN_BATCH_ENTRIES = 1000;
const SCAN_BATCH_BYTES = 16 * 1024 * 1024;

/** Zero-padded so that LevelDB's byte order is revision order. */
function logKey(rev: number): string {
  return LOG + String(rev).padStart(16, '0');
}

/** Encodes a change-log record as "<type>\n<prevRev>\n<key>\n<json>". */
function encodeEvent(e: ChangeEvent): string {
  return `${TYPE_CODE[e.type]}\n${e.prevRev}\n${e.key}\n${e.json}`;
}

/** The record of an event whose JSON is the live object's: "<a|m>\n<prevRev>\n<key>\n". */
function encodeLiveEvent(e: ChangeEvent): string {
  return `${LIVE_TYPE_CODE[e.type]}\n${e.prevRev}\n${e.key}\n`;
}

/** Decodes a record; a live-object record gets json '' (see PersistenceBackend.loadLog). */
function decodeEvent(rev: number, value: string): ChangeEvent {
  const a = value.indexOf('\n');
  const b = value.indexOf('\n', a + 1);
  const c = value.indexOf('\n', b + 1);
  return {
    rev,
    type: CODE_TYPE[value.slice(0, a)],
    prevRev: Number(value.slice(a + 1, b)),
    key: value.slice(b + 1, c),
    json: value.slice(c + 1),
  };
}

/** A PersistenceBackend on an embedded LevelDB in `dir`. */
export class LevelBackend implements PersistenceBackend {
  private readonly db: Level<string, string>;
  private readonly dir: string;
  /**
   * Set when a write failed. LevelDB's log file is then in an unknown state
   * (a record may be half written, and the writer's block offsets no longer
   * match the file), so appending to it could make a later, acknowledged
   * write unreadable at the next open: nothing is written until a reopen.
   */
  private broken?: unknown;

  private constructor(dir: string) {
    this.dir = dir;
    // A 16 MiB memtable (LevelDB's default is 4) means fewer flushes and less
    // compaction under a stream of writes: ~25% less CPU per durable write in
    // an in-process measurement of synced batches, for at most 16 MiB more to replay on open.
    this.db = new Level<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8', writeBufferSize: WRITE_BUFFER_BYTES });
  }

  /**
   * Opens (creating if needed) the database in `dir`. Fails with a
   * StorageOpenError that says why in one line: another process holds it, the
   * path is not a directory, the disk is read-only or full, permissions.
   */
  static async open(dir: string): Promise<LevelBackend> {
    try {
      await fs.mkdir(dir, { recursive: true }).catch(async (err) => {
        throw await mkdirFailureCause(dir, err);
      });
      const backend = new LevelBackend(dir);
      await backend.db.open();
      return backend;
    } catch (err) {
      throw new StorageOpenError(dir, err);
    }
  }

  async loadObjects(onObject: (key: string, rev: number, json: string) => void): Promise<void> {
    await this.scan(OBJECT, OBJECT + '\xff', (k, v) => {
      const nl = v.indexOf('\n');
      onObject(k.slice(1), Number(v.slice(0, nl)), v.slice(nl + 1));
    });
  }

  async loadLog(afterRev: number, onEvent: (event: ChangeEvent) => void): Promise<void> {
    await this.scan(logKey(afterRev), LOG + '\xff', (k, v) => onEvent(decodeEvent(Number(k.slice(1)), v)));
  }

  /**
   * Calls `onEntry` for every key in (gt, lt), in order. The next batch is
   * requested before the current one is handed over, so LevelDB reads and
   * decompresses on a pool thread while this thread turns entries into objects.
   */
  private async scan(gt: string, lt: string, onEntry: (key: string, value: string) => void): Promise<void> {
    const it = this.db.iterator({ gt, lt, highWaterMarkBytes: SCAN_BATCH_BYTES });
    let next = it.nextv(SCAN_BATCH_ENTRIES);
    try {
      for (;;) {
        const entries = await next;
        if (entries.length === 0) break;
        next = it.nextv(SCAN_BATCH_ENTRIES);
        for (const [k, v] of entries) onEntry(k, v);
      }
    } finally {
      // After a throw the read ahead may still be running: close waits for it; its outcome no longer matters.
      next.catch(() => {});
      await it.close();
    }
  }

  async loadMeta(): Promise<{ rev: number; compacted: number }> {
    const [rev, compacted] = await this.db.getMany([META_REV, META_COMPACTED]);
    return { rev: Number(rev ?? 0), compacted: Number(compacted ?? 0) };
  }

  async commit(ops: PersistOp[], rev: number): Promise<void> {
    // A chained batch, measured cheaper than db.batch(arrayOfOps): for 50
    // writes (101 puts) about 0.5 ms of this thread against 1.3 ms, because
    // the array form validates and re-encodes every op object in JS first.
    const batch = this.db.batch();
    for (const { event, replaces } of ops) {
      // The version this event replaces leaves the object record: its log record now needs its JSON.
      if (replaces && replaces.json !== '') batch.put(logKey(replaces.rev), encodeEvent(replaces));
      if (event.type === 'DELETED') {
        batch.del(OBJECT + event.key);
        batch.put(logKey(event.rev), encodeEvent(event));
      } else {
        batch.put(OBJECT + event.key, `${event.rev}\n${event.json}`);
        batch.put(logKey(event.rev), encodeLiveEvent(event));
      }
    }
    batch.put(META_REV, String(rev));
    await this.write(
      () => batch.write({ sync: true }),
      () => batch.close(),
    );
  }

  /** Runs one write unless a failed one left the database to be reopened, and remembers a failure. */
  private async write(op: () => Promise<void>, abandon?: () => Promise<void>): Promise<void> {
    if (this.broken !== undefined) {
      await abandon?.();
      throw new Error('storage: a previous write failed; the database must be reopened first', { cause: this.broken });
    }
    try {
      await op();
    } catch (err) {
      // A write refused because a reopen had closed the database touched nothing on disk.
      if ((err as { code?: string }).code !== 'LEVEL_DATABASE_NOT_OPEN') this.broken = err;
      throw err;
    }
  }

  async recover(failed: ChangeEvent[], rev: number): Promise<void> {
    if (this.db.status === 'open') await this.db.close().catch(() => {});
    // Reopening replays the log and drops a record that was cut short; a
    // whole record whose sync failed may come back, and is undone below.
    await this.db.open();
    const batch = this.db.batch();
    // The newest first: a key written twice in the batch ends at its version before the batch.
    for (const event of [...failed].reverse()) {
      batch.del(logKey(event.rev));
      if (event.prevRev === 0) batch.del(OBJECT + event.key);
      else if (event.prev !== undefined) batch.put(OBJECT + event.key, `${event.prevRev}\n${event.prev}`);
    }
    batch.put(META_REV, String(rev));
    try {
      await batch.write({ sync: true });
    } catch (err) {
      // Leave it closed: the next attempt reopens it, as after the first failure.
      await this.db.close().catch(() => {});
      throw err;
    }
    this.broken = undefined;
  }

  async compact(rev: number): Promise<void> {
    await this.write(async () => {
      await this.db.clear({ gt: LOG, lte: logKey(rev) });
      await this.db.put(META_COMPACTED, String(rev), { sync: true });
    });
  }

  async sizeBytes(): Promise<number> {
    let total = 0;
    for (const name of await fs.readdir(this.dir)) {
      const stat = await fs.stat(path.join(this.dir, name)).catch(() => undefined);
      if (stat?.isFile()) total += stat.size;
    }
    return total;
  }

  async close(): Promise<void> {
    // After a failure the database may be closed already (a reopen that failed).
    if (this.db.status !== 'closed') await this.db.close();
  }
}
