// Users and groups as the busybox image's /etc/passwd and /etc/group name
// them (an image's own files, when the container has them, win), and the
// applets that print them: id, whoami, groups.
import type { SimFs } from '../filesystem.ts';
import type { ProcessUser } from '../shell-context.ts';
import { getopts, type Command } from './types.ts';

/** busybox:1.36's /etc/passwd users. */
const PASSWD: Record<number, string> = {
  0: 'root',
  1: 'daemon',
  2: 'bin',
  3: 'sys',
  4: 'sync',
  8: 'mail',
  33: 'www-data',
  37: 'operator',
  65534: 'nobody',
};
/** busybox:1.36's /etc/group groups. */
const GROUP: Record<number, string> = {
  0: 'root',
  1: 'daemon',
  2: 'bin',
  3: 'sys',
  4: 'adm',
  5: 'tty',
  6: 'disk',
  7: 'lp',
  8: 'mail',
  9: 'kmem',
  10: 'wheel',
  11: 'cdrom',
  18: 'dialout',
  19: 'floppy',
  28: 'video',
  29: 'audio',
  32: 'tape',
  33: 'www-data',
  37: 'operator',
  43: 'utmp',
  46: 'plugdev',
  50: 'staff',
  54: 'lock',
  82: 'netdev',
  100: 'users',
  65534: 'nobody',
};

function fromFile(fs: SimFs, file: string, id: number): string | undefined {
  const text = fs.read(file);
  if (text === undefined) return undefined;
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f.length >= 3 && Number(f[2]) === id && f[2] !== '') return f[0];
  }
  return '';
}

function idFromFile(fs: SimFs, file: string, name: string): number | undefined {
  const text = fs.read(file);
  if (text === undefined) return undefined;
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f.length >= 3 && f[0] === name && /^\d+$/.test(f[2])) return Number(f[2]);
  }
  return -1;
}

const idIn = (table: Record<number, string>, name: string) => {
  const hit = Object.entries(table).find(([, n]) => n === name);
  return hit ? Number(hit[0]) : undefined;
};

/** The uid of a user name or number (the container's /etc/passwd, else busybox's), or undefined. */
export function userId(fs: SimFs, name: string): number | undefined {
  if (/^\d+$/.test(name)) return Number(name);
  const f = idFromFile(fs, '/etc/passwd', name);
  return f === undefined ? idIn(PASSWD, name) : f < 0 ? undefined : f;
}

/** The gid of a group name or number, or undefined. */
export function groupId(fs: SimFs, name: string): number | undefined {
  if (/^\d+$/.test(name)) return Number(name);
  const f = idFromFile(fs, '/etc/group', name);
  return f === undefined ? idIn(GROUP, name) : f < 0 ? undefined : f;
}

/** The name of uid (the container's /etc/passwd, else busybox's), or undefined. */
export function userName(fs: SimFs, uid: number): string | undefined {
  const f = fromFile(fs, '/etc/passwd', uid);
  return f === undefined ? PASSWD[uid] : f || undefined;
}

/** The name of gid, or undefined. */
export function groupName(fs: SimFs, gid: number): string | undefined {
  const f = fromFile(fs, '/etc/group', gid);
  return f === undefined ? GROUP[gid] : f || undefined;
}

/** The process's user; root with busybox's root groups (root, wheel) when the runtime said nothing. */
export function processUser(u: ProcessUser | undefined): Required<Pick<ProcessUser, 'uid' | 'gid' | 'groups'>> & ProcessUser {
  if (!u) return { uid: 0, gid: 0, groups: [0, 10] };
  return { ...u, groups: u.groups ?? [u.gid] };
}

const named = (id: number, name: string | undefined) => (name ? `${id}(${name})` : String(id));

/** id [-u|-g|-G] [-n]: uid=0(root) gid=0(root) groups=0(root),10(wheel). */
export const id: Command = (args, io, host) => {
  const o = getopts(args, 'ugGnr');
  if ('error' in o) {
    io.err(`id: ${o.error}\n`);
    return 1;
  }
  const fs = host.ctx.fs;
  const u = processUser(host.ctx.user);
  if (o.rest.length) {
    io.err(`id: unknown user ${o.rest[0]}\n`);
    return 1;
  }
  const uname = u.name ?? userName(fs, u.uid);
  const n = o.flags.has('n');
  const show = (ids: number[], lookup: (x: number) => string | undefined) =>
    ids.map((x) => (n ? (lookup(x) ?? String(x)) : String(x))).join(' ');
  if (o.flags.has('u')) io.out(show([u.uid], () => uname) + '\n');
  else if (o.flags.has('g')) io.out(show([u.gid], (x) => groupName(fs, x)) + '\n');
  else if (o.flags.has('G')) io.out(show(u.groups, (x) => groupName(fs, x)) + '\n');
  else {
    const groups = u.groups.map((g) => named(g, groupName(fs, g))).join(',');
    io.out(`uid=${named(u.uid, uname)} gid=${named(u.gid, groupName(fs, u.gid))}${groups ? ` groups=${groups}` : ''}\n`);
  }
  return 0;
};

/** whoami: the user's name, or busybox's error for a uid without one. */
export const whoami: Command = (_args, io, host) => {
  const u = processUser(host.ctx.user);
  const name = u.name ?? userName(host.ctx.fs, u.uid);
  if (!name) {
    io.err(`whoami: unknown uid ${u.uid}\n`);
    return 1;
  }
  io.out(name + '\n');
  return 0;
};

/** groups: the names (or numbers) of the process's groups. */
export const groups: Command = (_args, io, host) => {
  const u = processUser(host.ctx.user);
  io.out(u.groups.map((g) => groupName(host.ctx.fs, g) ?? String(g)).join(' ') + '\n');
  return 0;
};
