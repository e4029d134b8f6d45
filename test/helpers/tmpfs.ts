// Small and read-only file systems for tests of a full or read-only disk: a
// size-limited tmpfs mounted on a temp dir (root only), remounted read-only on
// demand, and unmounted when the test is done or the test process exits,
// whatever happens. When mounting is not possible here, mountTmpfs says why
// so that the test can skip with that message.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onExit } from './cleanup.ts';

/** A mounted tmpfs. */
export interface Tmpfs {
  /** The mount point. */
  readonly dir: string;
  /** Fills all free space with the file `name` (as a full disk); returns its path. */
  fill(name?: string): string;
  /** Removes a file made by fill (space returns). */
  release(path: string): void;
  /** Remounts it read-only, or read-write again. */
  remount(mode: 'ro' | 'rw'): void;
  /** Unmounts it and removes the mount point. Safe to call twice. */
  unmount(): void;
}

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Mounts a tmpfs of `sizeBytes`; returns it, or the reason it cannot be mounted here. */
export async function mountTmpfs(sizeBytes: number, opts: { readOnly?: boolean } = {}): Promise<Tmpfs | { unavailable: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ksim-tmpfs-'));
  try {
    run('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}${opts.readOnly ? ',ro' : ''}`, 'tmpfs', dir]);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim();
    return { unavailable: `cannot mount a tmpfs here (${stderr || 'mount failed'}); needs root with CAP_SYS_ADMIN` };
  }
  let mounted = true;
  const unmount = () => {
    if (!mounted) return;
    try {
      run('umount', [dir]);
    } catch {
      // Busy (a process still has a file open): detach it now, the kernel frees it once they close.
      run('umount', ['-l', dir]);
    }
    mounted = false;
    rmSync(dir, { recursive: true, force: true });
  };
  const unregister = onExit(unmount);
  return {
    dir,
    fill(name = 'filler') {
      const path = join(dir, name);
      // dd stops at ENOSPC with the file as large as the space allows.
      try {
        run('dd', ['if=/dev/zero', `of=${path}`, 'bs=64k']);
      } catch {
        // Expected: "No space left on device".
      }
      // Whatever tmpfs keeps in partial pages: take the rest byte by byte-ish.
      for (let i = 0; i < 64; i++) {
        try {
          writeFileSync(join(dir, `${name}.${i}`), Buffer.alloc(4096));
        } catch {
          break;
        }
      }
      return path;
    },
    release(path) {
      unlinkSync(path);
      for (let i = 0; i < 64; i++) rmSync(`${path}.${i}`, { force: true });
    },
    remount(mode) {
      run('mount', ['-o', `remount,${mode}`, dir]);
    },
    unmount() {
      unregister();
      unmount();
    },
  };
}
