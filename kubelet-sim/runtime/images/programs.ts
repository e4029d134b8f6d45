// The programs of the simulated images, run by the shell before its own
// commands: the servers of servers.ts (nginx, agnhost, redis-server...),
// which open their ports on the Pod network while they run and close them
// when they exit, and the clients a lab execs (busybox nslookup printing every
// address of a headless Service, nc, redis-cli, perl). Which names exist
// depends on the image: redis-cli only in redis, perl only in perl.
import type { ClusterNet } from '../cluster-net.ts';
import { Killed, type Io, type ShellContext } from '../shell.ts';
import { readAllStdin } from '../stdin-pipe.ts';
import type { ImageInfo } from './catalog.ts';
import type { SimNetwork } from './network.ts';
import { runPerl } from './perl.ts';
import { encodeCommand, formatReply } from './redis.ts';
import { buildServer } from './servers.ts';
import { baselineOf } from '../usage/baselines.ts';
import { PROCESS_REQUESTS } from '../usage/requests.ts';

/** What a program of the image sees of its container. */
export interface ProgramHost {
  ctx: ShellContext;
  network: SimNetwork;
  podIP: string;
  hostname: string;
  info?: ImageInfo;
  tag: string;
  speed: number;
  /** Called by a server that handles SIGTERM, with the exit code it then gives (the container's PID 1 only). */
  onTerm(exitCode: number): void;
}

/** A program: its arguments and streams; resolves with its exit code. */
export type Program = (args: string[], io: Io) => Promise<number>;

/** Which server each `serves` value names, and the executable names that start it. */
const SERVER_NAMES: Record<string, string> = {
  nginx: 'nginx',
  httpd: 'httpd',
  'httpd-foreground': 'httpd',
  agnhost: 'agnhost',
  'redis-server': 'redis',
  memcached: 'memcached',
  mysqld: 'mysql',
  postgres: 'postgres',
  mongod: 'mongo',
  pause: 'pause',
  'http-echo': 'http-echo',
  'hello-app': 'hello-app',
  whoami: 'whoami',
  'run.sh': 'echoserver',
  server: 'liveness',
};

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);
const basename = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** Runs a server until it is killed; its ports are open meanwhile. */
function serverProgram(kind: string, host: ProgramHost): Program {
  return async (args, io) => {
    const ctx = host.ctx;
    const started = ctx.now();
    const server = buildServer(
      kind,
      args,
      {
        fs: ctx.fs,
        env: ctx.env,
        hostname: host.hostname,
        podIP: host.podIP,
        now: () => ctx.now(),
        startedAt: started,
        log: (t) => io.out(t),
        tag: host.tag,
        speed: host.speed,
      },
      host.info,
    );
    if (!server) return 0;
    if (server.fail) {
      io.err(server.fail.text);
      return server.fail.exitCode;
    }
    if (server.banner) io.out(server.banner);
    if (server.termExit !== undefined) host.onTerm(server.termExit);
    const closes: (() => void)[] = [];
    try {
      if (server.openAfter) await ctx.sleep(server.openAfter);
      // Each request is charged its CPU for the usage model (runtime/usage/), divided by --speed (see requests.ts).
      const cost = baselineOf(host.info, true).cpuPerRequest / (host.speed > 0 ? host.speed : 1);
      for (const [port, l] of server.listeners)
        closes.push(host.network.listen(host.podIP, port, PROCESS_REQUESTS.counting(host.podIP, l, cost)));
      await ctx.sleep(Infinity);
      return 0;
    } catch (e) {
      if (e instanceof Killed && kind === 'pause' && e.exitCode === server.termExit) io.err('Shutting down, got signal: Terminated\n');
      throw e;
    } finally {
      for (const c of closes) c();
    }
  };
}

/** busybox nslookup: every A record of the answer. */
function nslookup(net: ClusterNet | undefined): Program {
  return (args, io) => {
    const host = args.find((a) => !a.startsWith('-')) ?? '';
    const server = net?.nameserver ?? '10.96.0.10';
    io.out(`Server:\t\t${server}\nAddress:\t${server}:53\n\n`);
    const r = net?.resolve(host);
    if (!r) {
      const tried = net?.candidates(host) ?? [host];
      io.out(`** server can't find ${tried[0] ?? host}: NXDOMAIN\n\n`);
      return Promise.resolve(1);
    }
    for (const ip of r.ips) io.out(`Name:\t${r.fqdn}\nAddress: ${ip}\n`);
    io.out('\n');
    return Promise.resolve(0);
  };
}

/** busybox nc: -z to probe a port, -l to listen (forever), else stdin to the server and its answer back. */
function nc(host: ProgramHost): Program {
  return async (args, io) => {
    const positional: string[] = [];
    let zero = false;
    let listen = false;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === '-w' || a === '-p' || a === '-W' || a === '-i') {
        if (a === '-p') positional.push('', args[i + 1]);
        i++;
      } else if (a.startsWith('-')) {
        zero ||= a.includes('z');
        listen ||= a.includes('l');
      } else positional.push(a);
    }
    if (listen) {
      await host.ctx.sleep(Infinity);
      return 0;
    }
    const [target = '', port = ''] = positional;
    const net = host.ctx.net;
    if (!net) {
      io.err(`nc: bad address '${target}'\n`);
      return 1;
    }
    const data = zero ? '' : await readAllStdin(io.stdin, host.ctx.signal);
    const res = net.tcp(target, Number(port), data);
    if (!res.ok) {
      io.err(
        res.error === 'resolve' ? `nc: bad address '${target}'\n` : `nc: can't connect to remote host (${res.ip}): Connection refused\n`,
      );
      return 1;
    }
    if (!zero) io.out(res.reply);
    return 0;
  };
}

/** redis-cli [-h host] [-p port] [command...]: one command, its reply as redis-cli prints it off a terminal. */
function redisCli(host: ProgramHost): Program {
  return (args, io) => {
    let h = '127.0.0.1';
    let port = 6379;
    const cmd: string[] = [];
    for (let i = 0; i < args.length; i++) {
      if (args[i] === '-h') h = args[++i] ?? h;
      else if (args[i] === '-p') port = Number(args[++i]);
      else cmd.push(args[i]);
    }
    if (cmd.length === 0) cmd.push('PING');
    const target = h === '127.0.0.1' || h === 'localhost' ? host.podIP : h;
    const res = host.ctx.net?.tcp(target, port, encodeCommand(cmd));
    if (!res?.ok) {
      io.err(
        `Could not connect to Redis at ${h}:${port}: ${res?.error === 'resolve' ? 'Name or service not known' : 'Connection refused'}\n`,
      );
      return Promise.resolve(1);
    }
    io.out(formatReply(res.reply));
    return Promise.resolve(0);
  };
}

function perl(): Program {
  return (args, io) => {
    const r = runPerl(args);
    if (r.out) io.out(r.out);
    if (r.err) io.err(r.err);
    return Promise.resolve(r.exitCode);
  };
}

/** The entrypoint wrappers of official images, which hand on to their arguments. */
export const ENTRYPOINT_WRAPPERS = new Set(['docker-entrypoint.sh', 'entrypoint.sh', 'tini']);

/**
 * The program `name` of the image, or undefined for the shell's own
 * commands. nslookup and nc are busybox's and are in every image here.
 */
export function programFor(name: string, host: ProgramHost): Program | undefined {
  const base = basename(name);
  if (base === 'nslookup') return nslookup(host.ctx.net);
  if (base === 'nc') return nc(host);
  const info = host.info;
  if (!info) return undefined;
  const has = new Set([
    ...(info.programs ?? []).map(basename),
    ...(info.entrypoint ?? []).map(basename),
    ...(info.cmd ?? []).slice(0, 1).map(basename),
  ]);
  // A shell is the shell's, even where the image's default command starts with one.
  if (!has.has(base) || SHELLS.has(base)) return undefined;
  if (base === 'redis-cli') return redisCli(host);
  if (base === 'perl') return perl();
  const kind =
    SERVER_NAMES[base] ??
    (info.serves && (info.entrypoint?.map(basename).includes(base) || basename(info.cmd?.[0] ?? '') === base) ? info.serves : undefined);
  if (kind) return serverProgram(kind, host);
  return undefined;
}

/** The image's own server for a container that runs the image's default command (no command, no args). */
export function defaultServer(host: ProgramHost): Program | undefined {
  const kind = host.info?.serves;
  return kind ? serverProgram(kind, host) : undefined;
}
