// The simulated shell that runs a container's command/args and exec probes:
// enough of POSIX sh for what learners write in manifests (sleep, exit, echo,
// `sh -c "a; b && c"`, while/for/if, $VAR and $(cmd), > and >> redirects,
// pipes into cat, stdout and stderr with 2>&1, >&2, 2>/dev/null) over a
// simulated filesystem, with every sleep on the injected clock so a test can
// run `sleep 3600` without waiting, and `sh` reading commands from a live
// stdin (an attached or exec'd terminal) as an interactive shell does.
import type { ClusterNet } from './cluster-net.ts';
import type { SimFs } from './filesystem.ts';
import { readAllStdin, type StdinStream } from './stdin-pipe.ts';

/** What a running command can touch. */
export interface ShellContext {
  fs: SimFs;
  env: Map<string, string>;
  /** Writes one chunk to the container's stdout (the log); a plain function, passed around as a callback. */
  out: (text: string) => void;
  /** Writes one chunk to stderr; without it stderr goes where stdout goes. */
  err?: (text: string) => void;
  /** The process's live stdin (an attached or exec'd client); without it stdin is empty. */
  stdin?: StdinStream;
  /** Aborted (with a Killed reason) when the process is killed, so a read of stdin ends too. */
  signal?: AbortSignal;
  /** Sleeps on the simulated clock (already scaled by --speed); rejects with Killed when the process is killed. */
  sleep(seconds: number): Promise<void>;
  /** The memory limit in bytes, or undefined; `stress --vm-bytes` / `alloc` beyond it is an OOM kill. */
  memoryLimit?: number;
  /** Now, for `date`. */
  now(): number;
  /** Cluster DNS and HTTP for nslookup, wget and curl; without it, every name fails to resolve. */
  net?: ClusterNet;
}

/** Thrown out of a command when its process is killed; carries the exit code a signal gives. */
export class Killed extends Error {
  constructor(readonly exitCode = 137) {
    super('killed');
  }
}

/** Thrown when a command allocates beyond the memory limit. */
export class OutOfMemory extends Error {}

class ExitSignal extends Error {
  constructor(readonly code: number) {
    super('exit');
  }
}

// ------------------------------------------------------------------ parsing

type Word = string; // raw (still quoted) text, expanded at run time
interface Simple {
  t: 'cmd';
  words: Word[];
  redirects: Redirect[];
}
/** `[fd]>file`, `[fd]>>file`, `[fd]<file`, `[fd]>&fd`: in order, as sh applies them. */
interface Redirect {
  fd: number;
  op: '>' | '>>' | '<' | '>&';
  target: Word;
}
/** A redirection operator token: an optional fd number and the operator; its target is the next token. */
const REDIRECT_OP = /^(\d?)(>>|>&|>|<)$/;
interface Pipeline {
  t: 'pipe';
  cmds: Node[];
  negate: boolean;
}
interface AndOr {
  t: 'andor';
  first: Node;
  rest: { op: '&&' | '||'; node: Node }[];
}
interface Seq {
  t: 'seq';
  items: Node[];
}
interface While {
  t: 'while';
  until: boolean;
  cond: Node;
  body: Node;
}
interface For {
  t: 'for';
  name: string;
  words: Word[];
  body: Node;
}
interface If {
  t: 'if';
  branches: { cond: Node; body: Node }[];
  otherwise?: Node;
}
type Node = Simple | Pipeline | AndOr | Seq | While | For | If;

/** A syntax error, reported as sh does. */
export class ShellSyntaxError extends Error {}

/** Splits a script into tokens: words (with their quotes kept) and operators. */
export function tokenize(src: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '\n') {
      out.push(';');
      i++;
      continue;
    }
    const two = src.slice(i, i + 2);
    // A digit is an fd number only when it starts the token and touches the operator (`2>`, not `a2>`).
    const redirect = /^\d?(>>|>&|>|<)/.exec(src.slice(i, i + 3));
    if (redirect) {
      out.push(redirect[0]);
      i += redirect[0].length;
      continue;
    }
    if (two === '&&' || two === '||' || two === ';;') {
      out.push(two);
      i += 2;
      continue;
    }
    if (c === ';' || c === '|' || c === '>' || c === '<' || c === '&' || c === '(' || c === ')') {
      out.push(c === '&' ? ';' : c);
      i++;
      continue;
    }
    let w = '';
    while (i < src.length && !' \t\n;|&<>()'.includes(src[i])) {
      const ch = src[i];
      if (ch === "'") {
        const end = src.indexOf("'", i + 1);
        if (end < 0) throw new ShellSyntaxError('Unterminated quoted string');
        w += src.slice(i, end + 1);
        i = end + 1;
      } else if (ch === '"') {
        let j = i + 1;
        while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
        if (j >= src.length) throw new ShellSyntaxError('Unterminated quoted string');
        w += src.slice(i, j + 1);
        i = j + 1;
      } else if (ch === '\\') {
        w += src.slice(i, i + 2);
        i += 2;
      } else if (ch === '$' && src[i + 1] === '(') {
        let depth = 0;
        let j = i + 1;
        for (; j < src.length; j++) {
          if (src[j] === '(') depth++;
          else if (src[j] === ')' && --depth === 0) break;
        }
        w += src.slice(i, j + 1);
        i = j + 1;
      } else {
        w += ch;
        i++;
      }
    }
    out.push(w);
  }
  return out;
}

const KEYWORDS_END = new Set(['do', 'done', 'then', 'fi', 'else', 'elif', ')']);

class Parser {
  private i = 0;
  constructor(private readonly toks: string[]) {}

  parseAll(): Node {
    const n = this.list(new Set());
    if (this.i < this.toks.length) throw new ShellSyntaxError(`syntax error: unexpected "${this.toks[this.i]}"`);
    return n;
  }

  private peek(): string | undefined {
    return this.toks[this.i];
  }

  private expect(t: string): void {
    if (this.toks[this.i] !== t)
      throw new ShellSyntaxError(`syntax error: unexpected "${this.toks[this.i] ?? 'end of file'}" (expecting "${t}")`);
    this.i++;
  }

  private list(stop: Set<string>): Seq {
    const items: Node[] = [];
    for (;;) {
      while (this.peek() === ';') this.i++;
      const p = this.peek();
      if (p === undefined || stop.has(p)) break;
      items.push(this.andOr());
    }
    return { t: 'seq', items };
  }

  private andOr(): Node {
    const first = this.pipeline();
    const rest: AndOr['rest'] = [];
    while (this.peek() === '&&' || this.peek() === '||') {
      const op = this.toks[this.i++] as '&&' | '||';
      rest.push({ op, node: this.pipeline() });
    }
    return rest.length ? { t: 'andor', first, rest } : first;
  }

  private pipeline(): Node {
    let negate = false;
    if (this.peek() === '!') {
      negate = true;
      this.i++;
    }
    const cmds = [this.command()];
    while (this.peek() === '|') {
      this.i++;
      cmds.push(this.command());
    }
    return cmds.length === 1 && !negate ? cmds[0] : { t: 'pipe', cmds, negate };
  }

  private command(): Node {
    const p = this.peek();
    if (p === 'while' || p === 'until') {
      this.i++;
      const cond = this.list(new Set(['do']));
      this.expect('do');
      const body = this.list(new Set(['done']));
      this.expect('done');
      return { t: 'while', until: p === 'until', cond, body };
    }
    if (p === 'for') {
      this.i++;
      const name = this.toks[this.i++];
      const words: Word[] = [];
      if (this.peek() === 'in') {
        this.i++;
        while (this.peek() !== undefined && this.peek() !== ';' && this.peek() !== 'do') words.push(this.toks[this.i++]);
      }
      while (this.peek() === ';') this.i++;
      this.expect('do');
      const body = this.list(new Set(['done']));
      this.expect('done');
      return { t: 'for', name, words, body };
    }
    if (p === 'if') {
      this.i++;
      const branches: If['branches'] = [];
      let otherwise: Node | undefined;
      for (;;) {
        const cond = this.list(new Set(['then']));
        this.expect('then');
        const body = this.list(new Set(['elif', 'else', 'fi']));
        branches.push({ cond, body });
        const k = this.toks[this.i++];
        if (k === 'elif') continue;
        if (k === 'else') {
          otherwise = this.list(new Set(['fi']));
          this.expect('fi');
        } else if (k !== 'fi') throw new ShellSyntaxError('syntax error: unexpected end of file (expecting "fi")');
        break;
      }
      return { t: 'if', branches, otherwise };
    }
    if (p === '(') {
      this.i++;
      const body = this.list(new Set([')']));
      this.expect(')');
      return body;
    }
    const words: Word[] = [];
    const redirects: Simple['redirects'] = [];
    for (;;) {
      const t = this.peek();
      if (t === undefined || t === ';' || t === '|' || t === '&&' || t === '||' || (words.length === 0 && KEYWORDS_END.has(t)) || t === ')')
        break;
      const r = REDIRECT_OP.exec(t);
      if (r) {
        this.i++;
        const target = this.toks[this.i++];
        if (target === undefined || target === ';' || REDIRECT_OP.test(target))
          throw new ShellSyntaxError(`syntax error: unexpected ${target === undefined || target === ';' ? 'newline' : `"${target}"`}`);
        const op = r[2] as Redirect['op'];
        redirects.push({ fd: r[1] ? Number(r[1]) : op === '<' ? 0 : 1, op, target });
        continue;
      }
      words.push(t);
      this.i++;
    }
    if (words.length === 0 && redirects.length === 0)
      throw new ShellSyntaxError(`syntax error: unexpected "${this.peek() ?? 'end of file'}"`);
    return { t: 'cmd', words, redirects };
  }
}

/** Parses a script into its syntax tree. */
export function parseScript(src: string): Node {
  return new Parser(tokenize(src)).parseAll();
}

// ------------------------------------------------------------------ running

/** A command's streams; out and err are plain functions, handed on to the commands it runs. */
interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  stdin: string | StdinStream;
}

/** Parses sizes like 250M, 250Mi, 1G, 1048576. */
export function parseBytes(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([kKmMgGtT]i?)?[bB]?$/.exec(s);
  if (!m) return NaN;
  const unit = (m[2] ?? '').toLowerCase();
  const pow = { '': 0, k: 1, m: 2, g: 3, t: 4 }[unit[0] ?? ''] ?? 0;
  return Number(m[1]) * (unit.endsWith('i') || unit.length === 1 ? 1024 : 1000) ** pow;
}

/** One shell process (its variables and last exit status). */
class Shell {
  private status = 0;
  private steps = 0;

  constructor(
    private readonly ctx: ShellContext,
    private readonly vars: Map<string, string>,
  ) {}

  async run(node: Node, io: Io): Promise<number> {
    // A loop without sleeps must not starve the event loop (or a fake clock).
    if (++this.steps % 200 === 0) await this.ctx.sleep(0.01);
    switch (node.t) {
      case 'seq':
        for (const n of node.items) this.status = await this.run(n, io);
        return this.status;
      case 'andor': {
        let st = await this.run(node.first, io);
        for (const r of node.rest) if ((r.op === '&&') === (st === 0)) st = await this.run(r.node, io);
        return (this.status = st);
      }
      case 'pipe': {
        let input: Io['stdin'] = io.stdin;
        let st = 0;
        for (let k = 0; k < node.cmds.length; k++) {
          const last = k === node.cmds.length - 1;
          let buf = '';
          st = await this.run(node.cmds[k], { stdin: input, err: io.err, out: last ? io.out : (t) => (buf += t) });
          input = buf;
        }
        return (this.status = node.negate ? (st === 0 ? 1 : 0) : st);
      }
      case 'while':
        for (;;) {
          const c = await this.run(node.cond, io);
          if ((c === 0) === node.until) break;
          await this.run(node.body, io);
        }
        return (this.status = 0);
      case 'for': {
        const items = (await Promise.all(node.words.map((w) => this.expandFields(w)))).flat();
        for (const v of items) {
          this.vars.set(node.name, v);
          await this.run(node.body, io);
        }
        return this.status;
      }
      case 'if':
        for (const b of node.branches) if ((await this.run(b.cond, io)) === 0) return (this.status = await this.run(b.body, io));
        return (this.status = node.otherwise ? await this.run(node.otherwise, io) : 0);
      case 'cmd':
        return (this.status = await this.simple(node, io));
    }
  }

  private async simple(node: Simple, io: Io): Promise<number> {
    const argv: string[] = [];
    for (const w of node.words) argv.push(...(await this.expandFields(w)));
    // VAR=value alone sets a variable.
    while (argv.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0]) && node.words.length) {
      const a = argv.shift()!;
      const eq = a.indexOf('=');
      this.vars.set(a.slice(0, eq), a.slice(eq + 1));
    }
    if (argv.length === 0) return 0;
    // The fd table, changed by each redirection in turn (so `>f 2>&1` and `2>&1 >f` differ, as in sh).
    const fds: Record<number, (t: string) => void> = { 1: io.out, 2: io.err };
    let stdin = io.stdin;
    const discard = () => {};
    for (const r of node.redirects) {
      const target = (await this.expandFields(r.target))[0] ?? '';
      if (r.op === '>&') {
        if (target === '-') fds[r.fd] = discard;
        else if (/^\d$/.test(target) && fds[Number(target)]) fds[r.fd] = fds[Number(target)];
        else {
          io.err(`sh: ${target}: bad file descriptor\n`);
          return 1;
        }
      } else if (r.op === '<') {
        const content = this.ctx.fs.read(target);
        if (content === undefined) {
          io.err(`sh: can't open ${target}: no such file\n`);
          return 1;
        }
        if (r.fd === 0) stdin = content;
      } else if (target === '/dev/null') fds[r.fd] = discard;
      else if (target === '/dev/stderr') fds[r.fd] = fds[2];
      else if (target === '/dev/stdout') fds[r.fd] = fds[1];
      else {
        const err = this.ctx.fs.write(target, r.op === '>>' ? (this.ctx.fs.read(target) ?? '') : '');
        if (err) {
          io.err(`sh: can't create ${target}: ${err}\n`);
          return 1;
        }
        fds[r.fd] = (t) => this.ctx.fs.append(target, t);
      }
    }
    return this.exec(argv, { out: fds[1], err: fds[2], stdin });
  }

  /** Runs one command line already split into words. */
  async exec(argv: string[], io: Io): Promise<number> {
    const err = io.err;
    const [cmd0, ...args] = argv;
    const cmd = cmd0.replace(/^\/(usr\/)?(s?bin)\//, '');
    const fs = this.ctx.fs;
    switch (cmd) {
      case 'sh':
      case 'bash':
      case 'ash':
      case 'dash': {
        const c = args.indexOf('-c');
        if (c >= 0) return this.runScript(args[c + 1] ?? '', io);
        if (typeof io.stdin !== 'string') return this.interactive(io.stdin, io);
        return this.runScript(io.stdin, io);
      }
      case 'true':
      case ':':
        return 0;
      case 'false':
        return 1;
      case 'exit':
        throw new ExitSignal(args[0] === undefined ? this.status : Number(args[0]) & 255);
      case 'sleep': {
        const total = args.reduce((s, a) => s + parseDuration(a), 0);
        if (args.length === 0 || Number.isNaN(total)) {
          err(`sleep: invalid number '${args[0] ?? ''}'\n`);
          return 1;
        }
        if (args[0] === 'infinity') await this.ctx.sleep(Infinity);
        else await this.ctx.sleep(total);
        return 0;
      }
      case 'echo': {
        let a = args;
        let nl = true;
        if (a[0] === '-n') {
          nl = false;
          a = a.slice(1);
        } else if (a[0] === '-e') a = a.slice(1);
        io.out(a.join(' ') + (nl ? '\n' : ''));
        return 0;
      }
      case 'printf': {
        const fmt = (args[0] ?? '').replace(/\\n/g, '\n').replace(/\\t/g, '\t');
        let k = 1;
        io.out(fmt.replace(/%[sd]/g, () => args[k++] ?? ''));
        return 0;
      }
      case 'cat': {
        if (args.length === 0) {
          if (typeof io.stdin === 'string') io.out(io.stdin);
          // A live stdin is copied as it comes, so `cat` in an exec session echoes each line.
          else
            for (let chunk = await io.stdin.read(this.ctx.signal); chunk !== null; chunk = await io.stdin.read(this.ctx.signal))
              io.out(chunk);
          return 0;
        }
        let st = 0;
        for (const f of args) {
          const content = fs.read(f);
          if (content === undefined) {
            err(fs.isDir(f) ? `cat: read error: Is a directory\n` : `cat: can't open '${f}': No such file or directory\n`);
            st = 1;
          } else io.out(content);
        }
        return st;
      }
      case 'ls': {
        const flags = args.filter((a) => a.startsWith('-')).join('');
        const paths = args.filter((a) => !a.startsWith('-'));
        let st = 0;
        for (const p of paths.length ? paths : [fs.cwd]) {
          const entries = fs.list(p);
          if (entries === undefined) {
            if (fs.read(p) !== undefined) io.out(p + '\n');
            else {
              err(`ls: ${p}: No such file or directory\n`);
              st = 1;
            }
            continue;
          }
          if (paths.length > 1) io.out(`${p}:\n`);
          const shown = flags.includes('a') ? ['.', '..', ...entries] : entries.filter((e) => !e.startsWith('.'));
          if (flags.includes('l'))
            for (const e of shown)
              io.out(
                `${fs.isDir(joinPath(p, e)) ? 'drwxr-xr-x' : '-rw-r--r--'}    1 root     root  ${String(fs.read(joinPath(p, e))?.length ?? 4096).padStart(8)} ${e}\n`,
              );
          else if (shown.length) io.out(shown.join('\n') + '\n');
        }
        return st;
      }
      case 'env':
      case 'printenv': {
        if (args.length && cmd === 'printenv') {
          const v = this.ctx.env.get(args[0]) ?? this.vars.get(args[0]);
          if (v === undefined) return 1;
          io.out(v + '\n');
          return 0;
        }
        for (const [k, v] of this.ctx.env) io.out(`${k}=${v}\n`);
        return 0;
      }
      case 'hostname':
        io.out((fs.read('/etc/hostname') ?? '').trim() + '\n');
        return 0;
      case 'touch': {
        let st = 0;
        for (const f of args) {
          const e = fs.read(f) === undefined ? fs.write(f, '') : undefined;
          if (e) {
            err(`touch: ${f}: ${e}\n`);
            st = 1;
          }
        }
        return st;
      }
      case 'mkdir':
        for (const d of args.filter((a) => !a.startsWith('-'))) fs.mkdir(d);
        return 0;
      case 'rm': {
        const force = args.some((a) => a.startsWith('-') && a.includes('f'));
        let st = 0;
        for (const f of args.filter((a) => !a.startsWith('-'))) {
          if (!fs.remove(f) && !force) {
            err(`rm: can't remove '${f}': No such file or directory\n`);
            st = 1;
          }
        }
        return st;
      }
      case 'test':
      case '[': {
        const a = cmd === '[' ? args.slice(0, -1) : args;
        return evalTest(a, fs) ? 0 : 1;
      }
      case 'date':
        io.out(new Date(this.ctx.now()).toUTCString().replace('GMT', 'UTC') + '\n');
        return 0;
      case 'pwd':
        io.out(fs.cwd + '\n');
        return 0;
      case 'cd':
        fs.cwd = args[0] ?? '/';
        return 0;
      case 'export':
        for (const a of args) {
          const eq = a.indexOf('=');
          if (eq > 0) this.ctx.env.set(a.slice(0, eq), a.slice(eq + 1));
        }
        return 0;
      case 'wc': {
        const text =
          args.length && !args[args.length - 1].startsWith('-')
            ? (fs.read(args[args.length - 1]) ?? '')
            : await readAllStdin(io.stdin, this.ctx.signal);
        io.out(`${text.split('\n').length - (text.endsWith('\n') ? 1 : 0)}\n`);
        return 0;
      }
      case 'grep': {
        const pat = args.find((a) => !a.startsWith('-')) ?? '';
        const lines = (await readAllStdin(io.stdin, this.ctx.signal)).split('\n').filter((l) => l.includes(pat));
        if (lines.length) io.out(lines.join('\n') + '\n');
        return lines.length ? 0 : 1;
      }
      case 'stress':
      case 'alloc': {
        // `stress --vm 1 --vm-bytes 250M` (the classic memory-limit lab) or `alloc 250Mi`.
        const k = args.indexOf('--vm-bytes');
        const bytes = parseBytes(cmd === 'alloc' ? (args[0] ?? '') : k >= 0 ? (args[k + 1] ?? '') : '256M');
        if (this.ctx.memoryLimit !== undefined && bytes > this.ctx.memoryLimit) throw new OutOfMemory();
        if (cmd === 'stress') await this.ctx.sleep(Infinity);
        return 0;
      }
      case 'nslookup': {
        const host = args.find((a) => !a.startsWith('-')) ?? '';
        io.out('Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n');
        const r = this.ctx.net?.resolve(host);
        if (!r) {
          const ns = /search (\S+)/.exec(this.ctx.fs.read('/etc/resolv.conf') ?? '')?.[1] ?? 'default.svc.cluster.local';
          io.out(`** server can't find ${host.includes('.') ? host : `${host}.${ns}`}: NXDOMAIN\n\n`);
          return 1;
        }
        io.out(`Name:\t${r.fqdn}\nAddress: ${r.ip}\n\n`);
        return 0;
      }
      case 'wget':
      case 'curl':
        return this.http(cmd, args, io, err);
      case 'nginx':
      case 'httpd':
      case 'nc':
      case 'tail':
        // Long-running daemons (`tail -f /dev/null` keeps a container up).
        await this.ctx.sleep(Infinity);
        return 0;
      default:
        err(`sh: ${cmd0}: not found\n`);
        return 127;
    }
  }

  /** busybox wget and curl against the simulated cluster network. */
  private async http(cmd: 'wget' | 'curl', args: string[], io: Io, err: (t: string) => void): Promise<number> {
    let url = '';
    let outFile: string | undefined;
    let quiet = false;
    let fail = false;
    const outFlag = cmd === 'wget' ? 'O' : 'o';
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === '--output' || a === '--output-document') outFile = args[++i];
      else if (a.startsWith('--')) {
        if (a === '--silent' || a === '--quiet') quiet = true;
        if (a === '--fail') fail = true;
        if (['--timeout', '--max-time', '--header'].includes(a)) i++;
      } else if (a.startsWith('-') && a.length > 1) {
        // A cluster of short flags, e.g. -qO- or -sSf.
        for (let k = 1; k < a.length; k++) {
          const f = a[k];
          if (f === outFlag || 'TmH'.includes(f)) {
            const value = a.length > k + 1 ? a.slice(k + 1) : args[++i];
            if (f === outFlag) outFile = value;
            break;
          }
          if (f === (cmd === 'wget' ? 'q' : 's')) quiet = true;
          if (cmd === 'curl' && f === 'f') fail = true;
        }
      } else url = a;
    }
    if (cmd === 'wget' && outFile === undefined) outFile = 'index.html';
    const u = (() => {
      try {
        return new URL(/^[a-z]+:\/\//.test(url) ? url : `http://${url}`);
      } catch {
        return undefined;
      }
    })();
    const host = u?.hostname ?? url;
    const port = u?.port || '80';
    const res = this.ctx.net?.httpGet(url) ?? { ok: false as const, error: 'resolve' as const };
    await this.ctx.sleep(0.01);
    if (!res.ok) {
      if (cmd === 'wget') {
        err(
          res.error === 'resolve'
            ? `wget: bad address '${host}${u?.port ? `:${port}` : ''}'\n`
            : `wget: can't connect to remote host (${res.ip}): Connection refused\n`,
        );
        return 1;
      }
      if (res.error === 'resolve') {
        err(`curl: (6) Could not resolve host: ${host}\n`);
        return 6;
      }
      err(`curl: (7) Failed to connect to ${host} port ${port} after 0 ms: Couldn't connect to server\n`);
      return 7;
    }
    if (cmd === 'wget') {
      if (!quiet) err(`Connecting to ${host}${u?.port ? `:${port}` : ''} (${this.ctx.net?.resolve(host)?.ip}:${port})\n`);
      if (res.status >= 400) {
        err(
          `wget: server returned error: HTTP/1.1 ${res.status} ${res.status === 404 ? 'Not Found' : res.status === 403 ? 'Forbidden' : 'Error'}\n`,
        );
        return 1;
      }
      if (outFile === '-') {
        if (!quiet) err('writing to stdout\n');
        io.out(res.body);
      } else {
        this.ctx.fs.write(outFile!, res.body);
        if (!quiet)
          err(
            `saving to '${outFile}'\n${outFile}           100% |********************************|   ${res.body.length}  0:00:00 ETA\n'${outFile}' saved\n`,
          );
      }
      return 0;
    }
    if (fail && res.status >= 400) {
      if (!quiet) err(`curl: (22) The requested URL returned error: ${res.status}\n`);
      return 22;
    }
    if (outFile && outFile !== '-') this.ctx.fs.write(outFile, res.body);
    else io.out(res.body);
    return 0;
  }

  async runScript(src: string, io: Io): Promise<number> {
    let tree: Node;
    try {
      tree = parseScript(src);
    } catch (e) {
      io.err(`sh: ${(e as Error).message}\n`);
      return 2;
    }
    return this.run(tree, io);
  }

  /**
   * `sh` reading its commands from a live stdin: one command per line, run as
   * it arrives, with variables kept between lines; on a terminal a prompt
   * (on stderr, as ash writes it) and `> ` while a construct is unfinished.
   * Ends at end of file with the last status, or at `exit`.
   */
  private async interactive(stdin: StdinStream, io: Io): Promise<number> {
    const prompt = (more: boolean) => stdin.tty && io.err(more ? '> ' : `${this.ctx.fs.cwd} # `);
    let pending = '';
    let script = '';
    prompt(false);
    for (;;) {
      const nl = pending.indexOf('\n');
      if (nl < 0) {
        const chunk = await stdin.read(this.ctx.signal);
        if (chunk !== null) {
          pending += chunk;
          continue;
        }
        if (!pending && !script) return this.status;
        pending += '\n';
        continue;
      }
      script += pending.slice(0, nl + 1);
      pending = pending.slice(nl + 1);
      let tree: Node;
      try {
        tree = parseScript(script);
      } catch (e) {
        if (/end of file|Unterminated/.test((e as Error).message)) {
          prompt(true);
          continue;
        }
        io.err(`sh: ${(e as Error).message}\n`);
        this.status = 2;
        script = '';
        prompt(false);
        continue;
      }
      script = '';
      // The line may read stdin itself (`cat`): it gets what follows on the stream; else the shell keeps it.
      const rest = prefixed(pending, stdin);
      await this.run(tree, { ...io, stdin: rest });
      if (rest.headTaken) pending = '';
      prompt(false);
    }
  }

  /** Expands $VAR, ${VAR}, $?, $(cmd) and quotes; unquoted results split on whitespace. */
  private async expandFields(word: Word): Promise<string[]> {
    const fields: string[] = [];
    let cur = '';
    let quotedSomething = false;
    const push = () => {
      if (cur !== '' || quotedSomething) fields.push(cur);
      cur = '';
      quotedSomething = false;
    };
    let i = 0;
    while (i < word.length) {
      const c = word[i];
      if (c === "'") {
        const end = word.indexOf("'", i + 1);
        cur += word.slice(i + 1, end);
        quotedSomething = true;
        i = end + 1;
      } else if (c === '"') {
        let j = i + 1;
        let inner = '';
        while (j < word.length && word[j] !== '"') {
          if (word[j] === '\\' && '"\\$`'.includes(word[j + 1])) {
            inner += word[j + 1];
            j += 2;
          } else if (word[j] === '$') {
            const [val, len] = await this.dollar(word, j);
            inner += val;
            j += len;
          } else inner += word[j++];
        }
        cur += inner;
        quotedSomething = true;
        i = j + 1;
      } else if (c === '\\') {
        cur += word[i + 1] ?? '';
        i += 2;
      } else if (c === '$') {
        const [val, len] = await this.dollar(word, i);
        const parts = val.split(/[ \t\n]+/);
        parts.forEach((p, k) => {
          if (k > 0) push();
          cur += p;
        });
        i += len;
      } else {
        cur += c;
        i++;
      }
    }
    push();
    return fields;
  }

  private async dollar(word: string, i: number): Promise<[string, number]> {
    const next = word[i + 1];
    if (next === '?') return [String(this.status), 2];
    if (next === '(') {
      let depth = 0;
      let j = i + 1;
      for (; j < word.length; j++) {
        if (word[j] === '(') depth++;
        else if (word[j] === ')' && --depth === 0) break;
      }
      let buf = '';
      const sub = new Shell(this.ctx, new Map(this.vars));
      try {
        await sub.runScript(word.slice(i + 2, j), { stdin: '', out: (t) => (buf += t), err: this.ctx.err ?? this.ctx.out });
      } catch (e) {
        if (!(e instanceof ExitSignal)) throw e;
      }
      return [buf.replace(/\n+$/, ''), j - i + 1];
    }
    if (next === '{') {
      const end = word.indexOf('}', i);
      const name = word.slice(i + 2, end).replace(/:-.*$/, '');
      const dflt = /:-(.*)$/.exec(word.slice(i + 2, end))?.[1];
      return [this.lookup(name) ?? dflt ?? '', end - i + 1];
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*|^[0-9]/.exec(word.slice(i + 1));
    if (!m) return ['$', 1];
    return [this.lookup(m[0]) ?? '', m[0].length + 1];
  }

  private lookup(name: string): string | undefined {
    return this.vars.get(name) ?? this.ctx.env.get(name);
  }
}

/** A stream that yields `head` first (if not empty), then the rest of `rest`; headTaken says whether a reader took it. */
function prefixed(head: string, rest: StdinStream): StdinStream & { headTaken: boolean } {
  const s = {
    tty: rest.tty,
    headTaken: head === '',
    read: (signal?: AbortSignal) => {
      if (s.headTaken) return rest.read(signal);
      s.headTaken = true;
      return Promise.resolve(head);
    },
  };
  return s;
}

function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

function parseDuration(a: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(a);
  if (!m) return a === 'infinity' ? 0 : NaN;
  return Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
}

function evalTest(a: string[], fs: SimFs): boolean {
  if (a[0] === '!') return !evalTest(a.slice(1), fs);
  if (a.length === 2) {
    const [op, v] = a;
    if (op === '-f') return fs.read(v) !== undefined;
    if (op === '-d') return fs.isDir(v);
    if (op === '-e') return fs.read(v) !== undefined || fs.isDir(v);
    if (op === '-s') return (fs.read(v) ?? '').length > 0;
    if (op === '-z') return v === '';
    if (op === '-n') return v !== '';
  }
  if (a.length === 3) {
    const [l, op, r] = a;
    if (op === '=' || op === '==') return l === r;
    if (op === '!=') return l !== r;
    const x = Number(l);
    const y = Number(r);
    if (op === '-eq') return x === y;
    if (op === '-ne') return x !== y;
    if (op === '-lt') return x < y;
    if (op === '-le') return x <= y;
    if (op === '-gt') return x > y;
    if (op === '-ge') return x >= y;
  }
  return a.length === 1 && a[0] !== '';
}

/** How a process ended. */
export interface ExitResult {
  exitCode: number;
  /** True when the process was OOM-killed. */
  oomKilled?: boolean;
}

/**
 * Runs a container's argv (command + args, already $(VAR)-expanded) to its
 * end. An argv naming a shell runs its script; anything else runs as one
 * command. Resolves with the exit code; Killed propagates as its exit code.
 */
export async function runProcess(argv: string[], ctx: ShellContext, stdin?: string | StdinStream): Promise<ExitResult> {
  const shell = new Shell(ctx, new Map());
  try {
    if (argv.length === 0) throw new ExitSignal(0);
    const code = await shell.exec(argv, { out: ctx.out, err: ctx.err ?? ctx.out, stdin: stdin ?? ctx.stdin ?? '' });
    return { exitCode: code };
  } catch (e) {
    if (e instanceof ExitSignal) return { exitCode: e.code };
    if (e instanceof OutOfMemory) return { exitCode: 137, oomKilled: true };
    if (e instanceof Killed) return { exitCode: e.exitCode };
    throw e;
  }
}
