// head and tail as busybox prints them: -n N (tail also +N), -N, -c N,
// headers for several files, and tail -f following a file as it grows (busybox
// checks it once a second).
import { InputReader } from '../shell-context.ts';
import { getopts, flag, lines, readInputs, usage, type Command } from './types.ts';

export const head: Command = async (args, io, host) => {
  const o = getopts(args, 'qv', 'nc', { numeric: 'n' });
  if ('error' in o) return usage(io, 'head', o.error);
  const n = Number(flag(o.flags, 'n') ?? 10);
  const c = flag(o.flags, 'c');
  const names = o.rest.length ? o.rest : ['-'];
  let failed = false;
  for (let k = 0; k < names.length; k++) {
    const name = names[k];
    let text: string | undefined;
    if (name === '-') {
      // Only what it prints is read: `yes | head -n 2` ends (and yes gets SIGPIPE).
      const r = InputReader.of(io.stdin, host.ctx.signal);
      text = '';
      if (c !== undefined) {
        while (text.length < Number(c)) {
          const chunk = await r.read();
          if (chunk === null) break;
          text += chunk;
        }
      } else
        for (let i = 0; i < n; i++) {
          const line = await r.readLine();
          if (line === null) break;
          text += line;
        }
    } else {
      text = host.ctx.fs.read(name);
      if (text === undefined) {
        io.err(`head: can't open '${name}': ${host.ctx.fs.isDir(name) ? 'Is a directory' : 'No such file or directory'}\n`);
        failed = true;
        continue;
      }
    }
    if (names.length > 1 || o.flags.has('v')) io.out(`${k ? '\n' : ''}==> ${name === '-' ? 'standard input' : name} <==\n`);
    if (c !== undefined) io.out(text.slice(0, Number(c)));
    else
      io.out(
        text
          .split(/(?<=\n)/)
          .slice(0, n)
          .join(''),
      );
  }
  return failed ? 1 : 0;
};

export const tail: Command = async (args, io, host) => {
  const o = getopts(args, 'fFqv', 'ncs', { numeric: 'n' });
  if ('error' in o) return usage(io, 'tail', o.error);
  const nArg = flag(o.flags, 'n') ?? '10';
  const cArg = flag(o.flags, 'c');
  const pick = (text: string): string => {
    if (cArg !== undefined) return cArg.startsWith('+') ? text.slice(Number(cArg) - 1) : text.slice(-Number(cArg) || text.length);
    const parts = text.split(/(?<=\n)/).filter((p) => p !== '');
    if (nArg.startsWith('+')) return parts.slice(Math.max(0, Number(nArg) - 1)).join('');
    const n = Math.abs(Number(nArg));
    return n === 0 ? '' : parts.slice(-n).join('');
  };
  const follow = o.flags.has('f') || o.flags.has('F');
  const fs = host.ctx.fs;
  if (follow && o.rest.length && o.rest.every((f) => f === '/dev/null')) {
    await host.ctx.sleep(Infinity);
    return 0;
  }
  const { texts, failed } = await readInputs(o.rest, io, host, (f, why) => `tail: can't open '${f}': ${why}`);
  texts.forEach((t, k) => {
    if (texts.length > 1 || o.flags.has('v')) io.out(`${k ? '\n' : ''}==> ${t.name === '-' ? 'standard input' : t.name} <==\n`);
    io.out(pick(t.text));
  });
  if (!follow || o.rest.length === 0) return failed ? 1 : 0;
  const sizes = new Map(o.rest.map((f) => [f, fs.read(f)?.length ?? 0]));
  let lastShown = o.rest[o.rest.length - 1];
  for (;;) {
    await host.ctx.sleep(1);
    for (const f of o.rest) {
      const now = fs.read(f);
      if (now === undefined) continue;
      const before = sizes.get(f) ?? 0;
      if (now.length === before) continue;
      if (o.rest.length > 1 && f !== lastShown) io.out(`\n==> ${f} <==\n`);
      lastShown = f;
      io.out(now.length > before ? now.slice(before) : now);
      sizes.set(f, now.length);
    }
  }
};

export { lines };
