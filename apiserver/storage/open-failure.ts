// Why the database could not be opened, in one line a user can act on:
// level reports every cause as "Database failed to open" with the real
// reason (a lock, a read-only or full disk, a file in the way) in its cause.
import fs from 'node:fs/promises';
import nodePath from 'node:path';
import { causeChain } from './storage-errors.ts';

/** The OS or LevelDB failure at the bottom of `err`'s cause chain, with its code and message. */
function causes(err: unknown): { code: string; message: string }[] {
  const out: { code: string; message: string }[] = [];
  for (const { value, error: e } of causeChain(err)) out.push({ code: String(e.code ?? ''), message: String(e.message ?? value) });
  return out;
}

/** A short reason for the failure, e.g. "another process holds it (LEVEL_LOCKED)". */
export function openFailureReason(path: string, err: unknown): string {
  const chain = causes(err);
  const has = (re: RegExp) => chain.some((c) => re.test(c.code) || re.test(c.message));
  if (has(/LEVEL_LOCKED/)) return 'another process holds it (LEVEL_LOCKED): is another ksim apiserver running on this data dir?';
  if (has(/EEXIST|ENOTDIR|Not a directory/)) return 'it or one of its parents is not a directory (ENOTDIR)';
  if (has(/EROFS|Read-only file system/)) return 'the file system is read-only (EROFS)';
  if (has(/ENOSPC|No space left on device/)) return 'no space left on device (ENOSPC)';
  if (has(/EDQUOT|Disk quota exceeded/)) return 'disk quota exceeded (EDQUOT)';
  if (has(/EACCES|EPERM|Permission denied|Operation not permitted/)) return 'permission denied (EACCES)';
  const last = chain.at(-1);
  if (!last) return String(err);
  return last.message.startsWith(last.code) ? last.message : [last.code, last.message].filter(Boolean).join(': ');
}

/**
 * Why `mkdir -p dir` failed. Node's recursive mkdir reports ENOENT where a
 * parent is on a read-only disk or not writable: ask the nearest existing
 * ancestor whether it can be written, which names the real cause.
 */
export async function mkdirFailureCause(dir: string, err: unknown): Promise<unknown> {
  if ((err as NodeJS.ErrnoException)?.code !== 'ENOENT') return err;
  let ancestor = nodePath.dirname(dir);
  while (ancestor !== nodePath.dirname(ancestor)) {
    const stat = await fs.stat(ancestor).catch(() => undefined);
    if (stat) break;
    ancestor = nodePath.dirname(ancestor);
  }
  return fs.access(ancestor, fs.constants.W_OK).then(
    () => err,
    (denied) => denied,
  );
}

/** The database in `path` could not be opened; the message says why. */
export class StorageOpenError extends Error {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`cannot open the database ${path}: ${openFailureReason(path, cause)}`, { cause });
    this.name = 'StorageOpenError';
  }
}
