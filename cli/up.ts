// `ksim up`: the supervisor. Starts the apiserver, waits for /readyz, writes
// DIR/kubeconfig, then starts the other components, and stays in the
// foreground until SIGINT/SIGTERM, when it stops every child and exits 0.
// It restarts nothing by itself: a chaos experiment wants to see a death.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeKubeconfig } from '../shared/client/kubeconfig-file.ts';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import { writeClusterState, type ComponentState } from './cluster-state.ts';

const FLAGS = {
  'data-dir': { type: 'string', default: '.ksim', help: 'directory for the database, kubeconfig and logs' },
  port: { type: 'number', default: 6443, help: 'apiserver port' },
  nodes: { type: 'number', default: 3, help: 'number of simulated nodes' },
  speed: { type: 'number', default: 1, help: 'divide every control-plane duration by this' },
  'bind-address': { type: 'string', default: '127.0.0.1', help: 'apiserver listen address' },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

/** The components `ksim up` starts after the apiserver, in order, with their flags. */
const COMPONENTS: { name: string; args: (c: { kubeconfig: string; speed: number; nodes: number }) => string[] }[] = [
  { name: 'controller-manager', args: (c) => ['--kubeconfig', c.kubeconfig, '--speed', String(c.speed)] },
  { name: 'scheduler', args: (c) => ['--kubeconfig', c.kubeconfig, '--speed', String(c.speed)] },
  { name: 'kubelet-sim', args: (c) => ['--kubeconfig', c.kubeconfig, '--nodes', String(c.nodes), '--speed', String(c.speed)] },
];

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

function startChild(name: string, args: string[], dataDir: string, endpoint: string): Child {
  const logDir = path.join(dataDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const out = fs.openSync(path.join(logDir, `${name}.log`), 'a');
  const proc = spawn(process.execPath, [...componentNodeFlags(name), CLI, name, ...args], {
    stdio: ['ignore', out, out],
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

async function waitReady(url: string, child: Child): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.state.state === 'exited') throw new Error(`${child.state.name} exited (code ${child.state.exitCode}); see ${child.state.log}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.state.name} was not ready within ${READY_TIMEOUT_MS / 1000}s; see ${child.state.log}`);
}

/** Runs `ksim up`. */
export async function upMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('up', argv, FLAGS);
  if (!flags) return;
  const dataDir = path.resolve(flags['data-dir']);
  fs.mkdirSync(dataDir, { recursive: true });
  const host = flags['bind-address'] === '0.0.0.0' ? '127.0.0.1' : flags['bind-address'];
  const server = `http://${host}:${flags.port}`;
  const children: Child[] = [];
  const save = () => writeClusterState(dataDir, { supervisorPid: process.pid, server, components: children.map((c) => c.state) });

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

  const apiserver = startChild('apiserver', ['--data-dir', dataDir, '--port', String(flags.port), '--bind-address', flags['bind-address']], dataDir, server);
  children.push(apiserver);
  save();
  apiserver.exited.then(() => {
    save();
    if (!stopping) process.stderr.write(`ksim: apiserver exited (code ${apiserver.state.exitCode}); see ${apiserver.state.log}\n`);
  });
  try {
    await waitReady(`${server}/readyz`, apiserver);
  } catch (err) {
    process.stderr.write(`ksim up: ${(err as Error).message}\n`);
    await stopAll(1);
    return;
  }
  const kubeconfig = path.join(dataDir, 'kubeconfig');
  await writeKubeconfig(kubeconfig, server);
  for (const component of COMPONENTS) {
    if (component.name === 'kubelet-sim' && flags.nodes <= 0) continue;
    const port = await freePort();
    const child = startChild(component.name, [...component.args({ kubeconfig, speed: flags.speed, nodes: flags.nodes }), '--port', String(port)], dataDir, `http://127.0.0.1:${port}`);
    children.push(child);
    child.exited.then(() => {
      save();
      if (!stopping) process.stderr.write(`ksim: ${component.name} exited (code ${child.state.exitCode}); see ${child.state.log}\n`);
    });
  }
  save();
  process.stdout.write(
    `ksim is up: apiserver at ${server} (pid ${apiserver.state.pid}), data in ${dataDir}\n` +
      `Components: ${children.map((c) => c.state.name).join(', ')}; \`ksim status --data-dir ${dataDir}\` shows them\n` +
      `To use it:\n  export KUBECONFIG=${kubeconfig}\n  kubectl get namespaces\n` +
      `Logs: ${path.join(dataDir, 'logs')}. Stop with Ctrl-C.\n`,
  );
}
