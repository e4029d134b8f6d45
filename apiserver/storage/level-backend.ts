// LevelDB persistence: the only file in the project that imports `level`.
// Layout: "o<key>" -> "<rev>\n<object JSON>", "l<rev:16>" -> change-log record,
// "m/rev" and "m/compacted" -> counters. Each commit is one synced batch.
//
// An object's JSON is written once: a change-log record whose version is
// still the live object says so ("a"/"m", no JSON) instead of repeating it.
// The commit that replaces or deletes that version rewrites the record with
// the JSON in full ("A"/"M"), in the same batch. A create writes about half
// the bytes it did, and a synced batch's time grows with its bytes.
//
// History, kept apart from the change log so that compaction never touches
// it, two puts in the commit's batch: "h<key>\0<rev:16>" ->
// "<type>\n<at>\n<bytes>\n<writer JSON>", so one object's revisions are one
// ordered range scan of small records, and "r<rev:16>" ->
// "<type>\n<at>\n<bytes>\n<key>\n<writer JSON>\n<object JSON>", the
// cluster-wide revision order with the bodies. "m/history-bytes" counts both.
// As in the change log, a revision that is still the live object stores no
// body of its own ("a"/"m", read from "o<key>"): the commit that replaces or
// deletes it puts its JSON in "b<rev:16>", in the same batch. Every version
// is then on disk once, however many revisions are kept.
import { Level } from 'level';
import fs from 'node:fs/promises';
import path from 'node:path';
import { mkdirFailureCause, StorageOpenError } from './open-failure.ts';
import type {
  ChangeEvent,
  EventType,
  HistoryPolicy,
  HistoryRecord,
  PersistOp,
  PersistenceBackend,
  RevisionRecord,
  WriteRecord,
} from './types.ts';

const WRITE_BUFFER_BYTES = 16 * 1024 * 1024;
const OBJECT = 'o';
const LOG = 'l';
const META_REV = 'm/rev';
const META_COMPACTED = 'm/compacted';
const HISTORY = 'h';
const REVISIONS = 'r';
/** The body of a kept revision that is no longer the live object (see the file comment). */
const BODIES = 'b';
const META_HISTORY_BYTES = 'm/history-bytes';
/** Deletes per batch when trimming history, so a large trim never holds up commits for long. */
const TRIM_BATCH = 1000;
const TYPE_CODE: Record<EventType, string> = { ADDED: 'A', MODIFIED: 'M', DELETED: 'D' };
/** The record's JSON is the object record's (this version is still live). */
const LIVE_TYPE_CODE: Record<EventType, string> = { ADDED: 'a', MODIFIED: 'm', DELETED: 'D' };
const CODE_TYPE: Record<string, EventType> = { A: 'ADDED', M: 'MODIFIED', D: 'DELETED', a: 'ADDED', m: 'MODIFIED' };
/** Whether a record's type code says its JSON is the live object's. */
const isLiveCode = (code: string): boolean => code === LIVE_TYPE_CODE.ADDED || code === LIVE_TYPE_CODE.MODIFIED;
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

/** One object's history range: its key, then a byte below any revision digit. */
function historyPrefix(key: string): string {
  return `${HISTORY}${key}\0`;
}

function historyKey(key: string, rev: number): string {
  return historyPrefix(key) + String(rev).padStart(16, '0');
}

function revisionKey(rev: number): string {
  return REVISIONS + String(rev).padStart(16, '0');
}

function bodyKey(rev: number): string {
  return BODIES + String(rev).padStart(16, '0');
}

/** The revision and JSON of an "o" record ("<rev>\n<json>"). */
function decodeObject(value: string): { rev: number; json: string } {
  const nl = value.indexOf('\n');
  return { rev: Number(value.slice(0, nl)), json: value.slice(nl + 1) };
}

/** Splits a record into its first `n` newline-terminated fields and the rest. */
function fields(value: string, n: number): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < n; i++) {
    const nl = value.indexOf('\n', from);
    out.push(value.slice(from, nl));
    from = nl + 1;
  }
  out.push(value.slice(from));
  return out;
}

/** Decodes an "h" record: "<type>\n<at>\n<bytes>\n<writer JSON or nothing>". */
function decodeRevisionMeta(hkey: string, value: string): RevisionRecord & { bytes: number } {
  const sep = hkey.lastIndexOf('\0');
  const [type, at, bytes, writer] = fields(value, 3);
  const rec: RevisionRecord & { bytes: number } = {
    rev: Number(hkey.slice(sep + 1)),
    type: CODE_TYPE[type],
    key: hkey.slice(HISTORY.length, sep),
    at: Number(at),
    bytes: Number(bytes),
  };
  if (writer !== '') rec.writer = JSON.parse(writer) as WriteRecord;
  return rec;
}

/** A decoded "r" record; `live` when its body is the live object's (or, once replaced, its "b" record's). */
type DecodedRevision = HistoryRecord & { bytes: number; live: boolean };

/** Decodes an "r" record: "<type>\n<at>\n<bytes>\n<key>\n<writer JSON or nothing>\n<object JSON, or nothing when live>". */
function decodeRevisionBody(rkey: string, value: string): DecodedRevision {
  const [type, at, bytes, key, writer, json] = fields(value, 5);
  const rec: DecodedRevision = {
    live: isLiveCode(type),
    rev: Number(rkey.slice(REVISIONS.length)),
    type: CODE_TYPE[type],
    key,
    at: Number(at),
    bytes: Number(bytes),
    json,
  };
  if (writer !== '') rec.writer = JSON.parse(writer) as WriteRecord;
  return rec;
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
  /** Bytes of history records on disk (approximate: counted in UTF-16 units, not compressed). */
  private historyBytes = 0;
  /** The history bytes the last commit counted, by revision: a recover() of that batch takes them back. */
  private lastCommitBytes = new Map<number, number>();

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
      backend.historyBytes = Number((await backend.db.get(META_HISTORY_BYTES)) ?? 0);
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
  private async scan(gt: string, lt: string, onEntry: (key: string, value: string) => void, limit?: number): Promise<void> {
    const it = this.db.iterator({ gt, lt, highWaterMarkBytes: SCAN_BATCH_BYTES, ...(limit !== undefined && { limit }) });
    const size = Math.min(SCAN_BATCH_ENTRIES, limit ?? Infinity);
    let next = it.nextv(size);
    try {
      for (;;) {
        const entries = await next;
        if (entries.length === 0) break;
        next = it.nextv(size);
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
    let added = 0;
    this.lastCommitBytes = new Map();
    for (const { event, replaces, history } of ops) {
      if (history) {
        const hkey = historyKey(event.key, event.rev);
        const rkey = revisionKey(event.rev);
        const type = TYPE_CODE[event.type];
        const writer = history.writer ? JSON.stringify(history.writer) : '';
        const bytes = hkey.length + rkey.length + 2 * (writer.length + 24) + event.key.length + event.json.length;
        batch.put(hkey, `${type}\n${history.at}\n${bytes}\n${writer}`);
        // A live version's body is the object record's (see the file comment); a delete keeps its own.
        const body = event.type === 'DELETED' ? event.json : '';
        batch.put(rkey, `${LIVE_TYPE_CODE[event.type]}\n${history.at}\n${bytes}\n${event.key}\n${writer}\n${body}`);
        added += bytes;
        this.lastCommitBytes.set(event.rev, bytes);
      }
      // The version this event replaces leaves the object record: a kept revision of it now needs its own body.
      if ((history || this.historyBytes > 0) && event.prevRev > 0 && event.prev !== undefined)
        batch.put(bodyKey(event.prevRev), event.prev);
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
    // Counted even if the write fails: the store then calls recover(), which takes the batch's bytes back.
    if (added > 0) batch.put(META_HISTORY_BYTES, String((this.historyBytes += added)));
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
      batch.del(historyKey(event.key, event.rev));
      batch.del(revisionKey(event.rev));
      // The version it replaced is the live object again: its body is the object record's.
      if (event.prevRev > 0) batch.del(bodyKey(event.prevRev));
      this.historyBytes -= this.lastCommitBytes.get(event.rev) ?? 0;
      this.lastCommitBytes.delete(event.rev);
      if (event.prevRev === 0) batch.del(OBJECT + event.key);
      else if (event.prev !== undefined) batch.put(OBJECT + event.key, `${event.prevRev}\n${event.prev}`);
    }
    batch.put(META_REV, String(rev));
    batch.put(META_HISTORY_BYTES, String(this.historyBytes));
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

  async historyOf(key: string, afterRev: number, limit: number): Promise<RevisionRecord[]> {
    const out: RevisionRecord[] = [];
    await this.scan(
      historyKey(key, afterRev),
      `${HISTORY}${key}\x01`,
      (k, v) => {
        if (out.length >= limit) return;
        const { bytes: _, ...rec } = decodeRevisionMeta(k, v);
        out.push(rec);
      },
      limit,
    );
    return out;
  }

  async historyAt(key: string, rev: number): Promise<{ at?: HistoryRecord; oldest?: RevisionRecord }> {
    const prefix = historyPrefix(key);
    const [before] = await this.db.keys({ gte: prefix, lte: historyKey(key, rev), reverse: true, limit: 1 }).all();
    if (before !== undefined) {
      const rkey = revisionKey(Number(before.slice(before.lastIndexOf('\0') + 1)));
      const body = await this.db.get(rkey);
      if (body === undefined) return {};
      const [at] = await this.withBodies([decodeRevisionBody(rkey, body)]);
      return at ? { at } : {};
    }
    const [first] = await this.db.iterator({ gte: prefix, lt: `${HISTORY}${key}\x01`, limit: 1 }).all();
    if (!first) return {};
    const { bytes: _, ...oldest } = decodeRevisionMeta(first[0], first[1]);
    return { oldest };
  }

  async historyRecords(revs: readonly number[]): Promise<HistoryRecord[]> {
    const rkeys = revs.map(revisionKey);
    const bodies = await this.db.getMany(rkeys);
    const out: DecodedRevision[] = [];
    bodies.forEach((body, i) => {
      if (body !== undefined) out.push(decodeRevisionBody(rkeys[i], body));
    });
    return this.withBodies(out);
  }

  /**
   * The records with their bodies: a live one's from the object record while
   * it is still that version, else from its "b" record. A commit may replace
   * the version between the reads; it puts the "b" record in the same batch,
   * so a second look finds it. A record still without a body (a failed
   * commit's, being undone) is left out.
   */
  private async withBodies(recs: DecodedRevision[]): Promise<HistoryRecord[]> {
    let pending = recs.filter((r) => r.live);
    for (let attempt = 0; attempt < 2 && pending.length; attempt++) {
      const values = await this.db.getMany(pending.flatMap((r) => [bodyKey(r.rev), OBJECT + r.key]));
      pending = pending.filter((r, i) => {
        const body = values[2 * i];
        const stored = values[2 * i + 1];
        const object = stored !== undefined ? decodeObject(stored) : undefined;
        if (body !== undefined) r.json = body;
        else if (object?.rev === r.rev) r.json = object.json;
        else return true;
        r.live = false;
        return false;
      });
    }
    const missing = new Set(pending);
    return recs.filter((r) => !missing.has(r)).map(({ bytes: _, live: _live, ...rec }) => rec);
  }

  async historyBetween(afterRev: number, toRev: number, limit: number): Promise<HistoryRecord[]> {
    if (toRev <= afterRev || limit <= 0) return [];
    const out: DecodedRevision[] = [];
    await this.scan(
      revisionKey(afterRev),
      revisionKey(toRev) + '\0',
      (k, v) => {
        if (out.length < limit) out.push(decodeRevisionBody(k, v));
      },
      limit,
    );
    return this.withBodies(out);
  }

  async trimHistory(policy: HistoryPolicy, now: number, keys: Iterable<string>): Promise<void> {
    const doomed: { key: string; rev: number; bytes: number }[] = [];
    const max = policy.maxRevisionsPerObject;
    if (max !== undefined) {
      for (const key of keys) {
        let n = 0;
        for await (const [k, v] of this.db.iterator({ gte: historyPrefix(key), lt: `${HISTORY}${key}\x01`, reverse: true })) {
          if (++n > max) doomed.push(decodeRevisionMeta(k, v));
        }
      }
    }
    const cutoff = policy.maxAgeMs !== undefined ? now - policy.maxAgeMs : -Infinity;
    let excess = policy.maxBytes !== undefined ? this.historyBytes - doomed.reduce((n, d) => n + d.bytes, 0) - policy.maxBytes : 0;
    if (cutoff > -Infinity || excess > 0) {
      const counted = new Set(doomed.map((d) => d.rev));
      // Only the head of each record is needed, but LevelDB reads values whole: a large trim reads the bodies it drops.
      for await (const [k, v] of this.db.iterator({ gt: REVISIONS, lt: REVISIONS + '\xff' })) {
        const [type, at, bytes, key] = fields(v, 4);
        if (Number(at) >= cutoff && excess <= 0) break;
        const rev = Number(k.slice(REVISIONS.length));
        if (counted.has(rev)) continue;
        // An object's current version is never trimmed: its body is the object itself (and, had its
        // record gone, the body its replacement writes would be kept for nothing).
        if (isLiveCode(type) && (await this.db.get(bodyKey(rev))) === undefined) continue;
        doomed.push({ key, rev, bytes: Number(bytes) });
        excess -= Number(bytes);
      }
    }
    for (let i = 0; i < doomed.length; i += TRIM_BATCH) {
      const batch = this.db.batch();
      let removed = 0;
      for (const d of doomed.slice(i, i + TRIM_BATCH)) {
        batch.del(historyKey(d.key, d.rev));
        batch.del(revisionKey(d.rev));
        batch.del(bodyKey(d.rev));
        removed += d.bytes;
      }
      this.historyBytes = Math.max(0, this.historyBytes - removed);
      batch.put(META_HISTORY_BYTES, String(this.historyBytes));
      await this.write(
        () => batch.write(),
        () => batch.close(),
      );
    }
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
