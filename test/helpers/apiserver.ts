// Starts a real `ksim apiserver` process for an end-to-end test, on a free
// port and a temporary data dir, and waits until it reports ready.
//
//   const apiserver = await startApiserver();
//   after(() => apiserver.stop());
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { ksimNodeArgs, repoRoot } from './paths.ts';
import { spawnTracked, type TrackedProcess } from './processes.ts';
import { tempDir } from './temp-dir.ts';

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
export interface Apiserver {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
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

/** Returns true when GET url/readyz answers 200. */
async function isReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

class AddressInUse extends Error {}

/** Spawns the process and waits for /readyz; kills it and throws on failure. */
async function launch(dataDir: string, port: number, logFile: string, opts: ApiserverOptions): Promise<TrackedProcess> {
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
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? defaultReadyTimeoutMs);
  for (;;) {
    if (!proc.running()) {
      const { code, signal } = await proc.exited;
      const log = tail(logFile, 40);
      if (/EADDRINUSE/.test(log)) throw new AddressInUse(log);
      throw new Error(`apiserver exited before it was ready (code ${code}, signal ${signal}); last log lines of ${logFile}:\n${log}`);
    }
    if (await isReady(url)) return proc;
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
  let proc: TrackedProcess | undefined;
  // A port picked by freePort can be taken before the server binds it: retry
  // with another one, but never when the caller asked for a specific port.
  for (let attempt = 1; ; attempt++) {
    try {
      proc = await launch(dataDir, port, logFile, opts);
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

  let current: TrackedProcess = proc;
  const api: Apiserver = {
    url: `http://127.0.0.1:${port}`,
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
      current = await launch(dataDir, port, logFile, opts);
    },
  };
  return api;
}
