// Runs scripts in the simulated shell for table tests: a fresh filesystem
// with the given files, a fake clock stepped until the script ends, and
// stdout and stderr kept apart.
import { FakeClock } from '../../../shared/clock/clock.ts';
import { SimFs } from '../filesystem.ts';
import { runProcess, type ShellContext } from '../shell.ts';

/** One row of a command table. */
export interface Row {
  sh: string;
  files?: Record<string, string>;
  stdin?: string;
  out: string;
  err?: string;
  code?: number;
}

/** What a script printed and its exit status. */
export async function runSh(
  script: string,
  opts: { files?: Record<string, string>; stdin?: string; ctx?: Partial<ShellContext>; clock?: FakeClock; fs?: SimFs } = {},
): Promise<{ out: string; err: string; code: number }> {
  const clock = opts.clock ?? new FakeClock();
  let out = '';
  let err = '';
  const fs = opts.fs ?? new SimFs({ '/etc/hostname': 'web-0\n', '/etc/hosts': '127.0.0.1\tlocalhost\n10.244.1.7\tweb-0\n', ...opts.files });
  const ctx: ShellContext = {
    fs,
    env: new Map([
      ['PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
      ['HOSTNAME', 'web-0'],
      ['HOME', '/root'],
    ]),
    out: (t) => (out += t),
    err: (t) => (err += t),
    sleep: (s) => clock.sleep(s * 1000),
    now: () => clock.now(),
    ...opts.ctx,
  };
  let done = false;
  const p = runProcess(['sh', '-c', script], ctx, opts.stdin ?? '').finally(() => (done = true));
  for (let i = 0; i < 400 && !done; i++) {
    await new Promise((r) => setImmediate(r));
    if (!done) await clock.step(250);
  }
  const r = await p;
  return { out, err, code: r.exitCode };
}

/** Checks every row of a table (each a fact of busybox 1.36's behaviour). */
export async function checkTable(rows: Row[], assertEqual: (a: unknown, b: unknown, msg: string) => void): Promise<void> {
  for (const row of rows) {
    const got = await runSh(row.sh, { files: row.files, stdin: row.stdin });
    assertEqual({ out: got.out, err: got.err, code: got.code }, { out: row.out, err: row.err ?? '', code: row.code ?? 0 }, row.sh);
  }
}
