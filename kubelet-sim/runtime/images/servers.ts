// The servers inside the simulated images, as each really answers: nginx
// serving its html root from the Pod's filesystem (an init container's
// index.html in a shared emptyDir shows; the welcome page is the image's
// own), httpd's htdocs, agnhost's netexec, serve-hostname and liveness (500
// after 10 s), kubernetes-bootcamp, hello-app, http-echo, echoserver, redis's
// RESP, and databases that refuse to start without their password variable.
// buildServer says what a process listens on, what it logs at start, and
// what exit code it gives on SIGTERM (undefined: it has no handler and, as
// PID 1, ignores the signal until SIGKILL).
import type { Pod } from 'kubernetes-types/core/v1.js';
import { wallNow } from '../../../shared/clock/clock.ts';
import { SimFs } from '../filesystem.ts';
import { PROCESS_CATALOG, type ImageInfo } from './catalog.ts';
import type { HttpRequest, HttpResponse, Listener } from './network.ts';
import { parseImageRef } from './reference.ts';
import { redisListener } from './redis.ts';

/** What a server sees of its container. */
export interface ServerEnv {
  fs: SimFs;
  env: Map<string, string>;
  hostname: string;
  podIP: string;
  /** The cluster clock. */
  now(): number;
  /** When the process started (cluster clock). */
  startedAt: number;
  /** Writes a line to the container's stdout (its log). */
  log(text: string): void;
  /** The image's tag (for the version a server reports). */
  tag: string;
  /** Divides the server's own delays (--speed): liveness's 10 s, a database's start-up. */
  speed: number;
}

/** A started server. */
export interface Server {
  listeners: [number, Listener][];
  /** Written to stdout at start (the image's banner). */
  banner?: string;
  /** Refuses to start: text on stderr and the exit code. */
  fail?: { text: string; exitCode: number };
  /** Exit code on SIGTERM; undefined: no handler (killed at the grace period's end). */
  termExit?: number;
  /** Seconds (at speed 1) before the ports open (a database initializing). */
  openAfter?: number;
}

const goTime = (ms: number) => {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getUTCFullYear()}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
};
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** nginx's and httpd's access-log time: 01/Jan/2026:00:00:05 +0000. */
const clfTime = (ms: number) => {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
};

/** Flags as Go's flag package reads them: -name=value, --name=value, -name value. */
function goFlags(args: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const m = /^--?([\w-]+)(?:=(.*))?$/.exec(args[i]);
    if (!m) continue;
    if (m[2] !== undefined) out.set(m[1], m[2]);
    else if (args[i + 1] !== undefined && !args[i + 1].startsWith('-')) out.set(m[1], args[++i]);
    else out.set(m[1], 'true');
  }
  return out;
}

/** The version an image's tag stands for (nginx:1.27 is 1.27.5; latest is the newest). */
function versionOf(info: ImageInfo | undefined, tag: string, newest: string): string {
  const series = info?.series ?? {};
  if (series[tag] !== undefined) return `${tag}.${series[tag]}`;
  const base = tag.split('-')[0];
  if (/^\d+\.\d+\.\d+$/.test(base)) return base;
  if (series[base] !== undefined) return `${base}.${series[base]}`;
  return newest;
}

const text = (status: number, body: string): HttpResponse => ({ status, body });

function nginxServer(args: string[], e: ServerEnv, info: ImageInfo | undefined): Server {
  const version = versionOf(info, e.tag, e.tag === 'stable' || e.tag.startsWith('stable-') ? '1.28.0' : '1.29.3');
  // nginx's one-shot uses (-v, -t, -s reload) print and exit; only the daemon listens.
  const once = (text: string): Server => ({ listeners: [], fail: { text, exitCode: 0 } });
  if (args.includes('-v') || args.includes('-V')) return once(`nginx version: nginx/${version}\n`);
  if (args.includes('-t') || args.includes('-T'))
    return once(
      'nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nnginx: configuration file /etc/nginx/nginx.conf test is successful\n',
    );
  if (args.includes('-s')) return once(`${goTime(e.now())} [notice] 42#42: signal process started\n`);
  // A mounted server block (the ConfigMap-as-config lab) decides the port and the root.
  const conf = e.fs.read('/etc/nginx/conf.d/default.conf') ?? e.fs.read('/etc/nginx/nginx.conf') ?? '';
  const port = Number(/\blisten\s+(?:\[::\]:)?(\d+)/.exec(conf)?.[1] ?? info?.ports?.[0] ?? 80);
  const root = /\broot\s+([^;\s]+)\s*;/.exec(conf)?.[1] ?? '/usr/share/nginx/html';
  const notFound = (code: number, title: string) =>
    text(
      code,
      `<html>\r\n<head><title>${code} ${title}</title></head>\r\n<body>\r\n<center><h1>${code} ${title}</h1></center>\r\n<hr><center>nginx/${version}</center>\r\n</body>\r\n</html>\r\n`,
    );
  const http = (req: HttpRequest): HttpResponse => {
    let file = `${root}${req.path}`;
    if (e.fs.isDir(file)) file = `${file.replace(/\/$/, '')}/index.html`;
    const body = e.fs.read(file);
    const res =
      body === undefined ? (e.fs.isDir(`${root}${req.path}`) ? notFound(403, 'Forbidden') : notFound(404, 'Not Found')) : text(200, body);
    e.log(
      `${req.clientIP} - - [${clfTime(e.now())}] "${req.method} ${req.path} HTTP/1.1" ${res.status} ${res.body.length} "-" "Wget" "-"\n`,
    );
    return res;
  };
  const t = goTime(e.startedAt);
  const banner = [
    '/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration',
    '/docker-entrypoint.sh: Looking for shell scripts in /docker-entrypoint.d/',
    '/docker-entrypoint.sh: Launching /docker-entrypoint.d/10-listen-on-ipv6-by-default.sh',
    '10-listen-on-ipv6-by-default.sh: info: Getting the checksum of /etc/nginx/conf.d/default.conf',
    '10-listen-on-ipv6-by-default.sh: info: Enabled listen on IPv6 in /etc/nginx/conf.d/default.conf',
    '/docker-entrypoint.sh: Sourcing /docker-entrypoint.d/15-local-resolvers.envsh',
    '/docker-entrypoint.sh: Launching /docker-entrypoint.d/20-envsubst-on-templates.sh',
    '/docker-entrypoint.sh: Launching /docker-entrypoint.d/30-tune-worker-processes.sh',
    '/docker-entrypoint.sh: Configuration complete; ready for start up',
    `${t} [notice] 1#1: using the "epoll" event method`,
    `${t} [notice] 1#1: nginx/${version}`,
    `${t} [notice] 1#1: OS: Linux 6.8.0`,
    `${t} [notice] 1#1: getrlimit(RLIMIT_NOFILE): 1048576:1048576`,
    `${t} [notice] 1#1: start worker processes`,
    `${t} [notice] 1#1: start worker process 29`,
  ];
  return { listeners: [[port, { http }]], banner: banner.join('\n') + '\n', termExit: 0 };
}

function httpdServer(e: ServerEnv, info: ImageInfo | undefined): Server {
  const version = versionOf(info, e.tag, '2.4.65');
  const conf = e.fs.read('/usr/local/apache2/conf/httpd.conf') ?? '';
  const port = Number(/^\s*Listen\s+(\d+)/m.exec(conf)?.[1] ?? 80);
  const root = /^\s*DocumentRoot\s+"?([^"\s]+)"?/m.exec(conf)?.[1] ?? '/usr/local/apache2/htdocs';
  const http = (req: HttpRequest): HttpResponse => {
    let file = `${root}${req.path}`;
    if (e.fs.isDir(file)) file = `${file.replace(/\/$/, '')}/index.html`;
    const body = e.fs.read(file);
    const res =
      body !== undefined
        ? text(200, body)
        : text(
            404,
            '<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>404 Not Found</title>\n</head><body>\n<h1>Not Found</h1>\n<p>The requested URL was not found on this server.</p>\n</body></html>\n',
          );
    e.log(`${req.clientIP} - - [${clfTime(e.now())}] "${req.method} ${req.path} HTTP/1.1" ${res.status} ${res.body.length}\n`);
    return res;
  };
  const fqdn = `AH00558: httpd: Could not reliably determine the server's fully qualified domain name, using ${e.podIP}. Set the 'ServerName' directive globally to suppress this message`;
  const banner = `${fqdn}\n${fqdn}\n[mpm_event:notice] [pid 1:tid 1] AH00489: Apache/${version} (Unix) configured -- resuming normal operations\n[core:notice] [pid 1:tid 1] AH00094: Command line: 'httpd -D FOREGROUND'\n`;
  return { listeners: [[port, { http }]], banner, termExit: 0 };
}

function agnhostServer(args: string[], e: ServerEnv): Server {
  const [sub, ...rest] = args;
  const flags = goFlags(rest);
  switch (sub) {
    case 'netexec': {
      const port = Number(flags.get('http-port') ?? 8080);
      const http = (req: HttpRequest): HttpResponse => {
        switch (req.path) {
          case '/':
            return text(200, `NOW: ${new Date(e.now()).toISOString().replace('T', ' ').replace('Z', '000000 +0000 UTC')}`);
          case '/hostname':
            return text(200, e.hostname);
          case '/echo':
            return text(200, req.query.get('msg') ?? '');
          case '/clientip':
            return text(200, `${req.clientIP}:${40000 + (e.now() % 20000)}`);
          case '/healthz':
          case '/readyz':
            return text(200, '');
          default:
            return text(404, '404 page not found\n');
        }
      };
      return { listeners: [[port, { http }]], termExit: 0 };
    }
    case 'serve-hostname': {
      const port = Number(flags.get('port') ?? 9376);
      if (flags.get('http') === 'false') return { listeners: [[port, { tcp: () => e.hostname }]], termExit: 0 };
      return { listeners: [[port, { http: () => text(200, e.hostname), tcp: () => e.hostname }]], termExit: 0 };
    }
    case 'liveness': {
      // agnhost liveness: healthy for its first 10 seconds, then 500 with the seconds it has run.
      const http = (req: HttpRequest): HttpResponse => {
        if (req.path === '/redirect') return text(302, '');
        if (req.path !== '/healthz') return text(404, '404 page not found\n');
        const seconds = ((e.now() - e.startedAt) * e.speed) / 1000;
        return seconds > 10 ? text(500, `error: ${seconds}`) : text(200, 'ok');
      };
      return { listeners: [[8080, { http }]], termExit: 2 };
    }
    case 'test-webserver': {
      const port = Number(flags.get('port') ?? 80);
      return { listeners: [[port, { http: () => text(200, 'Hello World!') }]], termExit: 2 };
    }
    case 'pause':
      return { listeners: [], banner: 'Paused\n', termExit: 0 };
    case undefined:
      return {
        listeners: [],
        fail: {
          text: 'Usage:\n  agnhost [command]\n\nUse "agnhost [command] --help" for more information about a command.\n',
          exitCode: 0,
        },
      };
    default:
      return {
        listeners: [],
        fail: { text: `Error: unknown command "${sub}" for "agnhost"\nRun 'agnhost --help' for usage.\n`, exitCode: 1 },
      };
  }
}

function databaseServer(kind: 'mysql' | 'postgres' | 'mongo', e: ServerEnv, info: ImageInfo | undefined): Server {
  const t = new Date(e.startedAt)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '+00:00');
  if (kind === 'mysql') {
    const version = versionOf(info, e.tag, '9.5.0');
    const ok = ['MYSQL_ROOT_PASSWORD', 'MYSQL_ALLOW_EMPTY_PASSWORD', 'MYSQL_RANDOM_ROOT_PASSWORD'].some((k) => e.env.get(k));
    const start = `${t} [Note] [Entrypoint]: Entrypoint script for MySQL Server ${version}-1.el9 started.\n`;
    if (!ok)
      return {
        listeners: [],
        fail: {
          text: `${start}${t} [ERROR] [Entrypoint]: Database is uninitialized and password option is not specified\n    You need to specify one of the following as an environment variable:\n    - MYSQL_ROOT_PASSWORD\n    - MYSQL_ALLOW_EMPTY_PASSWORD\n    - MYSQL_RANDOM_ROOT_PASSWORD\n`,
          exitCode: 1,
        },
      };
    const ready = `${t} 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections. Version: '${version}'  socket: '/var/run/mysqld/mysqld.sock'  port: 3306  MySQL Community Server - GPL.\n`;
    return {
      listeners: [
        [3306, {}],
        [33060, {}],
      ],
      banner: start + ready,
      termExit: 0,
      openAfter: 5,
    };
  }
  if (kind === 'postgres') {
    if (!e.env.get('POSTGRES_PASSWORD') && e.env.get('POSTGRES_HOST_AUTH_METHOD') !== 'trust')
      return {
        listeners: [],
        fail: {
          text: 'Error: Database is uninitialized and superuser password is not specified.\n       You must specify POSTGRES_PASSWORD to a non-empty value for the\n       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".\n\n       You may also use "POSTGRES_HOST_AUTH_METHOD=trust" to allow all\n       connections without a password. This is *not* recommended.\n\n       See PostgreSQL documentation about "trust":\n       https://www.postgresql.org/docs/current/auth-trust.html\n',
          exitCode: 1,
        },
      };
    return {
      listeners: [[5432, {}]],
      banner: `${t.replace('+00:00', '.000 UTC')} [1] LOG:  database system is ready to accept connections\n`,
      termExit: 0,
      openAfter: 3,
    };
  }
  return {
    listeners: [[27017, {}]],
    banner:
      '{"t":{"$date":"' +
      new Date(e.startedAt).toISOString() +
      '"},"s":"I","c":"NETWORK","msg":"Waiting for connections","attr":{"port":27017}}\n',
    termExit: 0,
  };
}

/** Builds the server a program of kind `kind` runs with `args` (see the file comment). */
export function buildServer(kind: string, args: string[], e: ServerEnv, info: ImageInfo | undefined): Server | undefined {
  const env = (k: string, d: string) => e.env.get(k) || d;
  switch (kind) {
    case 'nginx':
      return nginxServer(args, e, info);
    case 'httpd':
      return httpdServer(e, info);
    case 'agnhost':
      return agnhostServer(args, e);
    case 'redis':
      return {
        listeners: [[Number(goFlags(args).get('port') ?? 6379), redisListener()]],
        banner: `1:C ${new Date(e.startedAt).toUTCString().slice(5, 25)}.000 * oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n1:M ${new Date(e.startedAt).toUTCString().slice(5, 25)}.000 * Ready to accept connections tcp\n`,
        termExit: 0,
      };
    case 'memcached':
      return { listeners: [[11211, { tcp: (d) => (/^version/m.test(d) ? 'VERSION 1.6.39\r\n' : 'ERROR\r\n') }]], termExit: 0 };
    case 'mysql':
    case 'postgres':
    case 'mongo':
      return databaseServer(kind, e, info);
    case 'pause':
      return { listeners: [], termExit: 0 };
    case 'bootcamp': {
      let requests = 0;
      const v = e.tag === 'v2' ? 2 : 1;
      const http = (): HttpResponse => {
        requests++;
        e.log(
          `Running On: ${e.hostname} | Total Requests: ${requests} | App Uptime: ${((e.now() - e.startedAt) / 1000).toFixed(3)} seconds | Log Time: ${new Date(e.now()).toString()}\n`,
        );
        return text(200, `Hello Kubernetes bootcamp! | Running on: ${e.hostname} | v=${v}\n`);
      };
      // node as PID 1 installs no SIGTERM handler: the container is killed at the end of its grace period.
      return {
        listeners: [[8080, { http }]],
        banner: `Kubernetes Bootcamp App Started At: ${new Date(e.startedAt).toISOString()} | Running On:  ${e.hostname} \n\n`,
      };
    }
    case 'hello-app': {
      const port = Number(env('PORT', '8080'));
      const version = e.tag === '2.0' ? '2.0.0' : '1.0.0';
      const http = (req: HttpRequest): HttpResponse => {
        e.log(`${goTime(e.now())} Serving request: ${req.path}\n`);
        return text(200, `Hello, world!\nVersion: ${version}\nHostname: ${e.hostname}\n`);
      };
      return { listeners: [[port, { http }]], banner: `${goTime(e.startedAt)} Server listening on port ${port}\n`, termExit: 2 };
    }
    case 'http-echo': {
      const flags = goFlags(args);
      const body = flags.get('text');
      if (!body) return { listeners: [], fail: { text: 'Missing -text option!\n', exitCode: 127 } };
      const port = Number(/:(\d+)$/.exec(flags.get('listen') ?? ':5678')?.[1] ?? 5678);
      return {
        listeners: [[port, { http: () => text(200, body + '\n') }]],
        banner: `${goTime(e.startedAt)} [INFO] server is listening on :${port}\n`,
        termExit: 0,
      };
    }
    case 'echoserver': {
      const http = (req: HttpRequest): HttpResponse =>
        text(
          200,
          `\n\nHostname: ${e.hostname}\n\nPod Information:\n\t-no pod information available-\n\nServer values:\n\tserver_version=nginx: 1.13.3 - lua: 10008\n\nRequest Information:\n\tclient_address=${req.clientIP}\n\tmethod=${req.method}\n\treal path=${req.path}\n\tquery=${req.query.toString()}\n\trequest_version=1.1\n\trequest_scheme=http\n\trequest_uri=http://${req.host}:8080${req.path}\n\nRequest Headers:\n\taccept=*/*\n\thost=${req.host}\n\tuser-agent=Wget\n\nRequest Body:\n\t-no body in request-\n\n`,
        );
      return { listeners: [[8080, { http }]], termExit: 0 };
    }
    case 'hello-world': {
      // crccheck/hello-world: busybox httpd on $PORT (8000) serving a page that says Hello World (abbreviated here).
      const port = Number(env('PORT', '8000'));
      return { listeners: [[port, { http: () => text(200, '<xmp>\nHello World\n</xmp>\n') }]], banner: 'httpd started\n', termExit: 0 };
    }
    case 'whoami': {
      const port = Number(goFlags(args).get('port') ?? env('WHOAMI_PORT_NUMBER', '80'));
      const http = (req: HttpRequest): HttpResponse =>
        text(
          200,
          `Hostname: ${e.hostname}\nIP: 127.0.0.1\nIP: ${e.podIP}\nRemoteAddr: ${req.clientIP}:${40000 + (e.now() % 20000)}\n${req.method} ${req.path} HTTP/1.1\nHost: ${req.host}\nUser-Agent: Wget\n\n`,
        );
      return { listeners: [[port, { http }]], banner: `${goTime(e.startedAt)} Starting up on port ${port}\n`, termExit: 2 };
    }
    case 'node-hello':
      return { listeners: [[8080, { http: () => text(200, 'Hello Kubernetes!') }]] };
    case 'liveness':
      return agnhostServer(['liveness'], e);
    case 'hpa-example':
      return { listeners: [[80, { http: () => text(200, 'OK!') }]], termExit: 0 };
    case 'coredns': {
      // The Corefile's health (:8080/health), ready (:8181/ready) and prometheus (:9153) plugins; DNS itself is cluster-net.ts's.
      const ok = () => text(200, 'OK');
      const version = e.tag.replace(/^v/, '');
      return {
        listeners: [
          [53, {}],
          [8080, { http: ok }],
          [8181, { http: ok }],
          [9153, { http: () => text(200, `coredns_build_info{version="${version}"} 1\n`) }],
        ],
        banner: `.:53\nCoreDNS-${version}\nlinux/amd64\n`,
        termExit: 0,
      };
    }
    case 'tcp':
      return { listeners: (info?.ports ?? []).map((p): [number, Listener] => [p, {}]), termExit: 0 };
    default:
      return undefined;
  }
}

/**
 * How a running Pod this process does not run answers (another kubelet-sim
 * process): from its spec, as its image's server would with the image's own
 * files. Undefined: nothing listens on that port.
 */
export function answerFromSpec(pod: Pod, port: number, req: HttpRequest | undefined): HttpResponse | undefined {
  for (const c of pod.spec?.containers ?? []) {
    if (c.command?.length) continue;
    const parsed = parseImageRef(c.image ?? '');
    if (!('ref' in parsed)) continue;
    const info = PROCESS_CATALOG.info(parsed.ref.repository);
    if (!info?.serves) continue;
    const server = buildServer(
      info.serves,
      [...(info.entrypoint ?? []).slice(1), ...(c.args ?? (info.entrypoint?.length ? [] : (info.cmd ?? []).slice(1)))],
      {
        fs: new SimFs(info.files ?? {}),
        env: new Map((c.env ?? []).map((v) => [v.name, v.value ?? ''])),
        hostname: pod.spec?.hostname ?? pod.metadata?.name ?? '',
        podIP: pod.status?.podIP ?? '',
        now: wallNow,
        startedAt: Date.parse(pod.status?.startTime ?? '') || wallNow(),
        log: () => {},
        tag: parsed.ref.tag ?? 'latest',
        speed: 1,
      },
      info,
    );
    const l = server?.fail ? undefined : server?.listeners.find(([p]) => p === port)?.[1];
    if (!l) continue;
    if (!req) return { status: 0, body: '' };
    return l.http?.(req);
  }
  return undefined;
}
