// Files and directories over the simulated filesystem: cat, ls (-l -a -1
// -R, with owners, groups and modes), touch, mkdir (-p), rm (-r -f), rmdir,
// cp (-r), mv, ln (-s, as a copy: the filesystem has no links), chmod (octal
// and symbolic modes) and chown (user[:group], names or numbers), du, df,
// mount, find, stat-free. Errors are busybox's texts.
import { normalizePath } from '../filesystem.ts';
import type { SimFs, Volume } from '../filesystem.ts';
import { InputReader } from '../shell-context.ts';
import { strftime } from './system.ts';
import { groupId, groupName, userId, userName } from './users.ts';
import { getopts, usage, type Command, type CommandHost } from './types.ts';

const join = (dir: string, n: string) => (dir.endsWith('/') ? dir + n : `${dir}/${n}`);
const exists = (fs: SimFs, p: string) => fs.read(p) !== undefined || fs.isDir(p);

export const cat: Command = async (args, io, host) => {
  const fs = host.ctx.fs;
  const files = args.filter((a) => !/^-[a-zA-Z]+$/.test(a));
  const number = args.includes('-n');
  let n = 0;
  const emit = (t: string) => {
    if (!number) return io.out(t);
    io.out(t.replace(/^(.*)$/gm, (l, _x, off: number) => (off === t.length && l === '' ? '' : `${String(++n).padStart(6)}\t${l}`)));
  };
  if (files.length === 0) files.push('-');
  let st = 0;
  for (const f of files) {
    if (f === '-') {
      // A live stdin is copied as it comes, so `cat` in an exec session echoes each line.
      const r = InputReader.of(io.stdin, host.ctx.signal);
      for (let chunk = await r.read(); chunk !== null; chunk = await r.read()) emit(chunk);
      continue;
    }
    const content = fs.read(f);
    if (content === undefined) {
      io.err(fs.isDir(f) ? `cat: read error: Is a directory\n` : `cat: can't open '${f}': No such file or directory\n`);
      st = 1;
    } else emit(content);
  }
  return st;
};

/** `ls -l`'s mode column: the kind, then rwx for user, group and others with setuid/setgid/sticky as s/S and t/T. */
export function modeString(mode: number, dir: boolean): string {
  const bit = (m: number, c: string) => (mode & m ? c : '-');
  const special = (x: number, s: number, on: string, off: string, c: string) => (mode & s ? (mode & x ? on : off) : bit(x, c));
  return (
    (dir ? 'd' : '-') +
    bit(0o400, 'r') +
    bit(0o200, 'w') +
    special(0o100, 0o4000, 's', 'S', 'x') +
    bit(0o40, 'r') +
    bit(0o20, 'w') +
    special(0o10, 0o2000, 's', 'S', 'x') +
    bit(0o4, 'r') +
    bit(0o2, 'w') +
    special(0o1, 0o1000, 't', 'T', 'x')
  );
}

function longLine(fs: SimFs, path: string, name: string, now: number): string {
  const st = fs.stat(path) ?? { uid: 0, gid: 0, mode: 0o644, dir: false };
  const size = st.dir ? 4096 : Buffer.byteLength(fs.read(path) ?? '');
  const owner = userName(fs, st.uid) ?? String(st.uid);
  const group = groupName(fs, st.gid) ?? String(st.gid);
  return `${modeString(st.mode, st.dir)} ${String(st.dir ? 2 : 1).padStart(4)} ${owner.padEnd(8)} ${group.padEnd(8)} ${String(size).padStart(9)} ${strftime('%b %e %H:%M', now)} ${name}\n`;
}

export const ls: Command = (args, io, host) => {
  const o = getopts(args, 'laA1RhdtrSFp', '', { long: { all: 'a', color: 'F' } });
  if ('error' in o) return usage(io, 'ls', o.error);
  const f = o.flags;
  const fs = host.ctx.fs;
  const paths = o.rest.length ? o.rest : ['.'];
  let st = 0;
  const now = host.ctx.now();
  const files = paths.filter((p) => fs.read(p) !== undefined || (f.has('d') && fs.isDir(p)));
  const dirs = paths.filter((p) => !files.includes(p) && fs.isDir(p));
  for (const p of paths)
    if (!files.includes(p) && !dirs.includes(p)) {
      io.err(`ls: ${p}: No such file or directory\n`);
      st = 1;
    }
  const show = (entries: { path: string; name: string }[]) => {
    if (f.has('l')) for (const e of entries) io.out(longLine(fs, e.path, e.name, now));
    else if (entries.length) io.out(entries.map((e) => e.name).join('\n') + '\n');
  };
  show(files.map((p) => ({ path: p, name: p })));
  const listDir = (p: string, header: boolean) => {
    const all = fs.list(p) ?? [];
    const names = f.has('a') ? ['.', '..', ...all] : f.has('A') ? all : all.filter((n) => !n.startsWith('.'));
    if (f.has('r')) names.reverse();
    if (header) io.out(`${p}:\n`);
    if (f.has('l')) io.out(`total ${names.length * 4}\n`);
    show(names.map((n) => ({ path: n === '.' ? p : n === '..' ? normalizePath('..', normalizePath(p, fs.cwd)) : join(p, n), name: n })));
    if (f.has('R'))
      for (const n of all) {
        const sub = join(p, n);
        if (fs.isDir(sub) && fs.read(sub) === undefined) {
          io.out('\n');
          listDir(sub, true);
        }
      }
  };
  dirs.forEach((p, k) => {
    if (k > 0 || files.length) io.out('\n');
    listDir(p, paths.length > 1 || f.has('R'));
  });
  return st;
};

export const touch: Command = (args, io, host) => {
  const fs = host.ctx.fs;
  let st = 0;
  for (const f of args.filter((a) => !a.startsWith('-'))) {
    const e = fs.read(f) === undefined && !fs.isDir(f) ? fs.write(f, '') : undefined;
    if (e) {
      io.err(`touch: ${f}: ${e}\n`);
      st = 1;
    }
  }
  return st;
};

export const mkdir: Command = (args, io, host) => {
  const o = getopts(args, 'pv', 'm');
  if ('error' in o) return usage(io, 'mkdir', o.error);
  const fs = host.ctx.fs;
  let st = 0;
  for (const d of o.rest) {
    const abs = normalizePath(d, fs.cwd);
    const parent = abs.slice(0, abs.lastIndexOf('/')) || '/';
    if (fs.read(abs) !== undefined || (fs.isDir(abs) && !o.flags.has('p'))) {
      io.err(`mkdir: can't create directory '${d}': File exists\n`);
      st = 1;
      continue;
    }
    if (!o.flags.has('p') && !fs.isDir(parent)) {
      io.err(`mkdir: can't create directory '${d}': No such file or directory\n`);
      st = 1;
      continue;
    }
    // A directory is writable when a file may be written in it.
    const probe = join(abs, '.ksim-probe');
    const err = fs.write(probe, '');
    if (err === 'Read-only file system') {
      io.err(`mkdir: can't create directory '${d}': Read-only file system\n`);
      st = 1;
      continue;
    }
    fs.remove(probe);
    fs.mkdir(abs);
  }
  return st;
};

function removeTree(fs: SimFs, p: string): boolean {
  let ok = fs.remove(p);
  const names = fs.list(p);
  if (names) {
    for (const n of names) ok = removeTree(fs, join(p, n)) || ok;
    ok = removeDir(fs, p) || ok;
  }
  return ok;
}

/** Forgets an explicit directory (the filesystem keeps them in its volumes' dir sets). */
function removeDir(fs: SimFs, p: string): boolean {
  const r = (fs as unknown as { resolve(p: string): { vol: Volume; rel: string; readOnly: boolean } }).resolve(p);
  if (r.readOnly) return false;
  r.vol.attrs.delete(r.rel);
  return r.vol.dirs.delete(r.rel) || true;
}

export const rm: Command = (args, io, host) => {
  const o = getopts(args, 'rRfiv');
  if ('error' in o) return usage(io, 'rm', o.error);
  const fs = host.ctx.fs;
  const force = o.flags.has('f');
  const recursive = o.flags.has('r') || o.flags.has('R');
  let st = 0;
  for (const f of o.rest) {
    if (fs.isDir(f) && fs.read(f) === undefined) {
      if (!recursive) {
        io.err(`rm: '${f}' is a directory\n`);
        st = 1;
      } else if (!removeTree(fs, f)) {
        io.err(`rm: can't remove '${f}': Read-only file system\n`);
        st = 1;
      }
      continue;
    }
    if (!fs.remove(f) && !force) {
      io.err(
        fs.read(f) !== undefined
          ? `rm: can't remove '${f}': Read-only file system\n`
          : `rm: can't remove '${f}': No such file or directory\n`,
      );
      st = 1;
    }
  }
  return st;
};

export const rmdir: Command = (args, io, host) => {
  const fs = host.ctx.fs;
  let st = 0;
  for (const d of args.filter((a) => !a.startsWith('-'))) {
    const names = fs.list(d);
    if (names === undefined) {
      io.err(`rmdir: '${d}': No such file or directory\n`);
      st = 1;
    } else if (names.length) {
      io.err(`rmdir: '${d}': Directory not empty\n`);
      st = 1;
    } else removeDir(fs, d);
  }
  return st;
};

function copyTree(fs: SimFs, from: string, to: string): string | undefined {
  const content = fs.read(from);
  if (content !== undefined) return fs.write(to, content);
  fs.mkdir(to);
  for (const n of fs.list(from) ?? []) {
    const e = copyTree(fs, join(from, n), join(to, n));
    if (e) return e;
  }
  return undefined;
}

function copyOrMove(cmd: 'cp' | 'mv' | 'ln'): Command {
  return (args, io, host) => {
    const o = getopts(args, 'rRafpvisnT');
    if ('error' in o) return usage(io, cmd, o.error);
    const fs = host.ctx.fs;
    const ops = o.rest;
    if (ops.length < (cmd === 'ln' ? 1 : 2)) return usage(io, cmd, 'missing operand');
    const dest = ops.length === 1 ? '.' : ops[ops.length - 1];
    const sources = ops.length === 1 ? ops : ops.slice(0, -1);
    const destIsDir = fs.isDir(dest) && fs.read(dest) === undefined;
    if (sources.length > 1 && !destIsDir) {
      io.err(`${cmd}: '${dest}' is not a directory\n`);
      return 1;
    }
    let st = 0;
    for (const s of sources) {
      const src =
        cmd === 'ln' && o.flags.has('s') && !s.startsWith('/')
          ? normalizePath(s, normalizePath(destIsDir ? dest : dest.replace(/\/[^/]*$/, '') || '.', fs.cwd))
          : s;
      const target = destIsDir ? join(dest, s.replace(/\/+$/, '').split('/').pop()!) : dest;
      if (!exists(fs, src)) {
        io.err(`${cmd}: can't stat '${s}': No such file or directory\n`);
        st = 1;
        continue;
      }
      const isDir = fs.isDir(src) && fs.read(src) === undefined;
      if (isDir && cmd === 'cp' && !o.flags.has('r') && !o.flags.has('R') && !o.flags.has('a')) {
        io.err(`cp: omitting directory '${s}'\n`);
        st = 1;
        continue;
      }
      const e = copyTree(fs, src, target);
      if (e) {
        io.err(`${cmd}: can't create '${target}': ${e}\n`);
        st = 1;
        continue;
      }
      if (cmd === 'mv' && !removeTree(fs, src)) {
        io.err(`mv: can't remove '${s}': Read-only file system\n`);
        st = 1;
      }
    }
    return st;
  };
}

export const cp = copyOrMove('cp');
export const mv = copyOrMove('mv');
/** ln -s: the filesystem has no links, so the link is a copy of what it points at, taken now. */
export const ln = copyOrMove('ln');

/**
 * A chmod mode applied to `mode`: octal (`755`, `2775`), or symbolic clauses
 * (`u+x`, `go-w`, `a=r`, `+x`, `u+s`, `o+t`, comma-separated, `a` implied
 * when no one is named, as busybox without a umask); undefined when invalid.
 */
export function applyMode(spec: string, mode: number, dir: boolean): number | undefined {
  if (/^[0-7]{1,4}$/.test(spec)) return parseInt(spec, 8);
  let m = mode;
  for (const clause of spec.split(',')) {
    const c = /^([ugoa]*)([-+=])([rwxXst]*)$/.exec(clause);
    if (!c) return undefined;
    const who = c[1] === '' || c[1].includes('a') ? 'ugo' : c[1];
    let bits = 0;
    for (const p of c[3]) {
      const perm = p === 'r' ? 4 : p === 'w' ? 2 : p === 'x' || (p === 'X' && (dir || (mode & 0o111) !== 0)) ? 1 : 0;
      for (const w of who) {
        const shift = w === 'u' ? 6 : w === 'g' ? 3 : 0;
        bits |= perm << shift;
        if (p === 's' && w === 'u') bits |= 0o4000;
        if (p === 's' && w === 'g') bits |= 0o2000;
      }
      if (p === 't') bits |= 0o1000;
    }
    const whoMask = [...who].reduce((a, w) => a | (w === 'u' ? 0o4700 : w === 'g' ? 0o2070 : 0o1007), 0);
    if (c[2] === '+') m |= bits;
    else if (c[2] === '-') m &= ~bits;
    else m = (m & ~whoMask) | bits;
  }
  return m & 0o7777;
}

const recursively = (fs: SimFs, p: string, recursive: boolean, fn: (p: string) => void) => {
  fn(p);
  if (!recursive || fs.read(p) !== undefined) return;
  for (const n of fs.list(p) ?? []) recursively(fs, join(p, n), true, fn);
};

/** chmod [-R] MODE FILE...: stores the mode bits `ls -l` shows (they are not enforced). */
export const chmod: Command = (args, io, host) => {
  const fs = host.ctx.fs;
  const recursive = args.some((a) => /^-[Rvcf]*R[Rvcf]*$/.test(a));
  const ops = args.filter((a) => !/^-[Rvcf]+$/.test(a));
  if (ops.length < 2) return usage(io, 'chmod', 'missing operand');
  const [spec, ...files] = ops;
  let st = 0;
  for (const f of files) {
    if (!exists(fs, f)) {
      io.err(`chmod: ${f}: No such file or directory\n`);
      st = 1;
      continue;
    }
    recursively(fs, f, recursive, (p) => {
      const cur = fs.stat(p)!;
      const next = applyMode(spec, cur.mode, cur.dir);
      if (next === undefined) {
        io.err(`chmod: invalid mode '${spec}'\n`);
        st = 1;
      } else if (!fs.chmod(p, next)) {
        io.err(`chmod: ${p}: Read-only file system\n`);
        st = 1;
      }
    });
  }
  return st;
};

/** chown [-R] USER[:GROUP] FILE... (also `:GROUP`): names from the container's /etc/passwd and /etc/group, or numbers. */
export const chown: Command = (args, io, host) => {
  const fs = host.ctx.fs;
  const recursive = args.some((a) => /^-[Rvcfh]*R[Rvcfh]*$/.test(a));
  const ops = args.filter((a) => !/^-[Rvcfh]+$/.test(a));
  if (ops.length < 2) return usage(io, 'chown', 'missing operand');
  const [spec, ...files] = ops;
  const [userPart, groupPart] = spec.split(/[:.]/, 2);
  const uid = userPart ? userId(fs, userPart) : undefined;
  if (userPart && uid === undefined) {
    io.err(`chown: unknown user ${userPart}\n`);
    return 1;
  }
  const gid = groupPart ? groupId(fs, groupPart) : undefined;
  if (groupPart && gid === undefined) {
    io.err(`chown: unknown group ${groupPart}\n`);
    return 1;
  }
  let st = 0;
  for (const f of files) {
    if (!exists(fs, f)) {
      io.err(`chown: ${f}: No such file or directory\n`);
      st = 1;
      continue;
    }
    recursively(fs, f, recursive, (p) => {
      if (!fs.chown(p, uid, gid)) {
        io.err(`chown: ${p}: Read-only file system\n`);
        st = 1;
      }
    });
  }
  return st;
};

/** Kibibytes a file takes on disk (4 KiB blocks). */
const blocksK = (bytes: number) => Math.ceil(bytes / 4096) * 4;

function human(k: number): string {
  if (k < 1024) return `${k}.0K`.replace(/^0\.0K$/, '0');
  const units = ['K', 'M', 'G', 'T'];
  let v = k;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)}${units[u]}`;
}

export const du: Command = (args, io, host) => {
  const o = getopts(args, 'sahkmcxL', 'd');
  if ('error' in o) return usage(io, 'du', o.error);
  const fs = host.ctx.fs;
  const f = o.flags;
  const fmt = (k: number) => (f.has('h') ? human(k) : f.has('m') ? String(Math.ceil(k / 1024)) : String(k));
  const maxDepth = f.has('s') ? 0 : f.has('d') ? Number(f.get('d')![0]) : Infinity;
  let total = 0;
  let st = 0;
  const visit = (p: string, depth: number): number => {
    const c = fs.read(p);
    if (c !== undefined) {
      const k = blocksK(Buffer.byteLength(c));
      if (f.has('a') && depth <= maxDepth) io.out(`${fmt(k)}\t${p}\n`);
      return k;
    }
    let k = 4;
    for (const n of fs.list(p) ?? []) k += visit(join(p, n), depth + 1);
    if (depth <= maxDepth) io.out(`${fmt(k)}\t${p}\n`);
    return k;
  };
  for (const p of o.rest.length ? o.rest : ['.']) {
    if (!exists(fs, p)) {
      io.err(`du: can't open '${p}': No such file or directory\n`);
      st = 1;
      continue;
    }
    const k = visit(p, 0);
    if (fs.read(p) !== undefined && !f.has('a')) io.out(`${fmt(k)}\t${p}\n`);
    total += k;
  }
  if (f.has('c')) io.out(`${fmt(total)}\ttotal\n`);
  return st;
};

/** The container's mounts as the runtime makes them: the overlay root, /proc, /dev, the Pod's volumes. */
function mounts(fs: SimFs): { source: string; path: string; type: string; opts: string; sizeK: number }[] {
  const vols = ((fs as unknown as { mounts?: { path: string; volume: Volume; readOnly: boolean }[] }).mounts ?? [])
    .slice()
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const base = [
    { source: 'overlay', path: '/', type: 'overlay', opts: 'rw,relatime', sizeK: 102_626_232 },
    { source: 'proc', path: '/proc', type: 'proc', opts: 'rw,nosuid,nodev,noexec,relatime', sizeK: 0 },
    { source: 'tmpfs', path: '/dev', type: 'tmpfs', opts: 'rw,nosuid,size=65536k,mode=755', sizeK: 65_536 },
    { source: 'sysfs', path: '/sys', type: 'sysfs', opts: 'ro,nosuid,nodev,noexec,relatime', sizeK: 0 },
    { source: 'shm', path: '/dev/shm', type: 'tmpfs', opts: 'rw,nosuid,nodev,noexec,relatime,size=65536k', sizeK: 65_536 },
  ];
  for (const p of ['/etc/hosts', '/etc/hostname', '/etc/resolv.conf', '/dev/termination-log'])
    if (fs.read(p) !== undefined || p === '/dev/termination-log')
      base.push({ source: '/dev/sda1', path: p, type: 'ext4', opts: 'rw,relatime', sizeK: 102_626_232 });
  for (const m of vols) {
    const tmpfs = m.path.startsWith('/var/run/secrets') || m.path.startsWith('/run/secrets');
    base.push({
      source: tmpfs ? 'tmpfs' : '/dev/sda1',
      path: m.path,
      type: tmpfs ? 'tmpfs' : 'ext4',
      opts: `${m.readOnly ? 'ro' : 'rw'},relatime`,
      sizeK: tmpfs ? 16_252_928 : 102_626_232,
    });
  }
  return base;
}

export const mount: Command = (args, io, host) => {
  if (args.length) {
    io.err('mount: permission denied (are you root?)\n');
    return 255;
  }
  for (const m of mounts(host.ctx.fs)) io.out(`${m.source} on ${m.path} type ${m.type} (${m.opts})\n`);
  return 0;
};

export const df: Command = (args, io, host) => {
  const o = getopts(args, 'hkmaPT');
  if ('error' in o) return usage(io, 'df', o.error);
  const h = o.flags.has('h');
  const fs = host.ctx.fs;
  let list = mounts(fs).filter((m) => m.sizeK > 0);
  if (o.rest.length) {
    const abs = o.rest.map((p) => normalizePath(p, fs.cwd));
    list = abs.map(
      (p) =>
        [...list]
          .filter((m) => p === m.path || p.startsWith(m.path === '/' ? '/' : m.path + '/'))
          .sort((a, b) => b.path.length - a.path.length)[0],
    );
  }
  const fmtK = (k: number) => (h ? human(k).replace(/\.0K$/, '.0K') : String(k));
  io.out(
    h
      ? 'Filesystem                Size      Used Available Use% Mounted on\n'
      : 'Filesystem           1K-blocks      Used Available Use% Mounted on\n',
  );
  for (const m of list) {
    const used = m.source === 'overlay' || m.source === '/dev/sda1' ? Math.round(m.sizeK * 0.18) : 0;
    const avail = m.sizeK - used;
    const pct = `${Math.round((used * 100) / m.sizeK)}%`;
    io.out(
      `${m.source.padEnd(20)} ${fmtK(m.sizeK).padStart(h ? 9 : 9)} ${fmtK(used).padStart(9)} ${fmtK(avail).padStart(9)} ${pct.padStart(4)} ${m.path}\n`,
    );
  }
  return 0;
};

export const find: Command = (args, io, host) => {
  const fs = host.ctx.fs;
  const roots: string[] = [];
  let i = 0;
  while (i < args.length && !args[i].startsWith('-') && args[i] !== '!' && args[i] !== '(') roots.push(args[i++]);
  const tests: ((p: string, name: string, depth: number) => boolean)[] = [];
  let maxDepth = Infinity;
  let minDepth = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    const v = args[i + 1];
    if (a === '-name' || a === '-iname') {
      i++;
      const re = new RegExp(
        `^${(v ?? '')
          .replace(/[.+^${}()|\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(/\?/g, '.')}$`,
        a === '-iname' ? 'i' : '',
      );
      tests.push((_p, n) => re.test(n));
    } else if (a === '-type') {
      i++;
      tests.push((p) => (v === 'd' ? fs.read(p) === undefined && fs.isDir(p) : v === 'f' ? fs.read(p) !== undefined : false));
    } else if (a === '-maxdepth') {
      i++;
      maxDepth = Number(v);
    } else if (a === '-mindepth') {
      i++;
      minDepth = Number(v);
    } else if (a === '-print' || a === '-print0') continue;
    else {
      io.err(`find: unrecognized: ${a}\n`);
      return 1;
    }
  }
  let st = 0;
  const visit = (p: string, depth: number) => {
    const name = p.split('/').filter(Boolean).pop() ?? p;
    if (depth >= minDepth && tests.every((t) => t(p, name, depth))) io.out(p + '\n');
    if (depth >= maxDepth) return;
    if (fs.read(p) !== undefined) return;
    for (const n of fs.list(p) ?? []) visit(join(p, n), depth + 1);
  };
  for (const r of roots.length ? roots : ['.']) {
    if (!exists(fs, r)) {
      io.err(`find: ${r}: No such file or directory\n`);
      st = 1;
      continue;
    }
    visit(r, 0);
  }
  return st;
};

export type { CommandHost };

/** readlink -f / realpath: the absolute, normalized path (there are no links to follow). */
export const readlink: Command = (args, io, host) => {
  const fs = host.ctx.fs;
  const ops = args.filter((a) => !a.startsWith('-'));
  if (!args.includes('-f')) return 1;
  for (const p of ops) io.out(normalizePath(p, fs.cwd) + '\n');
  return 0;
};
