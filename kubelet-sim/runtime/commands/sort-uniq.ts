// sort (-n -r -u -k -t -f -h -s -o) and uniq (-c -d -u -i) as busybox does
// them: byte order (LC_ALL=C), -n on a leading number with the whole line
// breaking ties, keys counted from 1.
import { getopts, flag, lines, readInputs, usage, type Command } from './types.ts';

const num = (s: string): number => {
  const m = /^\s*([-+]?\d*\.?\d+(?:[eE][-+]?\d+)?)/.exec(s);
  return m ? Number(m[1]) : 0;
};
const human = (s: string): number => {
  const m = /^\s*([-+]?\d*\.?\d+)([KMGTPE]?)/i.exec(s);
  return m ? Number(m[1]) * 1024 ** ' KMGTPE'.indexOf((m[2] || ' ').toUpperCase()) : 0;
};
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The text of key `spec` (F[.C][,F[.C]] with letters) of a line split by `sep` (blank runs when undefined). */
function keyOf(line: string, spec: string, sep: string | undefined): { text: string; opts: string } {
  const m = /^(\d+)(?:\.(\d+))?([a-zA-Z]*)(?:,(\d+)(?:\.(\d+))?([a-zA-Z]*))?$/.exec(spec);
  if (!m) return { text: line, opts: '' };
  const fields: { start: number; end: number }[] = [];
  if (sep !== undefined) {
    let pos = 0;
    for (const f of line.split(sep)) {
      fields.push({ start: pos, end: pos + f.length });
      pos += f.length + sep.length;
    }
  } else {
    const re = /\s*\S+/g;
    let r: RegExpExecArray | null;
    while ((r = re.exec(line)) !== null) fields.push({ start: r.index, end: r.index + r[0].length });
  }
  const f1 = fields[Number(m[1]) - 1];
  if (!f1) return { text: '', opts: m[3] + (m[6] ?? '') };
  const start = f1.start + (m[2] ? Number(m[2]) - 1 : 0);
  const f2 = m[4] ? fields[Number(m[4]) - 1] : fields[fields.length - 1];
  const end = m[4] ? (f2 ? (m[5] ? f2.start + Number(m[5]) : f2.end) : line.length) : line.length;
  return { text: line.slice(start, Math.max(start, end)), opts: m[3] + (m[6] ?? '') };
}

export const sort: Command = async (args, io, host) => {
  const o = getopts(args, 'nrufbhsgcVMdiz', 'kto');
  if ('error' in o) return usage(io, 'sort', o.error);
  const f = o.flags;
  const { texts, failed } = await readInputs(o.rest, io, host, (x, why) => `sort: can't open '${x}': ${why}`);
  if (failed) return 2;
  const all = texts.flatMap((t) => lines(t.text));
  const sep = flag(f, 't');
  const keys = f.get('k') ?? [];
  const compareBy = (a: string, b: string, opts: string): number => {
    const fold = opts.includes('f') ? (s: string) => s.toUpperCase() : (s: string) => s;
    const blank = opts.includes('b') ? (s: string) => s.replace(/^\s+/, '') : (s: string) => s;
    let r: number;
    if (opts.includes('n') || opts.includes('g')) r = num(a) - num(b);
    else if (opts.includes('h')) r = human(a) - human(b);
    else r = cmpStr(fold(blank(a)), fold(blank(b)));
    return opts.includes('r') ? -r : r;
  };
  const global = [...'nrfbhg'].filter((c) => f.has(c)).join('');
  const cmp = (a: string, b: string): number => {
    for (const k of keys) {
      const ka = keyOf(a, k, sep);
      const kb = keyOf(b, k, sep);
      const r = compareBy(ka.text, kb.text, ka.opts || global);
      if (r) return r;
    }
    if (!keys.length) {
      const r = compareBy(a, b, global);
      if (r || f.has('s') || f.has('u')) return r;
    } else if (f.has('s') || f.has('u')) return 0;
    // The last resort compares whole lines (reversed with -r), as busybox does.
    const r = cmpStr(a, b);
    return f.has('r') ? -r : r;
  };
  const sorted = [...all].sort(cmp);
  const out = f.has('u') ? sorted.filter((l, k) => k === 0 || cmp(sorted[k - 1], l) !== 0) : sorted;
  const text = out.map((l) => l + '\n').join('');
  const file = flag(f, 'o');
  if (file) host.ctx.fs.write(file, text);
  else io.out(text);
  return 0;
};

export const uniq: Command = async (args, io, host) => {
  const o = getopts(args, 'cdui', 'fsw');
  if ('error' in o) return usage(io, 'uniq', o.error);
  const f = o.flags;
  const { texts, failed } = await readInputs(o.rest.slice(0, 1), io, host, (x, why) => `uniq: can't open '${x}': ${why}`);
  if (failed) return 1;
  const ls = lines(texts[0]?.text ?? '');
  const skipF = Number(flag(f, 'f') ?? 0);
  const skipC = Number(flag(f, 's') ?? 0);
  const width = flag(f, 'w');
  const key = (l: string) => {
    let s = l;
    for (let k = 0; k < skipF; k++) s = s.replace(/^\s*\S+/, '');
    s = s.slice(skipC);
    if (width !== undefined) s = s.slice(0, Number(width));
    return f.has('i') ? s.toLowerCase() : s;
  };
  let out = '';
  for (let i = 0; i < ls.length;) {
    let j = i + 1;
    while (j < ls.length && key(ls[j]) === key(ls[i])) j++;
    const n = j - i;
    if ((!f.has('d') || n > 1) && (!f.has('u') || n === 1)) out += (f.has('c') ? `${String(n).padStart(7)} ` : '') + ls[i] + '\n';
    i = j;
  }
  if (o.rest[1]) host.ctx.fs.write(o.rest[1], out);
  else io.out(out);
  return 0;
};
