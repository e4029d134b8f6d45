// wc: lines, words, characters (-l -w -m -c -L, in that column order); one
// count of one input is printed bare, else each is %9u, then the name.
import { getopts, readInputs, usage, type Command } from './types.ts';

export const wc: Command = async (args, io, host) => {
  const o = getopts(args, 'lwcmL');
  if ('error' in o) return usage(io, 'wc', o.error);
  let which = ['l', 'w', 'm', 'c', 'L'].filter((k) => o.flags.has(k));
  if (which.length === 0) which = ['l', 'w', 'c'];
  const { texts, failed } = await readInputs(o.rest, io, host, (f, why) => `wc: can't open '${f}': ${why}`);
  const count = (t: string): Record<string, number> => ({
    l: (t.match(/\n/g) ?? []).length,
    w: t.split(/\s+/).filter((x) => x !== '').length,
    c: Buffer.byteLength(t),
    m: [...t].length,
    L: Math.max(0, ...t.split('\n').map((x) => x.length)),
  });
  const total: Record<string, number> = { l: 0, w: 0, c: 0, m: 0, L: 0 };
  const single = which.length === 1 && texts.length <= 1;
  const print = (c: Record<string, number>, name: string) => {
    const cols = which.map((k, n) => (single ? String(c[k]) : (n === 0 ? '' : ' ') + String(c[k]).padStart(9)));
    io.out(cols.join('') + (name !== '-' ? ` ${name}` : '') + '\n');
  };
  for (const t of texts) {
    const c = count(t.text);
    for (const k of Object.keys(total)) total[k] = k === 'L' ? Math.max(total[k], c[k]) : total[k] + c[k];
    print(c, t.name);
  }
  if (texts.length > 1) print(total, 'total');
  return failed ? 1 : 0;
};
