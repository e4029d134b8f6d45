// grep as busybox runs it: basic or extended (-E) or fixed (-F) patterns,
// -i -v -c -q -n -o -w -x -l -L -h -H -s -r and -e; "file:" prefixes with
// several files; status 0 on a match, 1 on none, 2 on an error.
import { compile } from './regex.ts';
import { getopts, lines, readStdin, usage, type Command, type CommandHost } from './types.ts';

function walk(host: CommandHost, path: string): string[] {
  const fs = host.ctx.fs;
  const names = fs.list(path);
  if (names === undefined) return [path];
  return names.flatMap((n) => walk(host, path.endsWith('/') ? path + n : `${path}/${n}`));
}

export const grep: Command = async (args, io, host) => {
  const o = getopts(args, 'ivcEqnowxlLhHsrRFZz', 'efm', { long: { color: 'Z', colour: 'Z' } });
  if ('error' in o) return usage(io, 'grep', o.error);
  const f = o.flags;
  const patterns = [...(f.get('e') ?? [])];
  const rest = [...o.rest];
  if (f.has('f')) for (const file of f.get('f')!) patterns.push(...lines(host.ctx.fs.read(file) ?? ''));
  if (!patterns.length) {
    if (!rest.length) return usage(io, 'grep', 'no pattern');
    patterns.push(rest.shift()!);
  }
  const flags = f.has('i') ? 'i' : '';
  const res: RegExp[] = [];
  for (const p of patterns.flatMap((x) => x.split('\n'))) {
    let src: string;
    if (f.has('F')) src = p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else {
      const r = compile(p, f.has('E'), flags);
      if ('error' in r) {
        io.err(`grep: ${r.error}\n`);
        return 2;
      }
      src = r.source;
    }
    if (f.has('w')) src = `(?<![A-Za-z0-9_])(?:${src})(?![A-Za-z0-9_])`;
    if (f.has('x')) src = `^(?:${src})$`;
    res.push(new RegExp(src, flags + 'g'));
  }
  const files = f.has('r') || f.has('R') ? (rest.length ? rest : ['.']).flatMap((p) => walk(host, p)) : rest;
  const prefix = (files.length > 1 || f.has('r') || f.has('R')) && !f.has('h') ? true : f.has('H');
  const max = f.has('m') ? Number(f.get('m')![0]) : Infinity;
  let matched = false;
  let error = false;
  for (const name of files.length ? files : ['-']) {
    let text: string | undefined;
    if (name === '-') text = await readStdin(io, host);
    else {
      text = host.ctx.fs.read(name);
      if (text === undefined) {
        if (!f.has('s')) io.err(`grep: ${name}: ${host.ctx.fs.isDir(name) ? 'Is a directory' : 'No such file or directory'}\n`);
        error = true;
        continue;
      }
    }
    const label = name === '-' ? '(standard input)' : name;
    let count = 0;
    const ls = lines(text);
    for (let k = 0; k < ls.length && count < max; k++) {
      const line = ls[k];
      const hits = res.some((r) => {
        r.lastIndex = 0;
        return r.test(line);
      });
      if (hits === f.has('v')) continue;
      count++;
      matched = true;
      if (f.has('q')) return 0;
      if (f.has('c') || f.has('l') || f.has('L')) continue;
      const pre = (prefix ? `${label}:` : '') + (f.has('n') ? `${k + 1}:` : '');
      if (f.has('o') && !f.has('v')) {
        for (const r of res) {
          r.lastIndex = 0;
          for (const m of line.matchAll(r)) if (m[0] !== '') io.out(pre + m[0] + '\n');
        }
      } else io.out(pre + line + '\n');
    }
    if (f.has('c')) io.out((prefix ? `${label}:` : '') + count + '\n');
    if (f.has('l') && count) io.out(label + '\n');
    if (f.has('L') && !count) io.out(label + '\n');
  }
  if (error && !(matched && f.has('q'))) return 2;
  return matched ? 0 : 1;
};
