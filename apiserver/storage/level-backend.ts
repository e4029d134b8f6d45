// LevelDB persistence: the only file in the project that imports `level`.
// Layout: "o<key>" -> "<rev>\n<object JSON>", "l<rev:16>" -> change-log record,
// "m/rev" and "m/compacted" -> counters. Each commit is one synced batch.
import { Level } from 'level';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ChangeEvent, EventType, PersistOp, PersistenceBackend } from './types.ts';

const OBJECT = 'o';
const LOG = 'l';
const META_REV = 'm/rev';
const META_COMPACTED = 'm/compacted';
const TYPE_CODE: Record<EventType, string> = { ADDED: 'A', MODIFIED: 'M', DELETED: 'D' };
const CODE_TYPE: Record<string, EventType> = { A: 'ADDED', M: 'MODIFIED', D: 'DELETED' };

/** Zero-padded so that LevelDB's byte order is revision order. */
function logKey(rev: number): string {
  return LOG + String(rev).padStart(16, '0');
}

/** Encodes a change-log record as "<type>\n<prevRev>\n<key>\n<json>". */
function encodeEvent(e: ChangeEvent): string {
  return `${TYPE_CODE[e.type]}\n${e.prevRev}\n${e.key}\n${e.json}`;
}

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

  private constructor(dir: string) {
    this.dir = dir;
    this.db = new Level<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  }

  /** Opens (creating if needed) the database in `dir`; fails if another process holds it. */
  static async open(dir: string): Promise<LevelBackend> {
    await fs.mkdir(dir, { recursive: true });
    const backend = new LevelBackend(dir);
    await backend.db.open();
    return backend;
  }

  async loadObjects(onObject: (key: string, rev: number, json: string) => void): Promise<void> {
    const it = this.db.iterator({ gt: OBJECT, lt: OBJECT + '\xff' });
    try {
      for (;;) {
        const entries = await it.nextv(2000);
        if (entries.length === 0) break;
        for (const [k, v] of entries) {
          const nl = v.indexOf('\n');
          onObject(k.slice(1), Number(v.slice(0, nl)), v.slice(nl + 1));
        }
      }
    } finally {
      await it.close();
    }
  }

  async loadLog(afterRev: number, onEvent: (event: ChangeEvent) => void): Promise<void> {
    const it = this.db.iterator({ gt: logKey(afterRev), lt: LOG + '\xff' });
    try {
      for (;;) {
        const entries = await it.nextv(2000);
        if (entries.length === 0) break;
        for (const [k, v] of entries) onEvent(decodeEvent(Number(k.slice(1)), v));
      }
    } finally {
      await it.close();
    }
  }

  async loadMeta(): Promise<{ rev: number; compacted: number }> {
    const [rev, compacted] = await this.db.getMany([META_REV, META_COMPACTED]);
    return { rev: Number(rev ?? 0), compacted: Number(compacted ?? 0) };
  }

  async commit(ops: PersistOp[], rev: number): Promise<void> {
    const batch = this.db.batch();
    for (const { event } of ops) {
      if (event.type === 'DELETED') batch.del(OBJECT + event.key);
      else batch.put(OBJECT + event.key, `${event.rev}\n${event.json}`);
      batch.put(logKey(event.rev), encodeEvent(event));
    }
    batch.put(META_REV, String(rev));
    await batch.write({ sync: true });
  }

  async compact(rev: number): Promise<void> {
    await this.db.clear({ gt: LOG, lte: logKey(rev) });
    await this.db.put(META_COMPACTED, String(rev), { sync: true });
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
    await this.db.close();
  }
}
