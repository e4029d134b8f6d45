// tar: create (c), extract (x) and list (t) ustar archives on stdin/stdout
// or a file (-f), relative to -C DIR; -z and -m are accepted (the archive is
// not compressed: the simulated filesystem holds text). This is what
// `kubectl cp` runs: `tar cf - PATH` out of a Pod, `tar -xmf - -C DIR` into one.
import { normalizePath } from '../filesystem.ts';
import { InputReader } from '../shell-context.ts';
import { type Command, type CommandHost } from './types.ts';

const BLOCK = 512;

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function field(s: string, width: number): string {
  const b = Buffer.from(s, 'utf8');
  return b.subarray(0, width).toString('latin1').padEnd(width, '\0');
}

/** One 512-byte header, as a latin1 string of bytes. */
function header(name: string, size: number, type: '0' | '5' | 'x', mtime: number, mode: number): string {
  let prefix = '';
  let n = name;
  if (Buffer.byteLength(n) > 100) {
    const cut = n.lastIndexOf('/', n.length - 1 - 1);
    if (cut > 0 && cut <= 155 && Buffer.byteLength(n.slice(cut + 1)) <= 100) {
      prefix = n.slice(0, cut);
      n = n.slice(cut + 1);
    }
  }
  const fields = [
    field(n, 100),
    octal(mode, 8),
    octal(0, 8),
    octal(0, 8),
    octal(size, 12),
    octal(Math.floor(mtime / 1000), 12),
    '        ',
    type,
    field('', 100),
    'ustar\u000000',
    field('root', 32),
    field('root', 32),
    octal(0, 8),
    octal(0, 8),
    field(prefix, 155),
    field('', 12),
  ];
  let h = fields.join('');
  let sum = 0;
  for (let i = 0; i < h.length; i++) sum += h.charCodeAt(i);
  h = h.slice(0, 148) + octal(sum, 7) + ' ' + h.slice(156);
  return h;
}

/** A whole archive of `entries` as a string of bytes (latin1) . */
function archive(entries: { name: string; dir: boolean; content: string }[], now: number): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = Buffer.from(e.content, 'utf8');
    let name = e.name;
    if (e.dir && !name.endsWith('/')) name += '/';
    if (Buffer.byteLength(name) > 100 && !/^.{0,155}\/[^/]{1,100}$/.test(name)) {
      // A PAX header carries a long path (as Go's archive/tar writes it).
      const rec = (s: string) => {
        let len = Buffer.byteLength(s) + 3;
        while (String(len).length + 1 + Buffer.byteLength(s) + 1 !== len) len = String(len).length + 1 + Buffer.byteLength(s) + 1;
        return `${len} ${s}\n`;
      };
      const pax = Buffer.from(rec(`path=${name}`), 'utf8');
      parts.push(Buffer.from(header('PaxHeaders/' + name.slice(-80), pax.length, 'x', now, 0o644), 'latin1'), pad(pax));
    }
    parts.push(Buffer.from(header(name, e.dir ? 0 : data.length, e.dir ? '5' : '0', now, e.dir ? 0o755 : 0o644), 'latin1'));
    if (!e.dir) parts.push(pad(data));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function pad(b: Buffer): Buffer {
  const rem = b.length % BLOCK;
  return rem ? Buffer.concat([b, Buffer.alloc(BLOCK - rem)]) : b;
}

const cstr = (b: Buffer) => {
  const z = b.indexOf(0);
  return (z >= 0 ? b.subarray(0, z) : b).toString('utf8');
};

/** The entries of an archive's bytes; an error text for a broken one. */
export function readArchive(
  bytes: Buffer,
): { entries: { name: string; dir: boolean; content: string; mode: number; size: number }[] } | { error: string } {
  const entries: { name: string; dir: boolean; content: string; mode: number; size: number }[] = [];
  let off = 0;
  let longName: string | undefined;
  while (off + BLOCK <= bytes.length) {
    const h = bytes.subarray(off, off + BLOCK);
    if (h.every((x) => x === 0)) break;
    const size = parseInt(cstr(h.subarray(124, 136)).trim() || '0', 8);
    const type = String.fromCharCode(h[156] || 48);
    const magic = h.subarray(257, 262).toString('latin1');
    let name = cstr(h.subarray(0, 100));
    if (magic === 'ustar') {
      const prefix = cstr(h.subarray(345, 500));
      if (prefix) name = `${prefix}/${name}`;
    }
    const body = bytes.subarray(off + BLOCK, off + BLOCK + size);
    if (body.length < size) return { error: 'short read' };
    off += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'x' || type === 'L') {
      if (type === 'L') longName = cstr(body);
      else for (const m of body.toString('utf8').matchAll(/\d+ path=([^\n]*)\n/g)) longName = m[1];
      continue;
    }
    if (type === 'g') continue;
    if (longName !== undefined) {
      name = longName;
      longName = undefined;
    }
    entries.push({
      name,
      dir: type === '5',
      content: type === '5' ? '' : body.toString('utf8'),
      mode: parseInt(cstr(h.subarray(100, 108)) || '644', 8),
      size,
    });
  }
  return { entries };
}

function walk(host: CommandHost, abs: string, name: string, out: { name: string; dir: boolean; content: string }[]): boolean {
  const fs = host.ctx.fs;
  const content = fs.read(abs);
  if (content !== undefined) {
    out.push({ name, dir: false, content });
    return true;
  }
  const names = fs.list(abs);
  if (names === undefined) return false;
  out.push({ name, dir: true, content: '' });
  for (const n of names)
    walk(host, abs === '/' ? `/${n}` : `${abs}/${n}`, name === '' || name.endsWith('/') ? name + n : `${name}/${n}`, out);
  return true;
}

export const tar: Command = async (args, io, host) => {
  // Old-style first argument: "cf", "xvf" (no dash), values taken in order after it.
  const a = [...args];
  const flags: string[] = [];
  const values: Record<string, string> = {};
  const files: string[] = [];
  const takesValue = 'fCTX';
  const pending: string[] = [];
  if (a.length && !a[0].startsWith('-')) {
    for (const f of a.shift()!) {
      flags.push(f);
      if (takesValue.includes(f)) pending.push(f);
    }
  }
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    if (pending.length && (!x.startsWith('-') || x === '-')) {
      values[pending.shift()!] = x;
      continue;
    }
    if (x.startsWith('--')) {
      if (x === '--exclude' || x === '--directory' || x === '--file') i++;
      if (x.startsWith('--directory=')) values.C = x.slice(12);
      continue;
    }
    if (x.startsWith('-') && x.length > 1) {
      for (let k = 1; k < x.length; k++) {
        const f = x[k];
        flags.push(f);
        if (takesValue.includes(f)) {
          values[f] = x.length > k + 1 ? x.slice(k + 1) : (a[++i] ?? '');
          break;
        }
      }
      continue;
    }
    files.push(x);
  }
  const fs = host.ctx.fs;
  const mode = flags.find((f) => 'cxt'.includes(f));
  if (!mode) {
    io.err('tar: need exactly one of -c, -x or -t\n');
    return 1;
  }
  const base = values.C ? normalizePath(values.C, fs.cwd) : fs.cwd;
  if (values.C && !fs.isDir(base)) {
    io.err(`tar: can't change directory to '${values.C}': No such file or directory\n`);
    return 1;
  }
  const verbose = flags.includes('v');
  const file = values.f ?? '-';
  const toStdout = file === '-';
  if (mode === 'c') {
    if (!files.length) {
      io.err('tar: empty archive\n');
      return 1;
    }
    const entries: { name: string; dir: boolean; content: string }[] = [];
    let st = 0;
    let warned = false;
    for (const f of files) {
      const abs = normalizePath(f, base);
      let name = f.replace(/^\.\/+/, '');
      if (name.startsWith('/')) {
        if (!warned) io.err("tar: removing leading '/' from member names\n");
        warned = true;
        name = name.replace(/^\/+/, '');
      }
      if (f === '.' || f === './') name = '.';
      const before = entries.length;
      if (!walk(host, abs, name === '.' ? './' : name, entries)) {
        io.err(`tar: ${f}: No such file or directory\n`);
        st = 1;
      }
      if (verbose) for (const e of entries.slice(before)) io.err(e.name + (e.dir && !e.name.endsWith('/') ? '/' : '') + '\n');
    }
    const bytes = archive(entries, host.ctx.now());
    // Bytes leave as text: UTF-8 content round-trips (the stream encodes what it is given as UTF-8).
    const text = bytes.toString('utf8');
    if (toStdout) io.out(text);
    else {
      const e = fs.write(normalizePath(file, fs.cwd), text);
      if (e) {
        io.err(`tar: can't open '${file}': ${e}\n`);
        return 1;
      }
    }
    return st;
  }
  let raw: string;
  if (toStdout) raw = await InputReader.of(io.stdin, host.ctx.signal).readAll();
  else {
    const t = fs.read(normalizePath(file, fs.cwd));
    if (t === undefined) {
      io.err(`tar: can't open '${file}': No such file or directory\n`);
      return 1;
    }
    raw = t;
  }
  const parsed = readArchive(Buffer.from(raw, 'utf8'));
  if ('error' in parsed) {
    io.err(`tar: ${parsed.error}\n`);
    return 1;
  }
  if (parsed.entries.length === 0 && raw.length === 0) {
    io.err('tar: short read\n');
    return 1;
  }
  const wanted = (n: string) => files.length === 0 || files.some((f) => n === f || n.startsWith(f.replace(/\/$/, '') + '/'));
  let st = 0;
  for (const e of parsed.entries) {
    if (!wanted(e.name)) continue;
    if (mode === 't') {
      if (verbose) {
        const d = new Date(host.ctx.now()).toISOString().replace('T', ' ').slice(0, 19);
        io.out(`${e.dir ? 'drwxr-xr-x' : '-rw-r--r--'} root/root ${String(e.size).padStart(9)} ${d} ${e.name}\n`);
      } else io.out(e.name + '\n');
      continue;
    }
    if (verbose) io.out(e.name + '\n');
    const target = normalizePath(e.name, base);
    if (flags.includes('O')) {
      if (!e.dir) io.out(e.content);
      continue;
    }
    if (e.dir) fs.mkdir(target);
    else {
      const err = fs.write(target, e.content);
      if (err) {
        io.err(`tar: can't open '${e.name}': ${err}\n`);
        st = 1;
      }
    }
  }
  return st;
};
