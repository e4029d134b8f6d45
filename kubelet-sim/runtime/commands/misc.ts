// Small text applets: seq, yes, tee, xargs, basename, dirname, expr.
import { BrokenPipe } from '../shell-context.ts';
import { getopts, flag, readStdin, usage, type Command } from './types.ts';

export const seq: Command = async (args, io) => {
  const o = getopts(
    args.map((a) => (/^-\d/.test(a) ? `=${a}` : a)),
    'w',
    's',
  );
  if ('error' in o) return usage(io, 'seq', o.error);
  const nums = o.rest.map((a) => a.replace(/^=/, ''));
  if (nums.length < 1 || nums.length > 3) return usage(io, 'seq', 'missing operand');
  for (const n of nums)
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(n)) {
      io.err(`seq: invalid number '${n}'\n`);
      return 1;
    }
  const [first, inc, last] = nums.length === 1 ? ['1', '1', nums[0]] : nums.length === 2 ? [nums[0], '1', nums[1]] : nums;
  const decimals = Math.max(...[first, inc].map((s) => (s.includes('.') ? s.split('.')[1].length : 0)));
  const a = Number(first);
  const d = Number(inc);
  const z = Number(last);
  if (d === 0) return 0;
  const sep = flag(o.flags, 's') ?? '\n';
  const fmt = (v: number) => v.toFixed(decimals);
  const width = o.flags.has('w') ? Math.max(fmt(a).length, fmt(z).length) : 0;
  const parts: string[] = [];
  for (let k = 0; ; k++) {
    const v = a + k * d;
    if (d > 0 ? v > z + 1e-9 : v < z - 1e-9) break;
    let s = fmt(v);
    if (width) s = s.startsWith('-') ? '-' + s.slice(1).padStart(width - 1, '0') : s.padStart(width, '0');
    parts.push(s);
    if (parts.length % 1000 === 0) {
      io.out(parts.splice(0).join(sep) + sep);
      await new Promise((r) => setImmediate(r));
    }
  }
  if (parts.length) io.out(parts.join(sep) + '\n');
  return 0;
};

/** yes: its line forever, until the reader of its pipe goes (SIGPIPE). */
export const yes: Command = async (args, io) => {
  const line = (args.length ? args.join(' ') : 'y') + '\n';
  const chunk = line.repeat(Math.max(1, Math.floor(4096 / line.length)));
  for (;;) {
    io.out(chunk);
    await new Promise((r) => setImmediate(r));
  }
};

export const tee: Command = async (args, io, host) => {
  const o = getopts(args, 'ai');
  if ('error' in o) return usage(io, 'tee', o.error);
  const fs = host.ctx.fs;
  let st = 0;
  const files = o.rest.filter((f) => {
    const e = fs.write(f, o.flags.has('a') ? (fs.read(f) ?? '') : '');
    if (e) {
      io.err(`tee: ${f}: ${e}\n`);
      st = 1;
    }
    return !e;
  });
  const text = await readStdin(io, host);
  for (const f of files) fs.append(f, text);
  io.out(text);
  return st;
};

/** Splits xargs input into arguments: blanks and newlines separate, quotes and backslash group. */
function xargsWords(text: string): string[] | string {
  const out: string[] = [];
  let cur = '';
  let has = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return 'unmatched ' + (c === '"' ? 'double' : 'single') + ' quote';
      cur += text.slice(i + 1, end);
      has = true;
      i = end;
    } else if (c === '\\') {
      cur += text[++i] ?? '';
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

export const xargs: Command = async (args, io, host) => {
  const o = getopts(args, 'rt0xp', 'nIiLsdP', { stopAtFirst: true });
  if ('error' in o) return usage(io, 'xargs', o.error);
  const f = o.flags;
  const cmd = o.rest.length ? o.rest : ['echo'];
  const text = await readStdin(io, host);
  const repl = flag(f, 'I') ?? (f.has('i') ? flag(f, 'i') || '{}' : undefined);
  let items: string[];
  if (f.has('0')) items = text.split('\0').filter((x) => x !== '');
  else if (flag(f, 'd') !== undefined) items = text.split(flag(f, 'd')!.replace('\\n', '\n')).filter((x) => x !== '');
  else if (repl !== undefined || f.has('L'))
    items = text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
  else {
    const w = xargsWords(text);
    if (typeof w === 'string') {
      io.err(`xargs: ${w}\n`);
      return 1;
    }
    items = w;
  }
  const per = repl !== undefined ? 1 : Number(flag(f, 'n') ?? flag(f, 'L') ?? Infinity);
  const batches: string[][] = [];
  for (let k = 0; k < items.length; k += per === Infinity ? items.length || 1 : per)
    batches.push(items.slice(k, k + (per === Infinity ? items.length : per)));
  if (batches.length === 0 && !f.has('r')) batches.push([]);
  let st = 0;
  for (const b of batches) {
    const argv = repl !== undefined ? cmd.map((a) => a.split(repl).join(b[0] ?? '')) : [...cmd, ...b];
    if (f.has('t')) io.err(argv.join(' ') + '\n');
    try {
      const code = await host.run(argv, io);
      if (code === 127 || code === 126) return code;
      if (code === 255) return 124;
      if (code !== 0) st = 123;
    } catch (e) {
      if (e instanceof BrokenPipe) throw e;
      throw e;
    }
  }
  return st;
};

export const basename: Command = (args, io) => {
  if (args.length === 0) return usage(io, 'basename', 'missing operand');
  let b = args[0].replace(/\/+$/, '');
  b = b === '' && args[0].startsWith('/') ? '/' : b.slice(b.lastIndexOf('/') + 1);
  if (args[1] && b !== args[1] && b.endsWith(args[1])) b = b.slice(0, -args[1].length);
  io.out(b + '\n');
  return 0;
};

export const dirname: Command = (args, io) => {
  if (args.length === 0) return usage(io, 'dirname', 'missing operand');
  const p = args[0].replace(/\/+$/, '');
  const k = p.lastIndexOf('/');
  io.out((k < 0 ? '.' : k === 0 ? '/' : p.slice(0, k).replace(/\/+$/, '') || '/') + '\n');
  return 0;
};

/** expr: arithmetic, comparisons, : (anchored regex match), length, substr, index. */
export const expr: Command = (args, io) => {
  let i = 0;
  const isInt = (s: string) => /^-?\d+$/.test(s);
  const primary = (): string => {
    const a = args[i++] ?? '';
    if (a === '(') {
      const v = orE();
      i++;
      return v;
    }
    if (a === 'length') return String((args[i++] ?? '').length);
    if (a === 'substr') {
      const [s, p, n] = [args[i++] ?? '', Number(args[i++]), Number(args[i++])];
      return s.substr(p - 1, n);
    }
    if (a === 'index') {
      const [s, c] = [args[i++] ?? '', args[i++] ?? ''];
      const k = [...s].findIndex((ch) => c.includes(ch));
      return String(k + 1);
    }
    return a;
  };
  const match = (): string => {
    let l = primary();
    while (args[i] === ':') {
      i++;
      const re = new RegExp('^(?:' + (args[i++] ?? '').replace(/\\\(/g, '(').replace(/\\\)/g, ')') + ')');
      const m = re.exec(l);
      l = m ? (m[1] ?? String(m[0].length)) : re.source.includes('(') && /\((?!\?)/.test(re.source.slice(4)) ? '' : '0';
    }
    return l;
  };
  const mul = (): string => {
    let l = match();
    while (['*', '/', '%'].includes(args[i])) {
      const op = args[i++];
      const r = match();
      if (!isInt(l) || !isInt(r)) throw new Error('non-numeric argument');
      if (op !== '*' && Number(r) === 0) throw new Error('division by zero');
      l = String(op === '*' ? Number(l) * Number(r) : op === '/' ? Math.trunc(Number(l) / Number(r)) : Number(l) % Number(r));
    }
    return l;
  };
  const add = (): string => {
    let l = mul();
    while (args[i] === '+' || args[i] === '-') {
      const op = args[i++];
      const r = mul();
      if (!isInt(l) || !isInt(r)) throw new Error('non-numeric argument');
      l = String(op === '+' ? Number(l) + Number(r) : Number(l) - Number(r));
    }
    return l;
  };
  const cmp = (): string => {
    let l = add();
    while (['=', '==', '!=', '<', '<=', '>', '>='].includes(args[i])) {
      const op = args[i++];
      const r = add();
      const c = isInt(l) && isInt(r) ? Number(l) - Number(r) : l < r ? -1 : l > r ? 1 : 0;
      l = String(Number({ '=': c === 0, '==': c === 0, '!=': c !== 0, '<': c < 0, '<=': c <= 0, '>': c > 0, '>=': c >= 0 }[op]));
    }
    return l;
  };
  const andE = (): string => {
    let l = cmp();
    while (args[i] === '&') {
      i++;
      const r = cmp();
      l = l !== '' && l !== '0' && r !== '' && r !== '0' ? l : '0';
    }
    return l;
  };
  const orE = (): string => {
    let l = andE();
    while (args[i] === '|') {
      i++;
      const r = andE();
      l = l !== '' && l !== '0' ? l : r !== '' && r !== '0' ? r : '0';
    }
    return l;
  };
  try {
    if (args.length === 0) return usage(io, 'expr', 'missing operand');
    const v = orE();
    if (i < args.length) throw new Error('syntax error');
    io.out(v + '\n');
    return v === '' || v === '0' ? 1 : 0;
  } catch (e) {
    io.err(`expr: ${(e as Error).message}\n`);
    return 2;
  }
};
