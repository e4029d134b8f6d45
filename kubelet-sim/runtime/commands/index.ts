// The applets of the simulated busybox, by name: what the shell runs when a
// command is neither a function, a builtin nor a program of the image.
import { awk } from './awk.ts';
import { cut, tr } from './cut-tr.ts';
import { base64, md5sum, sha1sum, sha256sum, sha512sum } from './encode.ts';
import { cat, chmod, chown, cp, df, du, find, ln, ls, mkdir, mount, mv, readlink, rm, rmdir, touch } from './files.ts';
import { grep } from './grep.ts';
import { head, tail } from './head-tail.ts';
import { basename, dirname, expr, seq, tee, xargs, yes } from './misc.ts';
import { curl, ifconfig, ip, nslookup, ping, wget } from './net.ts';
import { formatPrintf } from './printf.ts';
import { sed } from './sed.ts';
import { sort, uniq } from './sort-uniq.ts';
import { alloc, daemon, date, env, free, hostname, nproc, printenv, ps, sleep, stress, top, uname, which } from './system.ts';
import { tar } from './tar.ts';
import { evalTest } from './test.ts';
import { usage, type Command } from './types.ts';
import { groups, id, whoami } from './users.ts';
import { wc } from './wc.ts';

const echo: Command = (args, io) => {
  let k = 0;
  let nl = true;
  for (; k < args.length && /^-[neE]+$/.test(args[k]); k++) if (args[k].includes('n')) nl = false;
  io.out(args.slice(k).join(' ') + (nl ? '\n' : ''));
  return 0;
};

const printf: Command = (args, io) => {
  if (!args.length) {
    io.err('printf: usage: printf FORMAT [ARGUMENT...]\n');
    return 1;
  }
  const r = formatPrintf(args[0], args.slice(1));
  io.out(r.out);
  if (r.err) io.err(r.err);
  return r.status;
};

const test: Command = (args, io, host) => {
  const r = evalTest(args, host.ctx.fs);
  if (typeof r === 'string') {
    io.err(`test: ${r}\n`);
    return 2;
  }
  return r ? 0 : 1;
};

const bracket: Command = async (args, io, host) => {
  if (args[args.length - 1] !== ']') {
    io.err('[: missing ]\n');
    return 2;
  }
  return test(args.slice(0, -1), io, host);
};

/** nohup CMD: runs it (nothing hangs up a simulated terminal). */
const nohup: Command = (args, io, host) => (args.length ? host.run(args, io) : usage(io, 'nohup', 'missing operand'));

const ok: Command = () => 0;
const notOk: Command = () => 1;
const pwd: Command = (_args, io, host) => {
  io.out(host.ctx.fs.cwd + '\n');
  return 0;
};

/** Every applet, by name. */
export const COMMANDS: Record<string, Command | undefined> = Object.assign(Object.create(null) as Record<string, Command>, {
  awk,
  base64,
  md5sum,
  sha1sum,
  sha256sum,
  sha512sum,
  nohup,
  ip,
  ifconfig,
  readlink,
  realpath: (a: string[], io: Parameters<Command>[1], h: Parameters<Command>[2]) => readlink(['-f', ...a], io, h),
  clear: ok,
  more: cat,
  less: cat,
  basename,
  cat,
  chmod,
  chown,
  cp,
  curl,
  cut,
  date,
  df,
  dirname,
  du,
  echo,
  env,
  expr,
  false: notOk,
  find,
  free,
  grep,
  egrep: (a: string[], io: Parameters<Command>[1], h: Parameters<Command>[2]) => grep(['-E', ...a], io, h),
  fgrep: (a: string[], io: Parameters<Command>[1], h: Parameters<Command>[2]) => grep(['-F', ...a], io, h),
  groups,
  head,
  hostname,
  id,
  ln,
  ls,
  mkdir,
  mount,
  mv,
  nproc,
  nslookup,
  ping,
  printenv,
  printf,
  ps,
  pwd,
  rm,
  rmdir,
  sed,
  seq,
  sleep,
  sort,
  tail,
  tar,
  tee,
  test,
  '[': bracket,
  top,
  touch,
  tr,
  true: ok,
  uname,
  uniq,
  wc,
  wget,
  which,
  whoami,
  xargs,
  yes,
  sync: ok,
  stress,
  alloc,
  nginx: daemon,
  httpd: daemon,
} satisfies Record<string, Command>);
