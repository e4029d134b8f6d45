// What a command of the simulated busybox gets: its arguments, its streams,
// and a host with the container (filesystem, env, clock, network), the
// container's process table, and a way to run another command line (xargs,
// env CMD, which).
import { SimFs } from '../filesystem.ts';
import { InputReader, type Io, type ShellContext } from '../shell-context.ts';

/** One process of a container, as ps lists it. */
export interface Proc {
  pid: number;
  ppid: number;
  user: string;
  args: string;
  startedAt: number;
}

/** The processes of one container: PID 1 is its command. */
export class ProcessTable {
  private next = 1;
  readonly procs = new Map<number, Proc>();

  /** Registers a process; returns its PID and the function that removes it when it ends. */
  spawn(args: string, user: string, now: number, ppid = 0): { pid: number; exit: () => void } {
    const pid = this.next;
    // Every process forks a little: PIDs of a real container are not consecutive.
    this.next += pid === 1 ? 6 : 1;
    this.procs.set(pid, { pid, ppid, user, args, startedAt: now });
    return { pid, exit: () => this.procs.delete(pid) };
  }

  list(): Proc[] {
    return [...this.procs.values()].sort((a, b) => a.pid - b.pid);
  }
}

const tables = new WeakMap<object, ProcessTable>();

/** The container's filesystem behind a process's view of it (see processView). */
function rootOf(fs: SimFs): SimFs {
  let o = fs;
  while (Object.getPrototypeOf(o) !== SimFs.prototype && Object.getPrototypeOf(o) instanceof SimFs) o = Object.getPrototypeOf(o) as SimFs;
  return o;
}

/** The process table of the container whose filesystem is `fs` (one per container run). */
export function processTable(fs: SimFs): ProcessTable {
  const root = rootOf(fs);
  let t = tables.get(root);
  if (!t) tables.set(root, (t = new ProcessTable()));
  return t;
}

/** A process's view of its container's filesystem: the same files, its own working directory (cd in a subshell stays there). */
export function processView(fs: SimFs): SimFs {
  return Object.create(fs, { cwd: { value: fs.cwd, writable: true, enumerable: true } }) as SimFs;
}

/** The calling shell, as a command sees it. */
export interface CommandHost {
  ctx: ShellContext;
  /** Runs a command line as the shell would run it from PATH (xargs, env CMD, nohup). */
  run(argv: string[], io: Io): Promise<number>;
  /** Where `name` is: a path for a command, 'builtin' for a shell builtin, undefined when missing. */
  which(name: string): string | undefined;
  /** The variables of the shell (env for exported ones is ctx.env). */
  vars: Map<string, string>;
  /** The PID of the command being run. */
  pid: number;
}

/** A command: resolves with its exit code. */
export type Command = (args: string[], io: Io, host: CommandHost) => Promise<number> | number;

/** The whole of stdin. */
export function readStdin(io: Io, host: CommandHost): Promise<string> {
  return InputReader.of(io.stdin, host.ctx.signal).readAll();
}

/**
 * The text of each input: the files named (`-` is stdin), or stdin when there
 * are none. A missing file is reported with `cantOpen(name)` and skipped.
 */
export async function readInputs(
  files: string[],
  io: Io,
  host: CommandHost,
  cantOpen: (f: string, why: string) => string,
): Promise<{ texts: { name: string; text: string }[]; failed: boolean }> {
  const texts: { name: string; text: string }[] = [];
  let failed = false;
  for (const f of files.length ? files : ['-']) {
    if (f === '-') {
      texts.push({ name: '-', text: await readStdin(io, host) });
      continue;
    }
    const text = host.ctx.fs.read(f);
    if (text === undefined) {
      io.err(cantOpen(f, host.ctx.fs.isDir(f) ? 'Is a directory' : 'No such file or directory') + '\n');
      failed = true;
    } else texts.push({ name: f, text });
  }
  return { texts, failed };
}

/** Splits text into lines without their newlines (a last line without one counts). */
export function lines(text: string): string[] {
  if (text === '') return [];
  const l = text.split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}

/**
 * Parses short options as busybox's getopt32 does: clusters (-nr), values
 * glued or separate (-n5, -n 5) for the letters in `withValue`, `--` ends
 * them; with `numeric`, `-5` means `-n 5` (head, tail). Long options are
 * mapped by `long` to a letter. Returns the flags and the operands, or an
 * error text (busybox's "invalid option -- 'x'").
 */
export function getopts(
  args: string[],
  letters: string,
  withValue = '',
  opts: { long?: Record<string, string>; numeric?: string; stopAtFirst?: boolean } = {},
): { flags: Map<string, string[]>; rest: string[] } | { error: string } {
  const flags = new Map<string, string[]>();
  const rest: string[] = [];
  const add = (k: string, v = '') => flags.set(k, [...(flags.get(k) ?? []), v]);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      rest.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--') && opts.long) {
      const [name, val] = a.slice(2).split(/=(.*)/s);
      const letter = opts.long[name];
      if (letter === undefined) return { error: `unrecognized option '${a}'` };
      if (withValue.includes(letter)) add(letter, val ?? args[++i] ?? '');
      else add(letter);
      continue;
    }
    if (!a.startsWith('-') || a === '-') {
      if (opts.stopAtFirst) {
        rest.push(...args.slice(i));
        break;
      }
      rest.push(a);
      continue;
    }
    if (opts.numeric && /^-\d+$/.test(a)) {
      add(opts.numeric, a.slice(1));
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      const f = a[k];
      if (!letters.includes(f) && !withValue.includes(f)) return { error: `invalid option -- '${f}'` };
      if (withValue.includes(f)) {
        const v = a.length > k + 1 ? a.slice(k + 1) : args[++i];
        if (v === undefined) return { error: `option requires an argument -- '${f}'` };
        add(f, v);
        break;
      }
      add(f);
    }
  }
  return { flags, rest };
}

/** The last value of a flag, or undefined. */
export function flag(flags: Map<string, string[]>, f: string): string | undefined {
  const v = flags.get(f);
  return v ? v[v.length - 1] : undefined;
}

/** busybox's usage error: the message, then "BusyBox v1.36.1 ... Usage: ..." on a real box; here the first line. */
export function usage(io: Io, cmd: string, error: string): number {
  io.err(`${cmd}: ${error}\nBusyBox v1.36.1 (2023-05-18 22:34:17 UTC) multi-call binary.\n\nUsage: ${cmd} ...\n`);
  return 1;
}
