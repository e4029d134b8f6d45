// What the container sees of its processes and its machine: ps and top
// (busybox's columns; PID 1 is the container's command), uname, nproc, free,
// hostname (-i), date (busybox's default format and +FORMAT), env, printenv,
// which, sleep (fractions and suffixes), and stress/alloc for memory labs.
import { DEFAULT_PROFILE } from '../../node/node-object.ts';
import { OutOfMemory, type HostInfo } from '../shell-context.ts';
import { getopts, flag, processTable, usage, type Command, type CommandHost } from './types.ts';

/** Parses sizes like 250M, 250Mi, 1G, 1048576. */
export function parseBytes(s: string): number {
  const m = /^(\d+(?:\.\d+)?)([kKmMgGtT]i?)?[bB]?$/.exec(s);
  if (!m) return NaN;
  const unit = (m[2] ?? '').toLowerCase();
  const pow = { '': 0, k: 1, m: 2, g: 3, t: 4 }[unit[0] ?? ''] ?? 0;
  return Number(m[1]) * (unit.endsWith('i') || unit.length === 1 ? 1024 : 1000) ** pow;
}

/** The machine the container runs on (kubelet-sim's default node profile unless the context says). */
export function hostInfo(host: CommandHost): HostInfo {
  return (
    host.ctx.host ?? {
      cpus: Number(DEFAULT_PROFILE.cpu),
      memoryBytes: parseBytes(DEFAULT_PROFILE.memory),
      kernelVersion: DEFAULT_PROFILE.kernelVersion,
      architecture: DEFAULT_PROFILE.architecture,
    }
  );
}

export const ps: Command = (args, io, host) => {
  const o = args.find((a) => a === '-o');
  const table = processTable(host.ctx.fs).list();
  if (o) {
    const cols = (args[args.indexOf('-o') + 1] ?? 'pid,user,time,args').split(',');
    const head: Record<string, string> = {
      pid: '  PID',
      ppid: ' PPID',
      user: 'USER    ',
      comm: 'COMMAND',
      args: 'COMMAND',
      time: 'TIME',
      stat: 'S',
    };
    io.out(cols.map((c) => head[c] ?? c.toUpperCase()).join(' ') + '\n');
    for (const p of table)
      io.out(
        cols
          .map((c) =>
            c === 'pid'
              ? String(p.pid).padStart(5)
              : c === 'ppid'
                ? String(p.ppid).padStart(5)
                : c === 'user'
                  ? p.user.slice(0, 8).padEnd(8)
                  : c === 'comm'
                    ? p.args.split(' ')[0].split('/').pop()!
                    : c === 'time'
                      ? '0:00'
                      : c === 'stat'
                        ? 'S'
                        : p.args,
          )
          .join(' ') + '\n',
      );
    return 0;
  }
  io.out('PID   USER     TIME  COMMAND\n');
  for (const p of table) io.out(`${String(p.pid).padStart(5)} ${p.user.slice(0, 8).padEnd(8)}  0:00 ${p.args}\n`);
  return 0;
};

export const top: Command = async (args, io, host) => {
  const o = getopts(args, 'bH', 'nd');
  if ('error' in o) return usage(io, 'top', o.error);
  const n = Number(flag(o.flags, 'n') ?? Infinity);
  const delay = Number(flag(o.flags, 'd') ?? 5);
  const hi = hostInfo(host);
  const totalK = Math.round(hi.memoryBytes / 1024);
  for (let k = 0; k < n; k++) {
    if (k > 0) await host.ctx.sleep(delay);
    const procs = processTable(host.ctx.fs).list();
    const used = Math.round(totalK * 0.12);
    io.out(
      `Mem: ${used}K used, ${totalK - used}K free, 0K shrd, ${Math.round(totalK * 0.01)}K buff, ${Math.round(totalK * 0.05)}K cached\n` +
        'CPU:   0% usr   0% sys   0% nic 100% idle   0% io   0% irq   0% sirq\n' +
        `Load average: 0.00 0.00 0.00 1/${procs.length + 200} ${procs.at(-1)?.pid ?? 1}\n` +
        '  PID  PPID USER     STAT   VSZ %VSZ CPU %CPU COMMAND\n',
    );
    for (const p of procs)
      io.out(
        `${String(p.pid).padStart(5)} ${String(p.ppid).padStart(5)} ${p.user.slice(0, 8).padEnd(8)} ${p.pid === host.pid ? 'R' : 'S'}     1336   0%   0   0% ${p.args}\n`,
      );
  }
  return 0;
};

const MACHINE: Record<string, string> = { amd64: 'x86_64', arm64: 'aarch64', arm: 'armv7l', s390x: 's390x', ppc64le: 'ppc64le' };

export const uname: Command = (args, io, host) => {
  const o = getopts(args, 'asnrvmpio');
  if ('error' in o) return usage(io, 'uname', o.error);
  const hi = hostInfo(host);
  const parts: Record<string, string> = {
    s: 'Linux',
    n: (host.ctx.fs.read('/etc/hostname') ?? '').trim() || 'localhost',
    r: hi.kernelVersion,
    v: '#1 SMP PREEMPT_DYNAMIC',
    m: MACHINE[hi.architecture] ?? hi.architecture,
    o: 'GNU/Linux',
  };
  const f = o.flags;
  const all = f.has('a');
  const which = all ? ['s', 'n', 'r', 'v', 'm', 'o'] : [...'snrvmo'].filter((c) => f.has(c));
  io.out((which.length ? which : ['s']).map((c) => parts[c]).join(' ') + '\n');
  return 0;
};

export const nproc: Command = (_args, io, host) => {
  io.out(hostInfo(host).cpus + '\n');
  return 0;
};

export const free: Command = (args, io, host) => {
  const o = getopts(args, 'bkmgh');
  if ('error' in o) return usage(io, 'free', o.error);
  const total = hostInfo(host).memoryBytes;
  const used = Math.round(total * 0.12);
  const cache = Math.round(total * 0.06);
  const freeB = total - used - cache;
  const div = o.flags.has('b') ? 1 : o.flags.has('m') ? 1024 ** 2 : o.flags.has('g') ? 1024 ** 3 : 1024;
  const fmt = (b: number) => {
    if (o.flags.has('h')) {
      const units = ['B', 'K', 'M', 'G', 'T'];
      let v = b;
      let u = 0;
      while (v >= 1024 && u < units.length - 1) {
        v /= 1024;
        u++;
      }
      return (u === 0 ? String(v) : v.toFixed(1) + units[u]).padStart(11);
    }
    return String(Math.round(b / div)).padStart(11);
  };
  io.out('              total        used        free      shared  buff/cache   available\n');
  io.out(`Mem:    ${fmt(total)} ${fmt(used)} ${fmt(freeB)} ${fmt(0)} ${fmt(cache)} ${fmt(freeB + cache)}\n`);
  io.out(`Swap:   ${fmt(0)} ${fmt(0)} ${fmt(0)}\n`);
  return 0;
};

export const hostname: Command = (args, io, host) => {
  const fs = host.ctx.fs;
  const name = (fs.read('/etc/hostname') ?? '').trim();
  if (args[0] === '-i') {
    // busybox resolves the host name: kubelet's /etc/hosts maps it to the Pod IP.
    const line = (fs.read('/etc/hosts') ?? '').split('\n').find((l) => l.split(/\s+/).slice(1).includes(name));
    const ip = line?.split(/\s+/)[0] ?? host.ctx.podIP;
    if (!ip) {
      io.err(`hostname: ${name}: Unknown host\n`);
      return 1;
    }
    io.out(ip + '\n');
    return 0;
  }
  if (args[0] === '-s') {
    io.out(name.split('.')[0] + '\n');
    return 0;
  }
  if (args[0] === '-d') {
    io.out(name.split('.').slice(1).join('.') + '\n');
    return 0;
  }
  if (args.length && !args[0].startsWith('-')) {
    io.err('hostname: sethostname: Operation not permitted\n');
    return 1;
  }
  io.out(name + '\n');
  return 0;
};

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const DAYS_LONG = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTHS_LONG = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** strftime in UTC (the container's TZ). */
export function strftime(fmt: string, ms: number): string {
  const d = new Date(ms);
  const p2 = (n: number) => String(n).padStart(2, '0');
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  const conv = (c: string): string => {
    switch (c) {
      case 'Y':
        return String(d.getUTCFullYear());
      case 'y':
        return p2(d.getUTCFullYear() % 100);
      case 'C':
        return p2(Math.floor(d.getUTCFullYear() / 100));
      case 'm':
        return p2(d.getUTCMonth() + 1);
      case 'd':
        return p2(d.getUTCDate());
      case 'e':
        return String(d.getUTCDate()).padStart(2, ' ');
      case 'H':
        return p2(d.getUTCHours());
      case 'I':
        return p2(d.getUTCHours() % 12 || 12);
      case 'M':
        return p2(d.getUTCMinutes());
      case 'S':
        return p2(d.getUTCSeconds());
      case 'N':
        return String(d.getUTCMilliseconds() * 1_000_000).padStart(9, '0');
      case 's':
        return String(Math.floor(ms / 1000));
      case 'a':
        return DAYS[d.getUTCDay()];
      case 'A':
        return DAYS_LONG[d.getUTCDay()];
      case 'b':
      case 'h':
        return MONTHS[d.getUTCMonth()];
      case 'B':
        return MONTHS_LONG[d.getUTCMonth()];
      case 'p':
        return d.getUTCHours() < 12 ? 'AM' : 'PM';
      case 'j':
        return String(Math.floor((ms - start) / 86_400_000) + 1).padStart(3, '0');
      case 'u':
        return String(d.getUTCDay() || 7);
      case 'w':
        return String(d.getUTCDay());
      case 'Z':
        return 'UTC';
      case 'z':
        return '+0000';
      case 'T':
        return `${conv('H')}:${conv('M')}:${conv('S')}`;
      case 'R':
        return `${conv('H')}:${conv('M')}`;
      case 'D':
        return `${conv('m')}/${conv('d')}/${conv('y')}`;
      case 'F':
        return `${conv('Y')}-${conv('m')}-${conv('d')}`;
      case 'c':
        return `${conv('a')} ${conv('b')} ${conv('e')} ${conv('T')} ${conv('Y')}`;
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case '%':
        return '%';
    }
    return `%${c}`;
  };
  return fmt.replace(/%([a-zA-Z%])/g, (_m, c: string) => conv(c));
}

/** date [-u] [-R] [-I] [-d @SECONDS|DATE] [+FORMAT]: "Wed Dec  2 02:11:52 UTC 2026" by default. */
export const date: Command = (args, io, host) => {
  let ms = host.ctx.now();
  let fmt = '%a %b %e %H:%M:%S %Z %Y';
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-u' || a === '--utc') continue;
    if (a === '-R') fmt = '%a, %d %b %Y %H:%M:%S %z';
    else if (a === '-I' || a.startsWith('-I')) fmt = a === '-Iseconds' ? '%Y-%m-%dT%H:%M:%S+00:00' : '%Y-%m-%d';
    else if (a === '-d' || a === '-D') {
      const v = args[++i] ?? '';
      const t = v.startsWith('@')
        ? Number(v.slice(1)) * 1000
        : Date.parse(v.includes('T') || v.includes('Z') ? v : `${v.replace(' ', 'T')}Z`);
      if (Number.isNaN(t)) {
        io.err(`date: invalid date '${v}'\n`);
        return 1;
      }
      ms = t;
    } else if (a.startsWith('+')) fmt = a.slice(1);
    else {
      io.err(`date: invalid date '${a}'\n`);
      return 1;
    }
  }
  io.out(strftime(fmt, ms) + '\n');
  return 0;
};

export const env: Command = async (args, io, host) => {
  const e = new Map(host.ctx.env);
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (a === '-i' || a === '-') e.clear();
    else if (a === '-u') e.delete(args[++i] ?? '');
    else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) e.set(a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1));
    else break;
  }
  if (i >= args.length) {
    for (const [k, v] of e) io.out(`${k}=${v}\n`);
    return 0;
  }
  const saved = new Map(host.ctx.env);
  host.ctx.env.clear();
  for (const [k, v] of e) host.ctx.env.set(k, v);
  try {
    const code = await host.run(args.slice(i), io);
    if (code === 127 && !host.which(args[i])) return 127;
    return code;
  } finally {
    host.ctx.env.clear();
    for (const [k, v] of saved) host.ctx.env.set(k, v);
  }
};

export const printenv: Command = (args, io, host) => {
  if (!args.length) {
    for (const [k, v] of host.ctx.env) io.out(`${k}=${v}\n`);
    return 0;
  }
  let st = 0;
  for (const a of args) {
    const v = host.ctx.env.get(a);
    if (v === undefined) st = 1;
    else io.out(v + '\n');
  }
  return st;
};

export const which: Command = (args, io, host) => {
  let st = 0;
  for (const a of args.filter((x) => x !== '-a')) {
    const w = host.which(a);
    if (w) io.out(w + '\n');
    else st = 1;
  }
  return st;
};

/** A sleep argument in seconds: 1.5, 2m, 1h, inf. */
export function parseDuration(a: string): number {
  if (a === 'inf' || a === 'infinity') return Infinity;
  const m = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(a);
  if (!m) return NaN;
  return Number(m[1]) * { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
}

export const sleep: Command = async (args, io, host) => {
  if (args.length === 0) return usage(io, 'sleep', 'missing operand');
  let total = 0;
  for (const a of args) {
    const s = parseDuration(a);
    if (Number.isNaN(s)) {
      io.err(`sleep: invalid number '${a}'\n`);
      return 1;
    }
    total += s;
  }
  await host.ctx.sleep(total);
  return 0;
};

/** `stress --vm 1 --vm-bytes 250M` (the classic memory-limit lab) or `alloc 250Mi`: beyond the limit it is an OOM kill. */
export const stress: Command = async (args, _io, host) => {
  const k = args.indexOf('--vm-bytes');
  const bytes = parseBytes(k >= 0 ? (args[k + 1] ?? '') : '256M');
  if (host.ctx.memoryLimit !== undefined && bytes > host.ctx.memoryLimit) throw new OutOfMemory();
  await host.ctx.sleep(Infinity);
  return 0;
};

export const alloc: Command = (args, _io, host) => {
  const bytes = parseBytes(args[0] ?? '');
  if (host.ctx.memoryLimit !== undefined && bytes > host.ctx.memoryLimit) throw new OutOfMemory();
  return 0;
};

/** A daemon the image does not really have: it stays up (`tail -f /dev/null` style), as before images had programs. */
export const daemon: Command = async (_args, _io, host) => {
  await host.ctx.sleep(Infinity);
  return 0;
};
