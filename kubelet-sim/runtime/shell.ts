// The simulated shell that runs a container's command/args, exec sessions and
// exec probes: busybox ash's language (lists, pipelines running side by side,
// if/while/until/for/case, functions, here-documents, $(( )), $(...) and
// backticks, parameter expansion, globbing, set -e, traps) over the
// container's simulated filesystem, with its builtins here and the other
// busybox applets in commands/. Every sleep is on the injected clock, so a
// test runs `sleep 3600` without waiting; `sh` reading a live stdin runs
// each command as it arrives, as an interactive shell does.
import { COMMANDS } from './commands/index.ts';
import { evalTest } from './commands/test.ts';
import { formatPrintf, unescapeC } from './commands/printf.ts';
import { processTable, processView, type CommandHost } from './commands/types.ts';
import { userName } from './commands/users.ts';
import { ArithError, evalArith } from './shell-arith.ts';
import { BrokenPipe, InputReader, Killed, OutOfMemory, type Io, type ShellContext } from './shell-context.ts';
import { parseScript, RESERVED_WORDS, ShellSyntaxError, type Node, type Redirect, type Simple, type Word } from './shell-syntax.ts';
import { StdinPipe, type StdinStream } from './stdin-pipe.ts';

export {
  BrokenPipe,
  InputReader,
  Killed,
  OutOfMemory,
  type HostInfo,
  type Io,
  type ProcessUser,
  type ShellContext,
} from './shell-context.ts';
export { parseScript, ShellSyntaxError } from './shell-syntax.ts';
export { parseBytes } from './commands/system.ts';

class ExitSignal extends Error {
  constructor(readonly code: number) {
    super('exit');
  }
}
class ReturnSignal extends Error {
  constructor(readonly code: number) {
    super('return');
  }
}
class LoopSignal extends Error {
  constructor(
    readonly kind: 'break' | 'continue',
    public levels: number,
  ) {
    super(kind);
  }
}

const SHELLS = new Set(['sh', 'ash', 'bash', 'dash']);
const BUILTINS = new Set([
  ':',
  'true',
  'false',
  'exit',
  'return',
  'break',
  'continue',
  'cd',
  'pwd',
  'export',
  'readonly',
  'unset',
  'set',
  'shift',
  'read',
  'local',
  'eval',
  '.',
  'source',
  'trap',
  'wait',
  'test',
  '[',
  '[[',
  'echo',
  'printf',
  'kill',
  'type',
  'command',
  'exec',
  'let',
  'umask',
  'getopts',
  'hash',
  'alias',
  'unalias',
  'jobs',
  'ulimit',
  'times',
]);
const SIGNALS: Record<string, number> = { HUP: 1, INT: 2, QUIT: 3, KILL: 9, USR1: 10, USR2: 12, PIPE: 13, ALRM: 14, TERM: 15, CHLD: 17 };

/** A signal name as trap and kill accept it (TERM, SIGTERM, 15), normalized; EXIT for 0. */
function signalName(s: string): string | undefined {
  const u = s.toUpperCase().replace(/^SIG/, '');
  if (u === 'EXIT' || u === '0') return 'EXIT';
  if (SIGNALS[u] !== undefined) return u;
  return Object.entries(SIGNALS).find(([, n]) => String(n) === s)?.[0];
}

interface Field {
  value: string;
  pattern: string;
  glob: boolean;
  quoted: boolean;
}

/** Shell state a subshell copies. */
interface State {
  vars: Map<string, string>;
  funcs: Map<string, Node>;
  positional: string[];
  arg0: string;
  errexit: boolean;
  xtrace: boolean;
  nounset: boolean;
  pipefail: boolean;
  pid: number;
}

/** One shell process. */
class Shell {
  private status = 0;
  private steps = 0;
  /** Inside an if/while condition, the left of && or ||, or after !: set -e does not apply. */
  private condDepth = 0;
  private readonly traps = new Map<string, string>();
  private readonly pending: string[] = [];
  private wake?: () => void;
  private readonly jobs = new Map<number, { done: Promise<number>; kill: () => void }>();
  private lastBg?: number;
  private locals?: Map<string, string | undefined>;
  private subStatus = 0;
  /** `exec` redirections: a stream the shell was given, and where it now goes. */
  private readonly fdMap = new Map<(t: string) => void, (t: string) => void>();
  private stdinOverride?: Io['stdin'];

  constructor(
    readonly ctx: ShellContext,
    readonly st: State,
  ) {}

  /** A subshell: a copy of variables, functions and options, traps reset, its own env. */
  fork(ctx: ShellContext = this.ctx): Shell {
    const c = { ...ctx, fs: processView(ctx.fs), env: new Map(ctx.env), onSignal: undefined };
    const sub = new Shell(c, {
      ...this.st,
      vars: new Map(this.st.vars),
      funcs: new Map(this.st.funcs),
      positional: [...this.st.positional],
    });
    for (const [k, v] of this.fdMap) sub.fdMap.set(k, v);
    sub.stdinOverride = this.stdinOverride;
    return sub;
  }

  /** The streams a command gets once `exec` redirections of this shell apply. */
  private remapped(io: Io): Io {
    if (this.fdMap.size === 0 && this.stdinOverride === undefined) return io;
    return { out: this.fdMap.get(io.out) ?? io.out, err: this.fdMap.get(io.err) ?? io.err, stdin: this.stdinOverride ?? io.stdin };
  }

  private get(name: string): string | undefined {
    return this.st.vars.get(name) ?? this.ctx.env.get(name);
  }

  setVar(name: string, value: string): void {
    this.st.vars.set(name, value);
    if (this.ctx.env.has(name)) this.ctx.env.set(name, value);
  }

  private unsetVar(name: string): void {
    this.st.vars.delete(name);
    this.ctx.env.delete(name);
  }

  // ---------------------------------------------------------------- running

  async run(node: Node, io: Io): Promise<number> {
    // A killed process stops at its next step, even in a loop that never sleeps.
    const killed = this.ctx.signal;
    if (killed?.aborted) throw killed.reason instanceof Killed ? killed.reason : new Killed();
    // A loop without sleeps must not starve the event loop (or a client waiting for output).
    if (++this.steps % 100 === 0) await new Promise((r) => setImmediate(r));
    switch (node.t) {
      case 'seq':
        for (const item of node.items) {
          if (item.bg) this.background(item.node, io);
          else this.status = await this.run(item.node, io);
          await this.takeSignals(io);
        }
        return this.status;
      case 'andor': {
        this.condDepth++;
        let st: number;
        try {
          st = await this.run(node.first, io);
          for (let k = 0; k < node.rest.length; k++) {
            const r = node.rest[k];
            if ((r.op === '&&') !== (st === 0)) continue;
            if (k === node.rest.length - 1) {
              this.condDepth--;
              try {
                st = await this.run(r.node, io);
              } finally {
                this.condDepth++;
              }
            } else st = await this.run(r.node, io);
          }
        } finally {
          this.condDepth--;
        }
        return (this.status = st);
      }
      case 'pipe':
        return this.pipeline(node.cmds, node.negate, io);
      case 'while': {
        const rio = await this.redirect(node.redirects, io);
        if (typeof rio === 'number') return (this.status = rio);
        let last = 0;
        for (;;) {
          this.condDepth++;
          let c: number;
          try {
            c = await this.run(node.cond, rio);
          } finally {
            this.condDepth--;
          }
          if ((c === 0) === node.until) break;
          const r = await this.loopBody(node.body, rio);
          if (r === 'break') break;
          last = this.status;
        }
        return (this.status = last);
      }
      case 'for': {
        const rio = await this.redirect(node.redirects, io);
        if (typeof rio === 'number') return (this.status = rio);
        const items = node.words ? await this.expandAll(node.words, rio) : [...this.st.positional];
        this.status = 0;
        for (const v of items) {
          this.setVar(node.name, v);
          if ((await this.loopBody(node.body, rio)) === 'break') break;
        }
        return this.status;
      }
      case 'if': {
        const rio = await this.redirect(node.redirects, io);
        if (typeof rio === 'number') return (this.status = rio);
        for (const b of node.branches) {
          this.condDepth++;
          let c: number;
          try {
            c = await this.run(b.cond, rio);
          } finally {
            this.condDepth--;
          }
          if (c === 0) return (this.status = await this.run(b.body, rio));
        }
        return (this.status = node.otherwise ? await this.run(node.otherwise, rio) : 0);
      }
      case 'case': {
        const rio = await this.redirect(node.redirects, io);
        if (typeof rio === 'number') return (this.status = rio);
        const word = await this.expandOne(node.word, rio);
        for (const item of node.items)
          for (const p of item.patterns) {
            const pat = (await this.expandFields(p, rio, 'pattern'))[0]?.pattern ?? '';
            if (globRegex(pat).test(word)) return (this.status = await this.run(item.body, rio));
          }
        return (this.status = 0);
      }
      case 'group': {
        const rio = await this.redirect(node.redirects, io);
        if (typeof rio === 'number') return (this.status = rio);
        if (!node.subshell) return (this.status = await this.run(node.body, rio));
        return (this.status = await this.fork().runAsProcess(node.body, rio));
      }
      case 'func':
        this.st.funcs.set(node.name, node.body);
        return (this.status = 0);
      case 'cmd': {
        const st = await this.simple(node, io);
        this.status = st;
        if (st !== 0 && this.st.errexit && this.condDepth === 0) throw new ExitSignal(st);
        return st;
      }
    }
  }

  private async loopBody(body: Node, io: Io): Promise<'break' | 'continue' | undefined> {
    try {
      await this.run(body, io);
      return undefined;
    } catch (e) {
      if (!(e instanceof LoopSignal)) throw e;
      if (e.levels > 1) {
        e.levels--;
        throw e;
      }
      return e.kind;
    }
  }

  /** Runs a tree as a whole process (a subshell, a pipeline stage): exit ends only it. */
  async runAsProcess(node: Node, io: Io): Promise<number> {
    try {
      return await this.run(node, io);
    } catch (e) {
      if (e instanceof ExitSignal) return e.code;
      if (e instanceof BrokenPipe) return 141;
      if (e instanceof ReturnSignal) return e.code;
      if (e instanceof LoopSignal) return this.status;
      throw e;
    } finally {
      await this.exitTrap(io);
    }
  }

  /** The stages of a pipeline run side by side, each in a subshell, joined by pipes. */
  private async pipeline(cmds: Node[], negate: boolean, io: Io): Promise<number> {
    this.condDepth += negate ? 1 : 0;
    try {
      if (cmds.length === 1) {
        const st = await this.run(cmds[0], io);
        return (this.status = negate ? Number(st === 0) : st);
      }
      const runs: Promise<number>[] = [];
      const closers: (() => void)[] = [];
      let input: Io['stdin'] = io.stdin;
      for (let k = 0; k < cmds.length; k++) {
        const last = k === cmds.length - 1;
        const pipe = last ? undefined : new StdinPipe(Infinity);
        let readerDone = false;
        const out = pipe
          ? (t: string) => {
              if (readerDone) throw new BrokenPipe();
              pipe.write(t);
            }
          : io.out;
        const stage = this.fork();
        const stdin = input;
        const p = stage.runAsProcess(cmds[k], { out, err: io.err, stdin }).finally(() => pipe?.end());
        runs.push(p);
        if (k > 0) {
          const prevClose = closers[k - 1];
          void p.finally(prevClose);
        }
        closers.push(() => (readerDone = true));
        input = pipe ?? '';
      }
      const codes = await Promise.all(runs);
      let st = codes[codes.length - 1];
      if (this.st.pipefail) st = [...codes].reverse().find((c) => c !== 0) ?? 0;
      if (st !== 0 && !negate && this.st.errexit && this.condDepth === 0) {
        this.status = st;
        throw new ExitSignal(st);
      }
      return (this.status = negate ? Number(st === 0) : st);
    } finally {
      this.condDepth -= negate ? 1 : 0;
    }
  }

  /** `cmd &`: runs in a subshell without waiting; $! is its PID; it dies with the shell. */
  private background(node: Node, io: Io): void {
    const ac = new AbortController();
    const signal = this.ctx.signal ? AbortSignal.any([this.ctx.signal, ac.signal]) : ac.signal;
    const sleep = (s: number) =>
      new Promise<void>((resolve, reject) => {
        if (ac.signal.aborted) return reject(new Killed(143));
        const onAbort = () => reject(new Killed(143));
        ac.signal.addEventListener('abort', onAbort, { once: true });
        this.ctx.sleep(s).then(
          () => {
            ac.signal.removeEventListener('abort', onAbort);
            resolve();
          },
          (e: Error) => {
            ac.signal.removeEventListener('abort', onAbort);
            reject(e);
          },
        );
      });
    const sub = this.fork({ ...this.ctx, signal, sleep });
    const table = processTable(this.ctx.fs);
    const proc = table.spawn(this.st.arg0, this.userLabel(), this.ctx.now(), this.st.pid);
    sub.st.pid = proc.pid;
    const done = sub
      .runAsProcess(node, { ...io, stdin: '' })
      .catch((e: unknown) => (e instanceof Killed ? e.exitCode : e instanceof OutOfMemory ? 137 : 1))
      .finally(() => {
        proc.exit();
      });
    this.jobs.set(proc.pid, { done, kill: () => ac.abort() });
    this.lastBg = proc.pid;
  }

  /** Kills the background jobs still running (the shell is exiting: its container's processes go with it). */
  killJobs(): void {
    for (const j of this.jobs.values()) j.kill();
    this.jobs.clear();
  }

  /** Runs the actions of signals that arrived (after the foreground command, as ash does). */
  private async takeSignals(io: Io): Promise<void> {
    while (this.pending.length) {
      const sig = this.pending.shift()!;
      const action = this.traps.get(sig);
      if (action === undefined) continue;
      const saved = this.status;
      await this.runScript(action, io);
      this.status = saved;
    }
  }

  /** Delivers a signal sent to this shell (PID 1 on stop). */
  signal(sig: string): void {
    if (!this.traps.has(sig)) return;
    this.pending.push(sig);
    this.wake?.();
  }

  async exitTrap(io: Io): Promise<void> {
    const action = this.traps.get('EXIT');
    if (action === undefined) return;
    this.traps.delete('EXIT');
    try {
      await this.runScript(action, io);
    } catch (e) {
      if (!(e instanceof ExitSignal)) throw e;
    }
  }

  // ---------------------------------------------------------------- simple commands

  private async simple(node: Simple, given: Io): Promise<number> {
    this.subStatus = 0;
    const io = this.remapped(given);
    const argv = await this.expandAll(node.words, io);
    const assigns: [string, string][] = [];
    for (const a of node.assigns) {
      const eq = a.indexOf('=');
      assigns.push([a.slice(0, eq), await this.expandOne(a.slice(eq + 1), io)]);
    }
    if (this.st.xtrace) io.err(`+ ${[...assigns.map(([k, v]) => `${k}=${v}`), ...argv].join(' ')}\n`);
    if (argv.length === 0) {
      for (const [k, v] of assigns) this.setVar(k, v);
      const rio = await this.redirect(node.redirects, io);
      // An assignment alone has the status of its last command substitution.
      return typeof rio === 'number' ? rio : this.subStatus;
    }
    const rio = await this.redirect(node.redirects, io);
    if (typeof rio === 'number') return rio;
    if (argv.length === 1 && argv[0] === 'exec' && node.redirects.length) {
      // `exec >log 2>&1`: the redirections stay for the rest of the shell.
      if (rio.out !== io.out) this.fdMap.set(given.out, rio.out);
      if (rio.err !== io.err) this.fdMap.set(given.err, rio.err);
      if (rio.stdin !== io.stdin) this.stdinOverride = rio.stdin;
      return 0;
    }
    // VAR=x cmd: the variable is in cmd's environment only (a function or builtin sees it too).
    if (!assigns.length) return this.exec(argv, rio);
    const saved = assigns.map(([k]) => [k, this.st.vars.get(k), this.ctx.env.get(k)] as const);
    for (const [k, v] of assigns) {
      this.st.vars.set(k, v);
      this.ctx.env.set(k, v);
    }
    try {
      return await this.exec(argv, rio);
    } finally {
      const special = argv[0] === 'export' || argv[0] === 'readonly';
      if (!special)
        for (const [k, v, e] of saved) {
          if (v === undefined) this.st.vars.delete(k);
          else this.st.vars.set(k, v);
          if (e === undefined) this.ctx.env.delete(k);
          else this.ctx.env.set(k, e);
        }
    }
  }

  /** Applies redirections in order (so `>f 2>&1` and `2>&1 >f` differ, as in sh); a number is a failure status. */
  private async redirect(redirects: Redirect[], io: Io): Promise<Io | number> {
    if (redirects.length === 0) return io;
    const fds: Record<number, ((t: string) => void) | undefined> = { 1: io.out, 2: io.err };
    let stdin = io.stdin;
    const fs = this.ctx.fs;
    const discard = () => {};
    for (const r of redirects) {
      if (r.op === '<<') {
        const body = r.heredoc?.quoted ? (r.heredoc.body ?? '') : await this.expandHeredoc(r.heredoc?.body ?? '', io);
        if (r.fd === 0) stdin = new InputReader(body);
        continue;
      }
      const target = await this.expandOne(r.target, io);
      if (r.op === '>&' || r.op === '<&') {
        if (target === '-') fds[r.fd] = discard;
        else if (/^\d$/.test(target) && (fds[Number(target)] || (target === '0' && r.op === '<&'))) {
          if (r.fd !== 0) fds[r.fd] = fds[Number(target)];
        } else if (r.op === '>&' && r.fd === 1 && !/^\d+$/.test(target)) {
          // `>&file` is `>file 2>&1`.
          const w = this.openWrite(target, false, io);
          if (typeof w === 'number') return w;
          fds[1] = fds[2] = w;
        } else {
          io.err(`sh: ${target}: bad file descriptor\n`);
          return 1;
        }
      } else if (r.op === '<') {
        const content = target === '/dev/null' ? '' : fs.read(target);
        if (content === undefined) {
          io.err(`sh: can't open ${target}: ${fs.isDir(target) ? 'Is a directory' : 'no such file'}\n`);
          return 1;
        }
        if (r.fd === 0) stdin = new InputReader(content);
      } else {
        const w = target === '/dev/null' ? discard : this.openWrite(target, r.op === '>>', io, fds);
        if (typeof w === 'number') return w;
        fds[r.fd] = w;
      }
    }
    return { out: fds[1] ?? discard, err: fds[2] ?? discard, stdin };
  }

  private openWrite(
    target: string,
    append: boolean,
    io: Io,
    fds: Record<number, ((t: string) => void) | undefined> = {},
  ): ((t: string) => void) | number {
    const fs = this.ctx.fs;
    if (target === '/dev/stderr' || target === '/proc/self/fd/2') return fds[2] ?? io.err;
    if (target === '/dev/stdout' || target === '/proc/self/fd/1') return fds[1] ?? io.out;
    if (target === '/dev/null') return () => {};
    const err = fs.write(target, append ? (fs.read(target) ?? '') : '');
    if (err) {
      io.err(`sh: can't create ${target}: ${err}\n`);
      return 1;
    }
    return (t) => fs.append(target, t);
  }

  private userLabel(): string {
    const u = this.ctx.user ?? { uid: 0, gid: 0 };
    return u.name ?? userName(this.ctx.fs, u.uid) ?? String(u.uid);
  }

  /** Where a command name is found: a path, 'builtin', or undefined. */
  which(name: string): string | undefined {
    if (name.includes('/')) return this.ctx.fs.read(name) !== undefined ? name : undefined;
    if (BUILTINS.has(name)) return 'builtin';
    if (this.st.funcs.has(name)) return 'function';
    if (SHELLS.has(name) || COMMANDS[name] || this.ctx.programs?.(name)) return commandPath(name);
    return undefined;
  }

  private host(pid: number): CommandHost {
    return {
      ctx: this.ctx,
      vars: this.st.vars,
      pid,
      run: (argv, io) => this.exec(argv, io, true),
      which: (n) => {
        const w = this.which(n);
        return w === 'builtin' || w === 'function' ? undefined : w;
      },
    };
  }

  /** Runs one command line already split into words; `external` skips functions and builtins (env CMD, xargs). */
  async exec(argv: string[], io: Io, external = false): Promise<number> {
    const [cmd0, ...args] = argv;
    if (!external) {
      const fn = this.st.funcs.get(cmd0);
      if (fn) return this.callFunction(fn, args, io);
      if (BUILTINS.has(cmd0)) return this.builtin(cmd0, args, io);
    }
    const base = cmd0.replace(/^\/(usr\/)?(local\/)?(s?bin)\//, '');
    const program = this.ctx.programs?.(cmd0);
    const command = !base.includes('/') ? COMMANDS[base] : undefined;
    if (!program && !command && !SHELLS.has(base)) {
      if (cmd0.includes('/') && this.ctx.fs.read(cmd0) !== undefined) return this.runFile(cmd0, args, io);
      if (cmd0.includes('/') && this.ctx.fs.isDir(cmd0)) {
        io.err(`sh: ${cmd0}: Permission denied\n`);
        return 126;
      }
      io.err(`sh: ${cmd0}: not found\n`);
      return 127;
    }
    const table = processTable(this.ctx.fs);
    const proc = table.spawn(argv.join(' '), this.userLabel(), this.ctx.now(), this.st.pid);
    try {
      if (program) return await program(args, io);
      if (command) return await command(args, io, this.host(proc.pid));
      return await this.subShell(args, io, proc.pid);
    } finally {
      proc.exit();
    }
  }

  /** A script file run by path (`./run.sh`, a ConfigMap's script): a new shell reads it. */
  private runFile(path: string, args: string[], io: Io): Promise<number> {
    const sub = this.newShell(path, args);
    return sub.runText(this.ctx.fs.read(path) ?? '', io);
  }

  private newShell(arg0: string, positional: string[]): Shell {
    return new Shell(
      { ...this.ctx, fs: processView(this.ctx.fs), env: new Map(this.ctx.env), onSignal: undefined },
      {
        vars: new Map(),
        funcs: new Map(),
        positional,
        arg0,
        errexit: false,
        xtrace: false,
        nounset: false,
        pipefail: false,
        pid: this.st.pid,
      },
    );
  }

  /** A new `sh` process run by this one. */
  private subShell(args: string[], io: Io, pid: number): Promise<number> {
    const sub = this.newShell('sh', []);
    sub.st.pid = pid;
    return sub.runShellArgs(args, io);
  }

  /** This shell as `sh [-ex] [-c script [arg0 args...] | file args...]`, or reading commands from stdin. */
  async runShellArgs(args: string[], io: Io): Promise<number> {
    const sub = this as Shell;
    let i = 0;
    let script: string | undefined;
    for (; i < args.length && /^[-+]/.test(args[i]); i++) {
      const a = args[i];
      if (a === '--') {
        i++;
        break;
      }
      for (const f of a.slice(1)) {
        if (f === 'c') script = '';
        else if (f === 'e') sub.st.errexit = a[0] === '-';
        else if (f === 'x') sub.st.xtrace = a[0] === '-';
        else if (f === 'u') sub.st.nounset = a[0] === '-';
      }
    }
    if (script !== undefined) {
      if (i >= args.length) {
        io.err('sh: -c requires an argument\n');
        return 2;
      }
      script = args[i];
      sub.st.arg0 = args[i + 1] ?? 'sh';
      sub.st.positional = args.slice(i + 2);
      return sub.runText(script, io);
    }
    if (i < args.length) {
      const file = args[i];
      const text = this.ctx.fs.read(file);
      if (text === undefined) {
        io.err(`sh: can't open '${file}': No such file or directory\n`);
        return 2;
      }
      sub.st.arg0 = file;
      sub.st.positional = args.slice(i + 1);
      return sub.runText(text, io);
    }
    return sub.interactive(InputReader.of(io.stdin, this.ctx.signal), io);
  }

  private async callFunction(body: Node, args: string[], io: Io): Promise<number> {
    const savedPos = this.st.positional;
    const savedLocals = this.locals;
    this.st.positional = args;
    this.locals = new Map();
    try {
      return await this.run(body, io);
    } catch (e) {
      if (e instanceof ReturnSignal) return (this.status = e.code);
      throw e;
    } finally {
      for (const [k, v] of this.locals) {
        if (v === undefined) this.st.vars.delete(k);
        else this.st.vars.set(k, v);
      }
      this.locals = savedLocals;
      this.st.positional = savedPos;
    }
  }

  // ---------------------------------------------------------------- builtins

  private async builtin(cmd: string, args: string[], io: Io): Promise<number> {
    switch (cmd) {
      case ':':
      case 'true':
      case 'hash':
      case 'alias':
      case 'unalias':
      case 'jobs':
      case 'ulimit':
        return 0;
      case 'false':
        return 1;
      case 'exit':
        throw new ExitSignal(args[0] === undefined ? this.status : Number(args[0]) & 255);
      case 'return':
        throw new ReturnSignal(args[0] === undefined ? this.status : Number(args[0]) & 255);
      case 'break':
      case 'continue':
        throw new LoopSignal(cmd, Math.max(1, Number(args[0] ?? 1)));
      case 'echo':
        return echo(args, io);
      case 'printf': {
        if (args.length === 0) {
          io.err('printf: usage: printf FORMAT [ARGUMENT...]\n');
          return 2;
        }
        const r = formatPrintf(args[0], args.slice(1));
        io.out(r.out);
        if (r.err) io.err(r.err);
        return r.status;
      }
      case 'test':
      case '[':
      case '[[': {
        let a = args;
        if (cmd !== 'test') {
          const close = cmd === '[' ? ']' : ']]';
          if (a[a.length - 1] !== close) {
            io.err(`sh: missing ${close}\n`);
            return 2;
          }
          a = a.slice(0, -1);
        }
        const r = evalTest(a, this.ctx.fs);
        if (typeof r === 'string') {
          io.err(`sh: ${r}\n`);
          return 2;
        }
        return r ? 0 : 1;
      }
      case 'pwd':
        io.out(this.ctx.fs.cwd + '\n');
        return 0;
      case 'cd': {
        let dir = args[0] ?? this.get('HOME') ?? '/';
        if (dir === '-') {
          dir = this.get('OLDPWD') ?? this.ctx.fs.cwd;
          io.out(dir + '\n');
        }
        const fs = this.ctx.fs;
        if (!fs.isDir(dir)) {
          io.err(`sh: cd: can't cd to ${dir}: ${fs.read(dir) !== undefined ? 'Not a directory' : 'No such file or directory'}\n`);
          return 2;
        }
        this.setVar('OLDPWD', fs.cwd);
        fs.cwd = normalize(dir, fs.cwd);
        this.setVar('PWD', fs.cwd);
        return 0;
      }
      case 'export':
      case 'readonly': {
        const names = args.filter((a) => a !== '-p' && a !== '-n');
        if (names.length === 0) {
          for (const [k, v] of [...this.ctx.env].sort(([a], [b]) => (a < b ? -1 : 1))) io.out(`${cmd} ${k}=${shQuote(v)}\n`);
          return 0;
        }
        for (const a of names) {
          const eq = a.indexOf('=');
          const name = eq > 0 ? a.slice(0, eq) : a;
          const value = eq > 0 ? a.slice(eq + 1) : this.get(name);
          if (value !== undefined) {
            this.st.vars.set(name, value);
            this.ctx.env.set(name, value);
          }
        }
        return 0;
      }
      case 'unset':
        for (const a of args.filter((x) => !x.startsWith('-'))) {
          if (args.includes('-f')) this.st.funcs.delete(a);
          else this.unsetVar(a);
        }
        return 0;
      case 'local':
        for (const a of args) {
          const eq = a.indexOf('=');
          const name = eq > 0 ? a.slice(0, eq) : a;
          if (this.locals && !this.locals.has(name)) this.locals.set(name, this.st.vars.get(name));
          this.st.vars.set(name, eq > 0 ? a.slice(eq + 1) : (this.st.vars.get(name) ?? ''));
        }
        return 0;
      case 'set':
        return this.set(args, io);
      case 'shift': {
        const n = Number(args[0] ?? 1);
        if (n > this.st.positional.length) {
          io.err(`sh: shift: can't shift that many\n`);
          return 2;
        }
        this.st.positional = this.st.positional.slice(n);
        return 0;
      }
      case 'read':
        return this.read(args, io);
      case 'eval':
        return this.runScript(args.join(' '), io);
      case '.':
      case 'source': {
        const file = args[0] ?? '';
        const text = this.ctx.fs.read(file);
        if (text === undefined) {
          io.err(`sh: .: can't open '${file}'\n`);
          return 2;
        }
        return this.runScript(text, io);
      }
      case 'trap':
        return this.trap(args, io);
      case 'wait':
        return this.wait(args);
      case 'kill':
        return this.kill(args, io);
      case 'type':
      case 'command': {
        if (cmd === 'command' && args[0] !== '-v' && args[0] !== '-V') return args.length ? this.exec(args, io, true) : 0;
        const names = cmd === 'command' ? args.slice(1) : args;
        let st = 0;
        for (const n of names) {
          const w = RESERVED_WORDS.has(n) ? 'keyword' : this.which(n);
          if (cmd === 'command' && args[0] === '-v') {
            if (w === undefined) st = 1;
            else io.out(`${w === 'builtin' || w === 'function' || w === 'keyword' ? n : w}\n`);
            continue;
          }
          if (w === undefined) {
            io.out(`${n}: not found\n`);
            st = 1;
          } else if (w === 'keyword') io.out(`${n} is a shell keyword\n`);
          else if (w === 'builtin') io.out(`${n} is a shell builtin\n`);
          else if (w === 'function') io.out(`${n} is a function\n`);
          else io.out(`${n} is ${w}\n`);
        }
        return st;
      }
      case 'exec':
        if (args.length === 0) return 0;
        throw new ExitSignal(await this.exec(args, io, true));
      case 'let': {
        let v = 0;
        for (const a of args) {
          const r = this.arith(a, io);
          if (r === undefined) return 2;
          v = r;
        }
        return v === 0 ? 1 : 0;
      }
      case 'umask':
        io.out('0022\n');
        return 0;
      case 'times':
        io.out('0m0.00s 0m0.00s\n0m0.00s 0m0.00s\n');
        return 0;
      case 'getopts':
        return this.getopts(args);
    }
    return 0;
  }

  private set(args: string[], io: Io): number {
    if (args.length === 0) {
      const all = new Map([...this.ctx.env, ...this.st.vars]);
      for (const [k, v] of [...all].sort(([a], [b]) => (a < b ? -1 : 1))) io.out(`${k}=${shQuote(v)}\n`);
      return 0;
    }
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === '--') {
        this.st.positional = args.slice(i + 1);
        return 0;
      }
      if (a === '-o' || a === '+o') {
        const opt = args[++i];
        if (opt === 'pipefail') this.st.pipefail = a === '-o';
        else if (opt === 'errexit') this.st.errexit = a === '-o';
        else if (opt === 'xtrace') this.st.xtrace = a === '-o';
        else if (opt === 'nounset') this.st.nounset = a === '-o';
        else if (opt !== undefined) {
          io.err(`sh: set: illegal option -o ${opt}\n`);
          return 2;
        }
        continue;
      }
      if (!/^[-+]/.test(a)) {
        this.st.positional = args.slice(i);
        return 0;
      }
      for (const f of a.slice(1)) {
        const on = a[0] === '-';
        if (f === 'e') this.st.errexit = on;
        else if (f === 'x') this.st.xtrace = on;
        else if (f === 'u') this.st.nounset = on;
        else if (!'fvnCabhm'.includes(f)) {
          io.err(`sh: set: illegal option -${f}\n`);
          return 2;
        }
      }
    }
    return 0;
  }

  /** read [-r] [-p prompt] [-t secs] [NAME...]: one line, split by IFS, the last name takes the rest. */
  private async read(args: string[], io: Io): Promise<number> {
    let raw = false;
    let prompt = '';
    let timeout: number | undefined;
    const names: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === '-r') raw = true;
      else if (a === '-p') prompt = args[++i] ?? '';
      else if (a === '-t') timeout = Number(args[++i]);
      else if (a === '-s') continue;
      else names.push(a);
    }
    if (names.length === 0) names.push('REPLY');
    if (prompt) io.err(prompt);
    const reader = InputReader.of(io.stdin, this.ctx.signal);
    let line: string | null = '';
    let eof = false;
    for (;;) {
      const next: string | null =
        timeout !== undefined
          ? await Promise.race([reader.readLine(), this.ctx.sleep(timeout).then(() => undefined as unknown as null)])
          : await reader.readLine();
      if (next === null || next === undefined) {
        eof = true;
        if (timeout !== undefined && next === undefined) return 1;
        break;
      }
      let l = next.endsWith('\n') ? next.slice(0, -1) : next;
      if (!next.endsWith('\n')) eof = true;
      if (!raw && l.endsWith('\\')) {
        line += l.slice(0, -1);
        continue;
      }
      if (!raw) l = l.replace(/\\(.)/g, '$1');
      line += l;
      break;
    }
    const ifs = this.get('IFS') ?? ' \t\n';
    const parts = splitIfs(line, ifs, names.length);
    names.forEach((n, k) => this.setVar(n, parts[k] ?? ''));
    return eof && line === '' ? 1 : eof ? 1 : 0;
  }

  private trap(args: string[], io: Io): number {
    if (args.length === 0) {
      for (const [sig, action] of this.traps) io.out(`trap -- ${shQuote(action)} ${sig}\n`);
      return 0;
    }
    let action: string | undefined = args[0];
    let sigs = args.slice(1);
    if (/^\d+$/.test(args[0]) && args.length === 1) {
      action = undefined;
      sigs = args;
    }
    if (action === '-') action = undefined;
    for (const s of sigs) {
      const name = signalName(s);
      if (!name) {
        io.err(`sh: trap: ${s}: bad trap\n`);
        return 1;
      }
      if (action === undefined) this.traps.delete(name);
      else this.traps.set(name, action);
      if (name === 'TERM' || name === 'INT' || name === 'HUP' || name === 'QUIT')
        this.ctx.onSignal?.(this.traps.has('TERM') ? (sig) => this.signal(sig) : undefined);
    }
    return 0;
  }

  /** wait [pid...]: for background jobs; a trapped signal interrupts it with 128+signal. */
  private async wait(args: string[]): Promise<number> {
    const pids = args.length ? args.map((a) => Number(a.replace(/^%/, ''))) : [...this.jobs.keys()];
    let st = 0;
    for (const pid of pids) {
      const job = this.jobs.get(pid);
      if (!job) {
        st = 127;
        continue;
      }
      const interrupted = new Promise<'signal'>((resolve) => {
        this.wake = () => resolve('signal');
        if (this.pending.length) resolve('signal');
      });
      const r = await Promise.race([job.done, interrupted]);
      this.wake = undefined;
      if (r === 'signal') return 128 + (SIGNALS[this.pending[0] ?? 'TERM'] ?? 15);
      st = r;
      this.jobs.delete(pid);
    }
    // Without operands wait reports 0 once every job is done (POSIX).
    return args.length ? st : 0;
  }

  private kill(args: string[], io: Io): number {
    if (args[0] === '-l') {
      io.out(Object.keys(SIGNALS).join('\n') + '\n');
      return 0;
    }
    let sig = 'TERM';
    let rest = args;
    if (args[0] === '-s') {
      sig = signalName(args[1] ?? '') ?? 'TERM';
      rest = args.slice(2);
    } else if (args[0]?.startsWith('-')) {
      sig = signalName(args[0].slice(1)) ?? 'TERM';
      rest = args.slice(1);
    }
    let st = 0;
    for (const p of rest) {
      const pid = Number(p.replace(/^%/, ''));
      const job = this.jobs.get(pid);
      if (job) {
        if (sig !== 'CHLD') job.kill();
        continue;
      }
      if (processTable(this.ctx.fs).procs.has(pid)) continue;
      io.err(`sh: can't kill pid ${p}: No such process\n`);
      st = 1;
    }
    return st;
  }

  private getopts(args: string[]): number {
    const [spec = '', name = 'OPTARG'] = args;
    const params = args.length > 2 ? args.slice(2) : this.st.positional;
    let ind = Number(this.get('OPTIND') ?? 1);
    const arg = params[ind - 1];
    if (!arg || arg === '--' || !arg.startsWith('-') || arg === '-') {
      if (arg === '--') this.setVar('OPTIND', String(ind + 1));
      this.setVar(name, '?');
      return 1;
    }
    const pos = Number(this.get('_OPTPOS') ?? 1);
    const f = arg[pos];
    const k = spec.indexOf(f);
    const next = () => {
      if (pos + 1 < arg.length) this.setVar('_OPTPOS', String(pos + 1));
      else {
        this.setVar('_OPTPOS', '1');
        ind++;
      }
    };
    if (k < 0) {
      this.setVar(name, '?');
      next();
    } else if (spec[k + 1] === ':') {
      this.setVar(name, f);
      if (pos + 1 < arg.length) this.setVar('OPTARG', arg.slice(pos + 1));
      else this.setVar('OPTARG', params[ind++] ?? '');
      this.setVar('_OPTPOS', '1');
      ind++;
    } else {
      this.setVar(name, f);
      next();
    }
    this.setVar('OPTIND', String(ind));
    return 0;
  }

  // ---------------------------------------------------------------- scripts

  /** Runs a script in this shell (eval, ., trap actions); a syntax error is status 2. */
  async runScript(src: string, io: Io): Promise<number> {
    let tree: Node;
    try {
      tree = parseScript(src);
    } catch (e) {
      if (!(e instanceof ShellSyntaxError)) throw e;
      io.err(`sh: syntax error: ${e.message}\n`);
      return (this.status = 2);
    }
    return this.run(tree, io);
  }

  /** Runs a whole script as this shell's process: exit ends it, the EXIT trap runs. */
  async runText(src: string, io: Io): Promise<number> {
    try {
      return await this.runScript(src, io);
    } catch (e) {
      if (e instanceof ExitSignal) return e.code;
      if (e instanceof ReturnSignal) return e.code;
      if (e instanceof LoopSignal) return this.status;
      throw e;
    } finally {
      await this.exitTrap(io);
      this.killJobs();
    }
  }

  /**
   * `sh` reading its commands from stdin: each complete command runs as soon
   * as its last line arrives, with variables kept between them; on a terminal
   * a prompt (on stderr, as ash writes it) and `> ` while a construct is
   * unfinished. Ends at end of input with the last status, or at `exit`.
   */
  async interactive(reader: InputReader, io: Io): Promise<number> {
    const prompt = (more: boolean) => reader.tty && io.err(more ? '> ' : `${this.ctx.fs.cwd} # `);
    let script = '';
    prompt(false);
    try {
      for (;;) {
        const line = await reader.readLine();
        if (line === null) {
          if (script.trim()) {
            io.err(`sh: syntax error: unexpected end of file\n`);
            return 2;
          }
          return this.status;
        }
        script += line.endsWith('\n') ? line : line + '\n';
        let tree: Node;
        try {
          tree = parseScript(script, false);
        } catch (e) {
          if (!(e instanceof ShellSyntaxError)) throw e;
          if (e.incomplete) {
            prompt(true);
            continue;
          }
          io.err(`sh: syntax error: ${e.message}\n`);
          this.status = 2;
          script = '';
          prompt(false);
          continue;
        }
        script = '';
        await this.run(tree, { ...io, stdin: reader });
        await this.takeSignals(io);
        prompt(false);
      }
    } catch (e) {
      if (e instanceof ExitSignal) return e.code;
      throw e;
    } finally {
      await this.exitTrap(io);
      this.killJobs();
    }
  }

  // ---------------------------------------------------------------- expansion

  /** Every word's fields: expanded, split on IFS, globbed. */
  async expandAll(words: Word[], io: Io): Promise<string[]> {
    const out: string[] = [];
    for (const w of words) for (const f of await this.expandFields(w, io, 'fields')) out.push(...this.glob(f));
    return out;
  }

  /** One word expanded without splitting or globbing (assignments, redirection targets, case words). */
  async expandOne(word: Word, io: Io): Promise<string> {
    return (await this.expandFields(word, io, 'single')).map((f) => f.value).join(' ');
  }

  private glob(f: Field): string[] {
    if (!f.glob) return [f.value];
    const matches = globPaths(this.ctx.fs, f.pattern);
    return matches.length ? matches : [f.value];
  }

  /**
   * Expands a word: quotes, $VAR and ${...}, $(...), `...`, $((...)), ~.
   * 'fields' splits unquoted expansions on IFS; 'single' keeps one string;
   * 'pattern' keeps quoted characters literal in the glob pattern.
   */
  async expandFields(word: Word, io: Io, mode: 'fields' | 'single' | 'pattern'): Promise<Field[]> {
    const fields: Field[] = [];
    let cur: Field = { value: '', pattern: '', glob: false, quoted: false };
    const ifs = this.get('IFS') ?? ' \t\n';
    const flush = (force = false) => {
      if (force || cur.value !== '' || cur.quoted) fields.push(cur);
      cur = { value: '', pattern: '', glob: false, quoted: false };
    };
    const addQuoted = (t: string) => {
      cur.value += t;
      cur.pattern += escapeGlob(t);
      cur.quoted = true;
    };
    const addLiteral = (t: string) => {
      cur.value += t;
      cur.pattern += t;
      if (/[*?[]/.test(t)) cur.glob = true;
    };
    const addExpanded = (t: string) => {
      if (mode !== 'fields') {
        cur.value += t;
        cur.pattern += t;
        return;
      }
      const parts = splitFields(t, ifs);
      parts.forEach((p, k) => {
        if (k > 0) flush();
        cur.value += p.text;
        cur.pattern += p.text;
        if (/[*?[]/.test(p.text)) cur.glob = true;
      });
    };
    let i = 0;
    if (word.startsWith('~') && (word.length === 1 || word[1] === '/')) {
      addQuoted(this.get('HOME') ?? '/root');
      i = 1;
    }
    while (i < word.length) {
      const c = word[i];
      if (c === "'") {
        const end = word.indexOf("'", i + 1);
        addQuoted(word.slice(i + 1, end));
        i = end + 1;
      } else if (c === '"') {
        let j = i + 1;
        let onlyEmptyAt = false;
        cur.quoted = true;
        while (j < word.length && word[j] !== '"') {
          if (word[j] === '\\' && '"\\$`\n'.includes(word[j + 1])) {
            if (word[j + 1] !== '\n') addQuoted(word[j + 1]);
            j += 2;
          } else if (word[j] === '$' && (word[j + 1] === '@' || word.startsWith('{@}', j + 1))) {
            // "$@": one field per positional parameter.
            const len = word[j + 1] === '@' ? 2 : 4;
            const params = this.st.positional;
            if (params.length === 0) onlyEmptyAt = j === i + 1 && word[j + len] === '"';
            params.forEach((p, k) => {
              if (k > 0 && mode === 'fields') flush(true);
              else if (k > 0) addQuoted(' ');
              addQuoted(p);
            });
            j += len;
          } else if (word[j] === '$') {
            const [val, len] = await this.dollar(word, j, io, true);
            addQuoted(val);
            j += len;
          } else if (word[j] === '`') {
            const end = findBacktick(word, j);
            addQuoted(await this.commandSub(unescapeBacktick(word.slice(j + 1, end)), io));
            j = end + 1;
          } else addQuoted(word[j++]);
        }
        if (onlyEmptyAt && cur.value === '') cur.quoted = false;
        i = j + 1;
      } else if (c === '\\') {
        addQuoted(word[i + 1] ?? '');
        i += 2;
      } else if (c === '$') {
        if (word[i + 1] === '@' || word[i + 1] === '*') {
          const params = this.st.positional;
          if (mode === 'fields')
            params.forEach((p, k) => {
              if (k > 0) flush();
              addExpanded(p);
            });
          else addExpanded(params.join(' '));
          i += 2;
          continue;
        }
        const [val, len] = await this.dollar(word, i, io, false);
        addExpanded(val);
        i += len;
      } else if (c === '`') {
        const end = findBacktick(word, i);
        addExpanded(await this.commandSub(unescapeBacktick(word.slice(i + 1, end)), io));
        i = end + 1;
      } else {
        let j = i;
        while (j < word.length && !'\'"\\$`'.includes(word[j])) j++;
        addLiteral(word.slice(i, j));
        i = j;
      }
    }
    flush();
    if (mode === 'single' && fields.length === 0) return [{ value: '', pattern: '', glob: false, quoted: false }];
    return fields;
  }

  /** A here-document body: $ and ` expand, backslash quotes only $ ` \ and newline. */
  private async expandHeredoc(body: string, io: Io): Promise<string> {
    let out = '';
    let i = 0;
    while (i < body.length) {
      const c = body[i];
      if (c === '\\' && '$`\\\n'.includes(body[i + 1])) {
        if (body[i + 1] !== '\n') out += body[i + 1];
        i += 2;
      } else if (c === '$') {
        const [val, len] = await this.dollar(body, i, io, true);
        out += val;
        i += len;
      } else if (c === '`') {
        const end = findBacktick(body, i);
        out += await this.commandSub(unescapeBacktick(body.slice(i + 1, end)), io);
        i = end + 1;
      } else out += body[i++];
    }
    return out;
  }

  private async commandSub(script: string, io: Io): Promise<string> {
    let buf = '';
    const sub = this.fork();
    this.status = this.subStatus = await sub.runAsProcess(parseOrEmpty(script, io), {
      stdin: io.stdin,
      out: (t) => (buf += t),
      err: io.err,
    });
    return buf.replace(/\n+$/, '');
  }

  private arith(expr: string, io: Io): number | undefined {
    try {
      return evalArith(expr, { get: (n) => this.get(n), set: (n, v) => this.setVar(n, v) });
    } catch (e) {
      if (!(e instanceof ArithError)) throw e;
      io.err(`sh: ${e.message}\n`);
      return undefined;
    }
  }

  /** One $-expansion at `i`: its value and how many characters it took. */
  private async dollar(word: string, i: number, io: Io, quoted: boolean): Promise<[string, number]> {
    const next = word[i + 1];
    if (next === '(' && word[i + 2] === '(') {
      const end = findArithEnd(word, i + 3);
      if (end >= 0) {
        const expr = await this.expandHeredoc(word.slice(i + 3, end), io);
        const v = this.arith(expr, io);
        if (v === undefined) throw new ExitSignal(2);
        return [String(v), end + 2 - i];
      }
    }
    if (next === '(') {
      const end = matchParenIn(word, i + 1);
      return [await this.commandSub(word.slice(i + 2, end - 1), io), end - i];
    }
    if (next === '{') {
      const end = matchBrace(word, i + 1);
      return [await this.paramOp(word.slice(i + 2, end), io, quoted), end + 1 - i];
    }
    const special = '?$#!-0123456789';
    if (next !== undefined && special.includes(next)) return [this.special(next, io), 2];
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(word.slice(i + 1));
    if (!m) return ['$', 1];
    return [this.param(m[0], io), m[0].length + 1];
  }

  private special(c: string, io: Io): string {
    switch (c) {
      case '?':
        return String(this.status);
      case '$':
        return String(this.st.pid);
      case '#':
        return String(this.st.positional.length);
      case '!':
        return this.lastBg === undefined ? '' : String(this.lastBg);
      case '-':
        return (this.st.errexit ? 'e' : '') + (this.st.xtrace ? 'x' : '') + (this.st.nounset ? 'u' : '');
      case '0':
        return this.st.arg0;
    }
    return this.param(c, io);
  }

  private param(name: string, io: Io): string {
    // ash's dynamic variables.
    if (name === 'RANDOM' && !this.st.vars.has('RANDOM')) return String(Math.floor(Math.random() * 32768));
    if (name === 'PPID' && !this.st.vars.has('PPID')) return String(processTable(this.ctx.fs).procs.get(this.st.pid)?.ppid ?? 0);
    const v = /^\d+$/.test(name)
      ? this.st.positional[Number(name) - 1]
      : name.length === 1 && '?$#!-'.includes(name)
        ? this.special(name, io)
        : this.get(name);
    if (v === undefined && this.st.nounset && name !== '@' && name !== '*') {
      io.err(`sh: ${name}: parameter not set\n`);
      throw new ExitSignal(2);
    }
    return v ?? '';
  }

  /** ${...}: defaults, assignment, errors, length, prefix/suffix removal, substitution, substrings. */
  private async paramOp(body: string, io: Io, quoted: boolean): Promise<string> {
    if (body.startsWith('#') && body.length > 1 && /^#([A-Za-z_][A-Za-z0-9_]*|\d+|[@*#?])$/.test(body)) {
      const n = body.slice(1);
      if (n === '@' || n === '*') return String(this.st.positional.length);
      return String(this.param(n, io).length);
    }
    const m = /^([A-Za-z_][A-Za-z0-9_]*|\d+|[@*#?$!-])(.*)$/s.exec(body);
    if (!m) {
      io.err(`sh: syntax error: bad substitution\n`);
      throw new ExitSignal(2);
    }
    const [, name, rest] = m;
    const raw =
      name === '@' || name === '*'
        ? this.st.positional.join(' ')
        : /^\d+$/.test(name)
          ? this.st.positional[Number(name) - 1]
          : name.length === 1 && '?$#!-'.includes(name)
            ? this.special(name, io)
            : this.get(name);
    if (rest === '') {
      if (raw === undefined && this.st.nounset) {
        io.err(`sh: ${name}: parameter not set\n`);
        throw new ExitSignal(2);
      }
      return raw ?? '';
    }
    const word = async (w: string) => (quoted ? this.expandHeredoc(w, io) : this.expandOne(w, io));
    const op = /^(:-|:=|:\+|:\?|-|=|\+|\?|##|#|%%|%|\/\/|\/#|\/%|\/|:)/.exec(rest)?.[1];
    if (!op) {
      io.err(`sh: syntax error: bad substitution\n`);
      throw new ExitSignal(2);
    }
    const arg = rest.slice(op.length);
    const unsetOrEmpty = raw === undefined || (op.startsWith(':') && raw === '');
    switch (op) {
      case ':-':
      case '-':
        return unsetOrEmpty ? word(arg) : raw;
      case ':=':
      case '=':
        if (unsetOrEmpty) {
          const v = await word(arg);
          this.setVar(name, v);
          return v;
        }
        return raw;
      case ':+':
      case '+':
        return unsetOrEmpty ? '' : word(arg);
      case ':?':
      case '?':
        if (unsetOrEmpty) {
          io.err(`sh: ${name}: ${arg ? await word(arg) : 'parameter not set or null'}\n`);
          throw new ExitSignal(1);
        }
        return raw;
      case ':': {
        const [off, len] = arg.split(':');
        const v = raw ?? '';
        let o = this.arith(off, io) ?? 0;
        if (o < 0) o = Math.max(0, v.length + o);
        const l = len === undefined ? undefined : (this.arith(len, io) ?? 0);
        return l === undefined ? v.slice(o) : l < 0 ? v.slice(o, v.length + l) : v.slice(o, o + l);
      }
    }
    const v = raw ?? '';
    const pat = (await this.expandFields(op.startsWith('/') ? arg.split('/')[0] : arg, io, 'pattern'))[0]?.pattern ?? '';
    const re = (p: string) => new RegExp(`^(?:${globSource(p)})$`, 's');
    if (op === '#' || op === '##') {
      const r = re(pat);
      const lens = [...Array(v.length + 1).keys()];
      for (const n of op === '#' ? lens : lens.reverse()) if (r.test(v.slice(0, n))) return v.slice(n);
      return v;
    }
    if (op === '%' || op === '%%') {
      const r = re(pat);
      const starts = [...Array(v.length + 1).keys()];
      for (const n of op === '%' ? starts.reverse() : starts) if (r.test(v.slice(n))) return v.slice(0, n);
      return v;
    }
    // ${v/pat/rep}, ${v//pat/rep}, ${v/#pat/rep}, ${v/%pat/rep}: longest match, as bash and ash do.
    const slash = arg.indexOf('/');
    const rep = slash >= 0 ? await word(arg.slice(slash + 1)) : '';
    const src = globSource(pat);
    if (src === '') return v;
    const anchored = op === '/#' ? `^(?:${src})` : op === '/%' ? `(?:${src})$` : src;
    return v.replace(new RegExp(anchored, op === '//' ? 'gs' : 's'), () => rep);
  }
}

// ------------------------------------------------------------------ helpers

function parseOrEmpty(script: string, io: Io): Node {
  try {
    return parseScript(script);
  } catch (e) {
    if (!(e instanceof ShellSyntaxError)) throw e;
    io.err(`sh: syntax error: ${e.message}\n`);
    return { t: 'cmd', assigns: [], words: ['false'], redirects: [] };
  }
}

function echo(args: string[], io: Io): number {
  let nl = true;
  let escapes = false;
  let k = 0;
  for (; k < args.length && /^-[neE]+$/.test(args[k]); k++) {
    if (args[k].includes('n')) nl = false;
    if (args[k].includes('e')) escapes = true;
    if (args[k].includes('E')) escapes = false;
  }
  let text = args.slice(k).join(' ');
  if (escapes) {
    const cut = text.indexOf('\\c');
    if (cut >= 0) {
      text = text.slice(0, cut);
      nl = false;
    }
    text = unescapeC(text);
  }
  io.out(text + (nl ? '\n' : ''));
  return 0;
}

/** Quotes a value as `set` and `export -p` print it. */
function shQuote(v: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(v) ? v : `'${v.replace(/'/g, `'"'"'`)}'`;
}

function normalize(p: string, cwd: string): string {
  const parts: string[] = [];
  for (const seg of (p.startsWith('/') ? p : `${cwd}/${p}`).split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return '/' + parts.join('/');
}

/** Where busybox installs an applet (which, command -v). */
export function commandPath(name: string): string {
  return ['chroot', 'ifconfig', 'route', 'sysctl', 'halt', 'reboot', 'poweroff', 'mdev', 'swapon', 'modprobe'].includes(name)
    ? `/sbin/${name}`
    : [
          'env',
          'awk',
          'nc',
          'nslookup',
          'wget',
          'top',
          'free',
          'xargs',
          'tr',
          'cut',
          'sort',
          'uniq',
          'wc',
          'head',
          'tail',
          'tee',
          'seq',
          'id',
          'whoami',
          'nproc',
          'du',
          'which',
          'yes',
          'basename',
          'dirname',
          'test',
          '[',
          'printf',
          'tar',
          'clear',
          'find',
          'diff',
          'expr',
          'timeout',
          'nohup',
          'md5sum',
          'sha256sum',
          'base64',
          'stress',
          'curl',
        ].includes(name)
      ? `/usr/bin/${name}`
      : `/bin/${name}`;
}

function splitFields(t: string, ifs: string): { text: string }[] {
  if (ifs === '') return [{ text: t }];
  const ws = [...ifs].filter((c) => ' \t\n'.includes(c)).join('');
  const other = [...ifs].filter((c) => !' \t\n'.includes(c)).join('');
  const esc = (s: string) => s.replace(/[\\\]^-]/g, '\\$&');
  const trimmed = ws ? t.replace(new RegExp(`^[${esc(ws)}]+|[${esc(ws)}]+$`, 'g'), '') : t;
  if (trimmed === '') return t === '' ? [{ text: '' }] : [];
  const sep = new RegExp(other ? `[${esc(ws)}]*[${esc(other)}][${esc(ws)}]*|[${esc(ws)}]+` : `[${esc(ws)}]+`, 'g');
  return trimmed.split(sep).map((text) => ({ text }));
}

/** `read`'s split: at most n fields, the last keeps the rest of the line (its IFS whitespace trimmed). */
function splitIfs(line: string, ifs: string, n: number): string[] {
  const ws = [...ifs].filter((c) => ' \t\n'.includes(c));
  const isWs = (c: string) => ws.includes(c);
  const isSep = (c: string) => ifs.includes(c);
  const out: string[] = [];
  let i = 0;
  while (i < line.length && isWs(line[i])) i++;
  while (out.length < n - 1 && i < line.length) {
    let j = i;
    while (j < line.length && !isSep(line[j])) j++;
    out.push(line.slice(i, j));
    i = j;
    while (i < line.length && isWs(line[i])) i++;
    if (i < line.length && isSep(line[i]) && !isWs(line[i])) {
      i++;
      while (i < line.length && isWs(line[i])) i++;
    }
  }
  let last = line.slice(i);
  while (last && isWs(last[last.length - 1])) last = last.slice(0, -1);
  if (i < line.length || out.length < n) out.push(last);
  return out;
}

function escapeGlob(t: string): string {
  return t.replace(/[\\*?[\]]/g, '\\$&');
}

/** The regex source of a glob pattern (`*`, `?`, `[...]`, `[!...]`, backslash escapes). */
export function globSource(p: string, slash = true): string {
  let out = '';
  const any = slash ? '.' : '[^/]';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      out += (p[i + 1] ?? '').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      i++;
    } else if (c === '*') out += `${any}*`;
    else if (c === '?') out += any;
    else if (c === '[') {
      const end = p.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        let cls = p.slice(i + 1, end);
        if (cls[0] === '!' || cls[0] === '^') cls = '^' + cls.slice(1);
        out += `[${cls.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}

function globRegex(p: string): RegExp {
  return new RegExp(`^(?:${globSource(p)})$`, 's');
}

/** Pathname expansion against the simulated filesystem, sorted as sh sorts. */
function globPaths(fs: ShellContext['fs'], pattern: string): string[] {
  const abs = pattern.startsWith('/');
  const parts = pattern.split('/').filter((s, k) => s !== '' || k === 0);
  let bases = [abs ? '/' : ''];
  for (const part of parts) {
    if (part === '') continue;
    const next: string[] = [];
    const magic = /(^|[^\\])[*?[]/.test(part);
    for (const b of bases) {
      const dir = b === '' ? fs.cwd : b;
      const join = (n: string) => (b === '' ? n : b.endsWith('/') ? b + n : `${b}/${n}`);
      if (!magic) {
        const lit = part.replace(/\\(.)/g, '$1');
        const p = join(lit);
        if (fs.read(p) !== undefined || fs.isDir(p)) next.push(p);
        continue;
      }
      const re = new RegExp(`^(?:${globSource(part, false)})$`, 's');
      for (const n of fs.list(dir) ?? []) if ((!n.startsWith('.') || part.startsWith('.')) && re.test(n)) next.push(join(n));
    }
    bases = next;
  }
  return bases.filter((b) => b !== '' && b !== '/').sort();
}

function findBacktick(s: string, i: number): number {
  let j = i + 1;
  while (j < s.length && s[j] !== '`') j += s[j] === '\\' ? 2 : 1;
  return j;
}

function unescapeBacktick(s: string): string {
  return s.replace(/\\([$`\\])/g, '$1');
}

/** The index of the `))` closing an arithmetic expansion whose body starts at `i`, or -1. */
function findArithEnd(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    if (s[j] === '(') depth++;
    else if (s[j] === ')') {
      if (depth === 0) return s[j + 1] === ')' ? j : -1;
      depth--;
    }
  }
  return -1;
}

function matchParenIn(s: string, open: number): number {
  let depth = 0;
  for (let j = open; j < s.length; j++) {
    const ch = s[j];
    if (ch === '\\') j++;
    else if (ch === "'") j = s.indexOf("'", j + 1);
    else if (ch === '"') {
      j++;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
    } else if (ch === '(') depth++;
    else if (ch === ')' && --depth === 0) return j + 1;
    if (j < 0) break;
  }
  return s.length;
}

function matchBrace(s: string, open: number): number {
  let depth = 0;
  for (let j = open; j < s.length; j++) {
    const ch = s[j];
    if (ch === '\\') j++;
    else if (ch === "'") j = s.indexOf("'", j + 1);
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return j;
    if (j < 0) break;
  }
  return s.length;
}

/** True when `name`, as a container's command, is something the image can execute (a shell, an applet, an image program, a file). */
export function commandExists(name: string, ctx: ShellContext): boolean {
  const base = name.replace(/^\/(usr\/)?(local\/)?(s?bin)\//, '');
  return (
    SHELLS.has(base) ||
    BUILTINS.has(base) ||
    (!base.includes('/') && COMMANDS[base] !== undefined) ||
    ctx.programs?.(name) !== undefined ||
    (name.includes('/') && ctx.fs.read(name) !== undefined)
  );
}

/** The error containerd (runc) gives for a container command it cannot find, as kubelet reports it (StartError). */
export function executableNotFound(name: string): string {
  const what = name.includes('/') ? `stat ${name}: no such file or directory` : `exec: "${name}": executable file not found in $PATH`;
  return `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: ${what}: unknown`;
}

/** How a process ended. */
export interface ExitResult {
  exitCode: number;
  /** True when the process was OOM-killed. */
  oomKilled?: boolean;
}

/**
 * Runs a container's argv (command + args, already $(VAR)-expanded) to its
 * end as a process of the container (PID 1 for its main command). An argv
 * naming a shell runs its script; anything else runs as one command.
 * Resolves with the exit code; a kill resolves with the signal's code.
 */
export async function runProcess(argv: string[], container: ShellContext, stdin?: string | StdinStream): Promise<ExitResult> {
  // The process has its own working directory over the container's files.
  const ctx = { ...container, fs: processView(container.fs) };
  const table = processTable(ctx.fs);
  const u = ctx.user ?? { uid: 0, gid: 0 };
  const label = u.name ?? userName(ctx.fs, u.uid) ?? String(u.uid);
  if (argv.length === 0) return { exitCode: 0 };
  const [cmd0, ...args] = argv;
  const base = cmd0.replace(/^\/(usr\/)?(local\/)?(s?bin)\//, '');
  const asShell = SHELLS.has(base) && !ctx.programs?.(cmd0);
  // PID 1 is the command itself: a shell is this process (its traps see the container's signals); another command is spawned as it.
  const proc = asShell ? table.spawn(argv.join(' '), label, ctx.now()) : undefined;
  const shell = new Shell(ctx, {
    vars: new Map(),
    funcs: new Map(),
    positional: [],
    arg0: 'sh',
    errexit: false,
    xtrace: false,
    nounset: false,
    pipefail: false,
    pid: proc?.pid ?? 1,
  });
  const io: Io = { out: ctx.out, err: ctx.err ?? ctx.out, stdin: InputReader.of(stdin ?? ctx.stdin ?? '', ctx.signal) };
  try {
    if (asShell) return { exitCode: await shell.runShellArgs(args, io) };
    const code = await shell.exec(argv, io, true);
    return { exitCode: code };
  } catch (e) {
    if (e instanceof ExitSignal) return { exitCode: e.code };
    if (e instanceof OutOfMemory) return { exitCode: 137, oomKilled: true };
    if (e instanceof Killed) return { exitCode: e.exitCode };
    if (e instanceof BrokenPipe) return { exitCode: 141 };
    throw e;
  } finally {
    shell.killJobs();
    proc?.exit();
    ctx.onSignal?.(undefined);
  }
}
