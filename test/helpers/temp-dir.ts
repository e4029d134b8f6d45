// Temporary directories for tests (data dirs, kubeconfigs, HOME for kubectl).
// Each one is removed when the test process exits unless KSIM_KEEP_TMP=1,
// which keeps them (and prints where) for looking at a failed run.
import { mkdtemp, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onExit } from './cleanup.ts';

const unregister = new Map<string, () => void>();

/**
 * Creates a fresh directory `$TMPDIR/ksim-<prefix>-XXXXXX` and returns its
 * absolute path. It is removed at process exit; call removeTempDir to remove
 * it earlier.
 */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `ksim-${prefix.replace(/[^A-Za-z0-9_.-]/g, '_')}-`));
  const keep = process.env.KSIM_KEEP_TMP === '1';
  unregister.set(
    dir,
    onExit(() => {
      if (keep) process.stderr.write(`ksim test: kept ${dir}\n`);
      else rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    }),
  );
  return dir;
}

/** Removes a directory made by tempDir now (stop any process using it first). */
export async function removeTempDir(dir: string): Promise<void> {
  unregister.get(dir)?.();
  unregister.delete(dir);
  if (process.env.KSIM_KEEP_TMP === '1') return;
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}
