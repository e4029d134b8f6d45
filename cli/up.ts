// `ksim up`: the supervisor. Starts the apiserver, waits until that process
// itself reports serving (over an IPC channel, with its pid, port and URL:
// another apiserver answering /readyz on the same port must not pass for it),
// then starts the other components, each with its own kubeconfig, and stays
// in the foreground until SIGINT/SIGTERM, when it stops every child and exits 0.
// The apiserver itself makes DIR/pki and the kubeconfigs (it holds the data
// dir): one per identity over HTTPS, the one DIR/kubeconfig every component
// shares over plain HTTP (--insecure-http).
// When its apiserver cannot start (data dir held by another ksim, port taken,
// disk read-only or full) it says why in one line and exits 1, leaving the
// data dir's cluster.json and kubeconfig to whoever owns them.
// It restarts nothing by itself: a chaos experiment wants to see a death.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pkiPaths } from '../shared/pki/cluster-pki.ts';
import { kubeconfigPaths } from '../shared/pki/kubeconfigs.ts';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import type { ServingMessage } from '../apiserver/main.ts';
import { mkdirFailureCause, openFailureReason } from '../apiserver/storage/open-failure.ts';
import { writeClusterState, type ComponentState } from './cluster-state.ts';

const FLAGS = {
  'data-dir': { type: 'string', default: '.ksim', help: 'directory for the database, kubeconfig and logs' },
  port: { type: 'number', default: 6443, help: 'apiserver port' },
  nodes: { type: 'number', default: 3, help: 'number of simulated nodes' },
  speed: { type: 'number', default: 1, help: 'divide every control-plane duration by this' },
  'bind-address': { type: 'string', default: '127.0.0.1', help: 'apiserver listen address' },
  'advertise-address': {
    type: 'string',
    default: '',
    help: 'addresses or names the apiserver is reached at, comma-separated, added to its serving certificate',
  },
  'insecure-http': { type: 'boolean', help: 'serve plain HTTP with no authentication or authorization (teaching only)' },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

/** What a component's flags are made from. */
interface ComponentContext {
  dataDir: string;
  /** Over HTTPS each component has its own identity; over plain HTTP all share DIR/kubeconfig. */
  tls: boolean;
  speed: number;
  nodes: number;
}

const kubeconfigOf = (c: ComponentContext, name: keyof ReturnType<typeof kubeconfigPaths>) =>
  c.tls ? kubeconfigPaths(c.dataDir)[name] : kubeconfigPaths(c.dataDir).admin;

/** The components `ksim up` starts after the apiserver, in order, with their flags. */
const COMPONENTS: { name: string; args: (c: ComponentContext) => string[] }[] = [
  {
    name: 'controller-manager',
    args: (c) => [
      '--kubeconfig',
      kubeconfigOf(c, 'controllerManager'),
      '--speed',
      String(c.speed),
      // The CSR signer issues from the cluster CA, as kubeadm configures kube-controller-manager.
      ...(c.tls
        ? [
            '--cluster-signing-cert-file',
            pkiPaths(c.dataDir, 'ca').certPath,
            '--cluster-signing-key-file',
            pkiPaths(c.dataDir, 'ca').keyPath,
          ]
        : []),
    ],
  },
  { name: 'scheduler', args: (c) => ['--kubeconfig', kubeconfigOf(c, 'scheduler'), '--speed', String(c.speed)] },
  {
    name: 'kubelet-sim',
    args: (c) => ['--kubeconfig', kubeconfigOf(c, 'kubeletSim'), '--nodes', String(c.nodes), '--speed', String(c.speed)],
  },
];

/** Said on stderr and recorded in cluster.json, so nobody mistakes such a cluster for a guarded one. */
const INSECURE_WARNING =
  'WARNING: --insecure-http: the apiserver serves plain HTTP with no authentication and no authorization; anyone who can reach it can do anything. For teaching only.';

/** A port free right now on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ksim.mjs');
const READY_TIMEOUT_MS = 30_000;

interface Child {
  state: ComponentState;
  proc: ChildProcess;
  exited: Promise<void>;
}

/**
 * V8 flags per component. kubelet-sim allocates a short-lived object graph
 * for every Pod status it writes; a 32 MiB young generation (Node's default
 * is 16) let 10,000 Pods run in 17 s instead of 25 s in bench/kubelet-sim.ts.
 */
const NODE_FLAGS: Record<string, string[]> = { 'kubelet-sim': ['--max-semi-space-size=32'] };

/** Node's own flags for running `component` (benchmarks start components the same way). */
export function componentNodeFlags(component: string): string[] {
  return NODE_FLAGS[component] ?? [];
}

function startChild(name: string, args: string[], dataDir: string, endpoint: string, opts: { ipc?: boolean } = {}): Child {
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const out = fs.openSync(path.join(logDir, `${name}.log`), 'a');
  const proc = spawn(process.execPath, [...componentNodeFlags(name), CLI, name, ...args], {
    stdio: opts.ipc ? ['ignore', out, out, 'ipc'] : ['ignore', out, out],
    env: { ...process.env, KSIM_SUPERVISOR_PID: String(process.pid) },
  });
  fs.closeSync(out);
  const state: ComponentState = { name, pid: proc.pid ?? 0, state: 'running', endpoint, log: path.join(logDir, `${name}.log`) };
  const exited = new Promise<void>((resolve) => {
    proc.on('exit', (code, signal) => {
      state.state = 'exited';
      state.exitCode = code ?? undefined;
      state.signal = signal ?? undefined;
      resolve();
    });
  });
  return { state, proc, exited };
}

/** The message of the last fatal line process `pid` wrote to `logFile` after byte `offset`. */
function fatalMessage(logFile: string, offset: number, pid: number): string | undefined {
  let text: string;
  try {
    const fd = fs.openSync(logFile, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const buf = Buffer.alloc(Math.max(0, Math.min(size - offset, 1024 * 1024)));
      fs.readSync(fd, buf, 0, buf.length, offset);
      text = buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  let message: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.pid === pid && entry.level >= 60 && typeof entry.msg === 'string') message = entry.msg;
    } catch {
      // not a log line
    }
  }
  return message;
}

/** The serving report. */
type Serving = { port: number; url: string };

/**
 * Resolves with the port (and URL) once the apiserver child itself reports
 * serving; rejects with the reason it gave (its fatal log line) if it exits first.
 */
function waitServing(child: Child, logOffset: number): Promise<Serving> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the apiserver did not start serving within ${READY_TIMEOUT_MS / 1000}s; see ${child.state.log}`)),
      READY_TIMEOUT_MS,
    );
    child.proc.on('message', (m: Partial<ServingMessage>) => {
      if (m?.type !== 'serving' || m.pid !== child.proc.pid || typeof m.port !== 'number' || typeof m.url !== 'string') return;
      clearTimeout(timer);
      resolve({ port: m.port, url: m.url });
    });
    void child.exited.then(() => {
      clearTimeout(timer);
      const why = fatalMessage(child.state.log, logOffset, child.state.pid);
      const how = child.state.exitCode !== undefined ? `code ${child.state.exitCode}` : `signal ${child.state.signal}`;
      reject(new Error(`the apiserver could not start (${how}): ${why ?? 'no reason logged'}; see ${child.state.log}`));
    });
  });
}

/** Makes sure `dataDir` (and its logs dir) can be created and written; throws a one-line reason. */
async function prepareDataDir(dataDir: string): Promise<void> {
  for (const dir of [dataDir, path.join(dataDir, 'logs')]) {
    try {
      await fs.promises.mkdir(dir, { recursive: true }).catch(async (err) => {
        throw await mkdirFailureCause(dir, err);
      });
      await fs.promises.access(dir, fs.constants.W_OK);
    } catch (err) {
      throw new Error(`cannot use data dir ${dataDir}: ${openFailureReason(dir, err)}`, { cause: err });
    }
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** Runs `ksim up`. */
export async function upMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('up', argv, FLAGS);
  if (!flags) return;
  const dataDir = path.resolve(flags['data-dir']);
  try {
    await prepareDataDir(dataDir);
  } catch (err) {
    process.stderr.write(`ksim up: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const host = flags['bind-address'] === '0.0.0.0' ? '127.0.0.1' : flags['bind-address'];
  const insecure = flags['insecure-http'];
  let server = `${insecure ? 'http' : 'https'}://${host}:${flags.port}`;
  if (insecure) process.stderr.write(`ksim up: ${INSECURE_WARNING}\n`);
  const children: Child[] = [];
  // cluster.json is written only once this supervisor's apiserver serves: before that the data dir may be another ksim's.
  let owner = false;
  let saveFailing = false;
  const save = () => {
    if (!owner) return;
    const err = writeClusterState(dataDir, {
      supervisorPid: process.pid,
      server,
      ...(server.startsWith('http:') ? { insecure: true } : {}),
      components: children.map((c) => c.state),
    });
    // Said once per failing stretch: a full disk must not end the supervisor, nor flood its output.
    if (err && !saveFailing)
      process.stderr.write(
        `ksim: could not update ${path.join(dataDir, 'cluster.json')} (${(err as NodeJS.ErrnoException).code ?? err.message}); \`ksim status\` may show an older state\n`,
      );
    saveFailing = err !== undefined;
  };

  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    // Stop in reverse start order: components first, the apiserver last.
    for (const c of [...children].reverse()) {
      if (c.state.state === 'running') c.proc.kill('SIGTERM');
      const killer = setTimeout(() => c.proc.kill('SIGKILL'), 10_000);
      await c.exited;
      clearTimeout(killer);
    }
    save();
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  const apiserverLog = path.join(dataDir, 'logs', 'apiserver.log');
  const logOffset = fileSize(apiserverLog);
  const apiserverArgs = ['--data-dir', dataDir, '--port', String(flags.port), '--bind-address', flags['bind-address']];
  if (flags['advertise-address']) apiserverArgs.push('--advertise-address', flags['advertise-address']);
  if (insecure) apiserverArgs.push('--insecure-http');
  const apiserver = startChild('apiserver', apiserverArgs, dataDir, server, { ipc: true });
  children.push(apiserver);
  try {
    const serving = await waitServing(apiserver, logOffset);
    server = serving.url;
    apiserver.state.endpoint = server;
    owner = true;
    // The channel has said what it was for; the apiserver must not depend on it.
    if (apiserver.proc.connected) apiserver.proc.disconnect();
  } catch (err) {
    process.stderr.write(`ksim up: ${(err as Error).message}\n`);
    await stopAll(1);
    return;
  }
  save();
  void apiserver.exited.then(() => {
    save();
    if (!stopping) process.stderr.write(`ksim: apiserver exited (code ${apiserver.state.exitCode}); see ${apiserver.state.log}\n`);
  });
  const tls = server.startsWith('https:');
  const kubeconfig = kubeconfigPaths(dataDir).admin;
  const missing = (tls ? Object.values(kubeconfigPaths(dataDir)) : [kubeconfig]).filter((f) => !fs.existsSync(f));
  if (missing.length > 0) {
    process.stderr.write(`ksim up: the apiserver serves ${server} but did not write ${missing.join(', ')}; see ${apiserver.state.log}\n`);
    await stopAll(1);
    return;
  }
  const context: ComponentContext = { dataDir, tls, speed: flags.speed, nodes: flags.nodes };
  for (const component of COMPONENTS) {
    if (component.name === 'kubelet-sim' && flags.nodes <= 0) continue;
    const port = await freePort();
    const child = startChild(component.name, [...component.args(context), '--port', String(port)], dataDir, `http://127.0.0.1:${port}`);
    children.push(child);
    void child.exited.then(() => {
      save();
      if (!stopping) process.stderr.write(`ksim: ${component.name} exited (code ${child.state.exitCode}); see ${child.state.log}\n`);
    });
  }
  save();
  process.stdout.write(
    `ksim is up: apiserver at ${server} (pid ${apiserver.state.pid}), data in ${dataDir}\n` +
      `Components: ${children.map((c) => c.state.name).join(', ')}; \`ksim status --data-dir ${dataDir}\` shows them\n` +
      (tls ? `Cluster CA: ${pkiPaths(dataDir, 'ca').certPath}\n` : `INSECURE: plain HTTP, no authentication\n`) +
      `To use it:\n  export KUBECONFIG=${kubeconfig}\n  kubectl get namespaces\n` +
      `Logs: ${path.join(dataDir, 'logs')}. Stop with Ctrl-C.\n`,
  );
}
