// Writes a file so that a reader, or a process killed mid-way, sees either
// the old content, the new content, or no file: never part of one. Used for
// keys, certificates and kubeconfigs.
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes `text` to a temp file beside `file` (named FILE.PID.tmp, so a
 * leftover can be told from a live writer's), syncs it, gives it `mode`
 * whatever the umask, then renames it over `file`.
 */
export async function writeFileAtomic(file: string, text: string, mode: number): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  const handle = await fs.open(tmp, 'w', mode);
  try {
    await handle.chmod(mode);
    await handle.writeFile(text);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}
