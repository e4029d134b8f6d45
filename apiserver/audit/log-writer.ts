// The audit log file: lines are queued in memory and written in batches off
// the request path, the file is rotated by size as kube's lumberjack logger
// does it (the full file is renamed audit-2006-01-02T15-04-05.000.log, in
// UTC, old backups are pruned by count and age), and a failing disk costs
// one error in the log and the lines it could not take, never the process.
import { promises as fsp } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { Logger } from 'pino';
import { realClock, type Clock } from '../../shared/clock/clock.ts';

const MEGABYTE = 1024 * 1024;
/** lumberjack's size when --audit-log-maxsize is 0. */
const DEFAULT_MAX_SIZE_MB = 100;
const DEFAULT_MAX_BUFFER_BYTES = 64 * MEGABYTE;
const DAY_MS = 24 * 60 * 60 * 1000;

/** Where and how the audit log is written. */
export interface LogWriterOptions {
  /** The file; `-` writes to standard output (never rotated), as kube's --audit-log-path does. */
  path: string;
  /** --audit-log-maxsize: rotate before the file would pass this many megabytes (0: 100, lumberjack's default). */
  maxSizeMB?: number;
  /** The same limit in bytes, for tests; wins over maxSizeMB. */
  maxSizeBytes?: number;
  /** --audit-log-maxbackup: rotated files to keep (0: all). */
  maxBackups?: number;
  /** --audit-log-maxage: days to keep rotated files (0: forever). */
  maxAgeDays?: number;
  /** Lines waiting beyond this many bytes are dropped (the disk is slower than the requests). */
  maxBufferBytes?: number;
  clock?: Clock;
  log?: Logger;
}

/** Go's time format "2006-01-02T15-04-05.000" of `ms`, in UTC. */
export function backupTimestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replace(/:/g, '-');
}

const BACKUP_TIME = /^(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)\.(\d{3})$/;

/** See the file comment. */
export class AuditLogWriter {
  private pending: string[] = [];
  private pendingBytes = 0;
  private flushing: Promise<void> | undefined;
  private file: fsp.FileHandle | undefined;
  private size = 0;
  private failing = false;
  private dropping = false;
  private closed = false;
  private lastBackup = 0;
  private readonly maxSize: number;
  private readonly clock: Clock;

  constructor(private readonly opts: LogWriterOptions) {
    this.maxSize = opts.maxSizeBytes ?? (opts.maxSizeMB && opts.maxSizeMB > 0 ? opts.maxSizeMB : DEFAULT_MAX_SIZE_MB) * MEGABYTE;
    this.clock = opts.clock ?? realClock;
  }

  /** Queues one line (without its newline); returns at once. */
  write(line: string): void {
    if (this.closed) return;
    const bytes = Buffer.byteLength(line) + 1;
    if (this.pendingBytes + bytes > (this.opts.maxBufferBytes ?? DEFAULT_MAX_BUFFER_BYTES)) {
      if (!this.dropping) this.opts.log?.error({ path: this.opts.path }, 'audit log buffer is full: dropping audit events');
      this.dropping = true;
      return;
    }
    this.dropping = false;
    this.pending.push(line);
    this.pendingBytes += bytes;
    if (!this.flushing) this.flushing = new Promise((r) => setImmediate(r)).then(() => this.drain());
  }

  /** Resolves when every line queued so far has been written (or dropped). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Writes what is queued, then closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    await this.file?.close().catch(() => {});
    this.file = undefined;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const lines = this.pending;
        this.pending = [];
        this.pendingBytes = 0;
        await this.writeLines(lines);
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private async writeLines(lines: string[]): Promise<void> {
    if (this.opts.path === '-') {
      process.stdout.write(lines.join('\n') + '\n');
      return;
    }
    try {
      // Cut the batch where the file would pass its size, rotating in between.
      let chunk: string[] = [];
      let chunkBytes = 0;
      for (const line of lines) {
        const bytes = Buffer.byteLength(line) + 1;
        await this.open();
        if (this.size + chunkBytes + bytes > this.maxSize && this.size + chunkBytes > 0) {
          await this.append(chunk, chunkBytes);
          chunk = [];
          chunkBytes = 0;
          await this.rotate();
        }
        chunk.push(line);
        chunkBytes += bytes;
      }
      await this.append(chunk, chunkBytes);
      if (this.failing) this.opts.log?.info({ path: this.opts.path }, 'audit log writes resumed');
      this.failing = false;
    } catch (err) {
      if (!this.failing) {
        this.opts.log?.error({ err, path: this.opts.path }, 'cannot write the audit log: dropping audit events until it works again');
      }
      this.failing = true;
      await this.file?.close().catch(() => {});
      this.file = undefined;
    }
  }

  private async open(): Promise<void> {
    if (this.file) return;
    await fsp.mkdir(dirname(this.opts.path), { recursive: true });
    this.file = await fsp.open(this.opts.path, 'a', 0o600);
    this.size = (await this.file.stat()).size;
  }

  private async append(chunk: string[], bytes: number): Promise<void> {
    if (chunk.length === 0) return;
    await this.file!.write(chunk.join('\n') + '\n');
    this.size += bytes;
  }

  private async rotate(): Promise<void> {
    await this.file?.close();
    this.file = undefined;
    // Two rotations in one millisecond would reuse a name: move on by one.
    const at = Math.max(this.clock.now(), this.lastBackup + 1);
    this.lastBackup = at;
    const ext = extname(this.opts.path);
    const prefix = basename(this.opts.path, ext);
    await fsp.rename(this.opts.path, join(dirname(this.opts.path), `${prefix}-${backupTimestamp(at)}${ext}`));
    await this.open();
    await this.prune();
  }

  /** lumberjack's millRunOnce: keep the newest maxBackups, none older than maxAgeDays. */
  private async prune(): Promise<void> {
    const { maxBackups = 0, maxAgeDays = 0 } = this.opts;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    const dir = dirname(this.opts.path);
    const ext = extname(this.opts.path);
    const prefix = `${basename(this.opts.path, ext)}-`;
    const backups: { name: string; at: number }[] = [];
    for (const name of await fsp.readdir(dir)) {
      if (!name.startsWith(prefix) || !name.endsWith(ext)) continue;
      const m = BACKUP_TIME.exec(name.slice(prefix.length, name.length - ext.length));
      if (!m) continue;
      backups.push({ name, at: Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) });
    }
    backups.sort((a, b) => b.at - a.at);
    const cutoff = this.clock.now() - maxAgeDays * DAY_MS;
    const remove = backups.filter((b, i) => (maxBackups > 0 && i >= maxBackups) || (maxAgeDays > 0 && b.at < cutoff));
    await Promise.all(remove.map((b) => fsp.rm(join(dir, b.name), { force: true })));
  }
}
