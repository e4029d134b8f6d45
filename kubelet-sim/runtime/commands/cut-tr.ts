// cut (-f with -d and -s, -c, -b) and tr (sets with ranges, classes and
// escapes; -d, -s, -c) as busybox does them.
import { getopts, flag, lines, readInputs, readStdin, usage, type Command } from './types.ts';

/** A LIST of cut: 1,3-5,-2,4- as a membership test (1-based). */
function ranges(list: string): ((n: number) => boolean) | undefined {
  const parts = list.split(',').map((p) => {
    const m = /^(\d*)(-?)(\d*)$/.exec(p);
    if (!m || (m[1] === '' && m[3] === '')) return undefined;
    const lo = m[1] ? Number(m[1]) : 1;
    const hi = m[2] ? (m[3] ? Number(m[3]) : Infinity) : lo;
    return [lo, hi] as const;
  });
  if (parts.some((p) => !p || p[0] === 0)) return undefined;
  return (n) => parts.some((p) => n >= p![0] && n <= p![1]);
}

export const cut: Command = async (args, io, host) => {
  const o = getopts(args, 'sn', 'dfcb');
  if ('error' in o) return usage(io, 'cut', o.error);
  const f = flag(o.flags, 'f');
  const chars = flag(o.flags, 'c') ?? flag(o.flags, 'b');
  const list = f ?? chars;
  if (list === undefined) {
    io.err('cut: expected a list of bytes, characters, or fields\n');
    return 1;
  }
  const inList = ranges(list);
  if (!inList) {
    io.err(`cut: invalid byte or field list\n`);
    return 1;
  }
  const delim = flag(o.flags, 'd') ?? '\t';
  if (f !== undefined && delim.length !== 1) {
    io.err('cut: the delimiter must be a single character\n');
    return 1;
  }
  const { texts, failed } = await readInputs(o.rest, io, host, (x, why) => `cut: can't open '${x}': ${why}`);
  for (const t of texts)
    for (const line of lines(t.text)) {
      if (f === undefined) {
        io.out([...line].filter((_c, k) => inList(k + 1)).join('') + '\n');
        continue;
      }
      if (!line.includes(delim)) {
        if (!o.flags.has('s')) io.out(line + '\n');
        continue;
      }
      io.out(
        line
          .split(delim)
          .filter((_x, k) => inList(k + 1))
          .join(delim) + '\n',
      );
    }
  return failed ? 1 : 0;
};

const TR_CLASSES: Record<string, string> = {
  upper: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  lower: 'abcdefghijklmnopqrstuvwxyz',
  digit: '0123456789',
  space: ' \t\n\r\f\v',
  blank: ' \t',
};
TR_CLASSES.alpha = TR_CLASSES.upper + TR_CLASSES.lower;
TR_CLASSES.alnum = TR_CLASSES.alpha + TR_CLASSES.digit;
TR_CLASSES.punct = [...Array(94).keys()]
  .map((k) => String.fromCharCode(33 + k))
  .filter((c) => !/[A-Za-z0-9]/.test(c))
  .join('');
TR_CLASSES.xdigit = '0123456789ABCDEFabcdef';

/** A tr SET expanded to its characters. */
export function expandSet(set: string): string[] {
  const out: string[] = [];
  const chars: string[] = [];
  for (let i = 0; i < set.length; i++) {
    const cls = /^\[:([a-z]+):\]/.exec(set.slice(i));
    if (cls && TR_CLASSES[cls[1]]) {
      chars.push(`\u0000class:${cls[1]}`);
      i += cls[0].length - 1;
      continue;
    }
    if (set[i] === '\\' && i + 1 < set.length) {
      const e = set[++i];
      const oct = /^[0-7]{1,3}/.exec(set.slice(i));
      if (oct) {
        chars.push(String.fromCharCode(parseInt(oct[0], 8)));
        i += oct[0].length - 1;
      } else chars.push({ n: '\n', t: '\t', r: '\r', '\\': '\\', f: '\f', v: '\v', a: '\x07', b: '\b' }[e] ?? e);
    } else chars.push(set[i]);
  }
  for (let k = 0; k < chars.length; k++) {
    const c = chars[k];
    if (c.startsWith('\u0000class:')) out.push(...TR_CLASSES[c.slice(7)]);
    else if (chars[k + 1] === '-' && chars[k + 2] !== undefined && !chars[k + 2].startsWith('\u0000')) {
      for (let x = c.charCodeAt(0); x <= chars[k + 2].charCodeAt(0); x++) out.push(String.fromCharCode(x));
      k += 2;
    } else out.push(c);
  }
  return out;
}

export const tr: Command = async (args, io, host) => {
  const o = getopts(args, 'dscC');
  if ('error' in o) return usage(io, 'tr', o.error);
  const [s1, s2] = o.rest;
  if (s1 === undefined || (s2 === undefined && !o.flags.has('d') && !o.flags.has('s'))) {
    io.err(o.rest.length === 0 ? 'tr: missing operand\n' : `tr: missing operand after '${s1}'\n`);
    return 1;
  }
  let set1 = expandSet(s1);
  const comp = o.flags.has('c') || o.flags.has('C');
  const text = await readStdin(io, host);
  const inSet1 = (c: string) => set1.includes(c) !== comp;
  if (comp && !o.flags.has('d')) {
    const all = new Set<string>([...text]);
    set1 = [...all].filter((c) => !set1.includes(c));
  }
  const set2 = s2 !== undefined ? expandSet(s2) : [];
  let res = '';
  const squeezeSet = o.flags.has('d') ? set2 : s2 !== undefined ? set2 : set1;
  let prev = '';
  for (const c of text) {
    let x = c;
    if (o.flags.has('d')) {
      if (inSet1(c)) continue;
    } else if (s2 !== undefined && inSet1(c)) {
      const k = comp ? set1.indexOf(c) : set1.indexOf(c);
      x = set2[Math.min(k, set2.length - 1)] ?? c;
    }
    if (o.flags.has('s') && x === prev && squeezeSet.includes(x)) continue;
    res += x;
    prev = x;
  }
  io.out(res);
  return 0;
};
