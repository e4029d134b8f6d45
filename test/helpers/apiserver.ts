// Starts a real `ksim apiserver` process for an end-to-end test, on a free
// port and a temporary data dir, and waits until it reports ready: over
// HTTPS (the default) it verifies the server with DIR/pki/ca.crt and then
// reads the admin kubeconfig the apiserver wrote, DIR/kubeconfig; with
// --insecure-http it speaks plain HTTP and reads the plain kubeconfig the
// apiserver writes then.
//
//   const apiserver = await startApiserver();
//   after(() => apiserver.stop());
//   api(apiserver).request('GET', '/api/v1/namespaces');   // as the admin
//   kubectl(['get', 'ns'], { kubeconfig: apiserver.kubeconfig });
import { existsSync, closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import { loadKubeconfig, type ClientConfig } from '../../shared/client/kubeconfig.ts';
import { kubeconfigPaths } from '../../shared/pki/paths.ts';
import { freePort } from './free-port.ts';
import { ksimNodeArgs, repoRoot } from './paths.ts';
import { spawnTracked, type TrackedProcess } from './processes.ts';
import { tempDir } from './temp-dir.ts';
import { tlsMaterialOf, type ApiTarget, type TlsMaterial } from './tls.ts';

/** The identities whose kubeconfigs the apiserver writes in its data dir. */
export type Identity = keyof ReturnType<typeof kubeconfigPaths>;

/** Options for startApiserver; everything has a test-friendly default. */
export interface ApiserverOptions {
  /** Data directory; a fresh temp dir (removed at exit) when omitted. */
  dataDir?: string;
  /** Port on 127.0.0.1; a free one when omitted. */
  port?: number;
  /** More flags after `--data-dir DIR --port PORT`. */
  extraArgs?: string[];
  /** Extra environment variables for the process. */
  env?: Record<string, string>;
  /** How long to wait for /readyz to answer 200 (default 20000 ms). */
  readyTimeoutMs?: number;
}

/** A running apiserver under test. */
export interface Apiserver extends ApiTarget {
  /** Base URL, e.g. https://127.0.0.1:41234 (no trailing slash; http:// with --insecure-http). */
  readonly url: string;
  /** Whether it serves HTTPS (with authentication and authorization). */
  readonly secure: boolean;
  /** The cluster CA and the admin's client certificate and key; undefined over plain HTTP. */
  readonly tls?: TlsMaterial;
  /** DIR/kubeconfig: the admin (CN=kubernetes-admin, O=kubeadm:cluster-admins). */
  readonly kubeconfig: string;
  /** The admin kubeconfig, loaded: `new KubeClient(apiserver.clientConfig)`. */
  readonly clientConfig: ClientConfig;
  /** The kubeconfig of a component's own identity (over plain HTTP everyone shares DIR/kubeconfig). */
  kubeconfigOf(identity: Identity): string;
  readonly port: number;
  readonly dataDir: string;
  /** Pid of the current process (changes after restart). */
  readonly pid: number;
  /** File that receives the process's stdout and stderr, across restarts. */
  readonly logFile: string;
  /** The last n lines of the log (default 40). */
  logTail(n?: number): string;
  /** SIGTERM, wait for the exit, SIGKILL after 5 s. Safe to call twice. */
  stop(): Promise<void>;
  /** SIGKILL (a crash) and wait for the exit. */
  kill9(): Promise<void>;
  /** Stops it if running, then starts it again on the same dataDir and port. */
  restart(): Promise<void>;
}

const defaultReadyTimeoutMs = 20_000;
const pollIntervalMs = 100;

function tail(file: string, n: number): string {
  try {
    const lines = readFileSync(file, 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-n).join('\n');
  } catch {
    return '(no log)';
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Returns true when GET url/readyz answers 200 (verifying the server with `ca` over https). */
async function isReady(url: string, ca?: Buffer): Promise<boolean> {
  if (!url.startsWith('https:')) {
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      return res.status === 200;
    } catch {
      return false;
    }
  }
  return new Promise((resolve) => {
    const req = https.get(`${url}/readyz`, { ca, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
      res.on('error', () => resolve(false));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

const insecureRequested = (opts: ApiserverOptions): boolean => (opts.extraArgs ?? []).includes('--insecure-http');

/**
 * The scheme to poll: https once DIR/pki/ca.crt exists (the apiserver makes
 * it before it listens), http when --insecure-http was asked for or while
 * there is no CA (an apiserver that predates TLS never makes one).
 */
function probe(dataDir: string, port: number, opts: ApiserverOptions): { url: string; ca?: Buffer } {
  const caFile = join(dataDir, 'pki', 'ca.crt');
  if (!insecureRequested(opts) && existsSync(caFile)) {
    try {
      return { url: `https://127.0.0.1:${port}`, ca: readFileSync(caFile) };
    } catch {
      // Being written: plain http fails too, and the next poll reads it.
    }
  }
  return { url: `http://127.0.0.1:${port}` };
}

/**
 * The admin kubeconfig of a ready apiserver: the one it writes once serving
 * (waited for; it must name this port; over https it carries the admin's
 * client certificate).
 */
async function adminKubeconfig(dataDir: string, url: string, deadline: number): Promise<ClientConfig> {
  const path = kubeconfigPaths(dataDir).admin;
  const secure = url.startsWith('https:');
  let last: unknown;
  for (;;) {
    try {
      const config = loadKubeconfig(path);
      if (config.server === url && (!secure || (config.cert && config.key))) return config;
      last = new Error(`${path} names ${config.server}, not ${url}`);
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`apiserver at ${url} is ready but wrote no usable ${path}: ${(last as Error).message}`);
    await sleep(pollIntervalMs);
  }
}

class AddressInUse extends Error {}

/** Spawns the process and waits for /readyz; kills it and throws on failure. */
async function launch(
  dataDir: string,
  port: number,
  logFile: string,
  opts: ApiserverOptions,
): Promise<{ proc: TrackedProcess; config: ClientConfig }> {
  const args = [...ksimNodeArgs(), 'apiserver', '--data-dir', dataDir, '--port', String(port), ...(opts.extraArgs ?? [])];
  const fd = openSync(logFile, 'a');
  let proc: TrackedProcess;
  try {
    writeSync(fd, `--- ${new Date().toISOString()} node ${args.join(' ')}\n`);
    proc = await spawnTracked(process.execPath, args, {
      cwd: repoRoot,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  const deadline = Date.now() + (opts.readyTimeoutMs ?? defaultReadyTimeoutMs);
  for (;;) {
    const { url, ca } = probe(dataDir, port, opts);
    if (!proc.running()) {
      const { code, signal } = await proc.exited;
      const log = tail(logFile, 40);
      if (/EADDRINUSE/.test(log)) throw new AddressInUse(log);
      throw new Error(`apiserver exited before it was ready (code ${code}, signal ${signal}); last log lines of ${logFile}:\n${log}`);
    }
    if (await isReady(url, ca)) {
      try {
        return { proc, config: await adminKubeconfig(dataDir, url, deadline) };
      } catch (err) {
        await proc.kill9();
        throw new Error(`${(err as Error).message}; last log lines of ${logFile}:\n${tail(logFile, 40)}`, { cause: err });
      }
    }
    if (Date.now() > deadline) {
      await proc.kill9();
      throw new Error(
        `apiserver at ${url} not ready after ${opts.readyTimeoutMs ?? defaultReadyTimeoutMs} ms; ` +
          `last log lines of ${logFile}:\n${tail(logFile, 40)}`,
      );
    }
    await sleep(pollIntervalMs);
  }
}

/**
 * Spawns `node cli/ksim.mjs apiserver --data-dir DIR --port PORT` from the
 * repository root, with its output in DIR/apiserver.log, and resolves once
 * GET /readyz returns 200. The process is killed at test-process exit even
 * if the test never calls stop().
 */
export async function startApiserver(opts: ApiserverOptions = {}): Promise<Apiserver> {
  const dataDir = opts.dataDir ?? (await tempDir('apiserver'));
  const logFile = join(dataDir, 'apiserver.log');
  let port = opts.port ?? (await freePort());
  let launched: { proc: TrackedProcess; config: ClientConfig } | undefined;
  // A port picked by freePort can be taken before the server binds it: retry
  // with another one, but never when the caller asked for a specific port.
  for (let attempt = 1; ; attempt++) {
    try {
      launched = await launch(dataDir, port, logFile, opts);
      break;
    } catch (err) {
      if (!(err instanceof AddressInUse) || opts.port !== undefined || attempt >= 3) {
        throw err instanceof AddressInUse
          ? new Error(`apiserver could not bind port ${port}; last log lines of ${logFile}:\n${err.message}`)
          : err;
      }
      port = await freePort();
    }
  }

  let current: TrackedProcess = launched.proc;
  const config = launched.config;
  const secure = config.server.startsWith('https:');
  const api: Apiserver = {
    url: config.server,
    secure,
    tls: tlsMaterialOf(config),
    kubeconfig: kubeconfigPaths(dataDir).admin,
    clientConfig: config,
    kubeconfigOf: (identity) => (secure ? kubeconfigPaths(dataDir)[identity] : kubeconfigPaths(dataDir).admin),
    port,
    dataDir,
    logFile,
    get pid() {
      return current.pid;
    },
    logTail: (n = 40) => tail(logFile, n),
    async stop() {
      await current.stop(5000);
    },
    async kill9() {
      await current.kill9();
    },
    async restart() {
      if (current.running()) await current.stop(5000);
      // Same data dir: the same PKI and kubeconfigs, so clients made before keep working.
      current = (await launch(dataDir, port, logFile, opts)).proc;
    },
  };
  return api;
}
