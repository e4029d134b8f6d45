// Starts a whole cluster the way a user does, `ksim up --nodes N --speed S`,
// on a free port and a temporary data dir, waits until every node is Ready,
// and gives the test kubectl against it plus the supervisor's component pids
// (for chaos: kill one, start it again). Over HTTPS (the default) the URL,
// CA and admin certificate come from DIR/kubeconfig, and a component started
// again runs under its own identity's kubeconfig, as `ksim up` starts it.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { ClusterState, ComponentState } from '../../cli/cluster-state.ts';
import { join } from 'node:path';
import { loadKubeconfig } from '../../shared/client/kubeconfig.ts';
import { kubeconfigPaths, pkiPaths } from '../../shared/pki/paths.ts';
import { freePort } from './free-port.ts';
import { kubectl, type ToolResult } from './kubectl.ts';
import { ksimCli } from './paths.ts';
import { spawnTracked, type TrackedProcess } from './processes.ts';
import { tempDir } from './temp-dir.ts';
import { tlsMaterialOf, type ApiTarget, type TlsMaterial } from './tls.ts';
import { ok } from './tool-result.ts';

/** A running `ksim up`. */
export interface Cluster extends ApiTarget {
  dataDir: string;
  /** DIR/kubeconfig, the admin's. */
  kubeconfig: string;
  /** The apiserver's URL as the kubeconfig names it (https unless the cluster is insecure). */
  url: string;
  /** The cluster CA and the admin's client certificate; undefined over plain HTTP. */
  tls?: TlsMaterial;
  /** Runs the real kubectl against the cluster. */
  k(args: string[], input?: string): Promise<ToolResult>;
  /** `kubectl ARGS -o jsonpath=PATH`'s output; throws when kubectl fails. */
  jsonpath(args: string[], path: string): Promise<string>;
  /** The pid `ksim up` recorded for a component (throws when it recorded none). */
  pidOf(component: string): number;
  /** The health/metrics endpoint `ksim up` recorded for a component (kubelet-sim serves its chaos switches there). */
  endpointOf(component: string): string;
  /** Runs `ksim chaos ARGS --data-dir DIR` (the command line a user types). */
  chaos(args: string[]): Promise<ToolResult>;
  /** Runs `ksim status --data-dir DIR`. */
  status(): Promise<ToolResult>;
  /** Runs `ksim ARGS --data-dir DIR` (history, diff, blame, trace: any command that takes --data-dir). */
  ksim(args: string[]): Promise<ToolResult>;
  /** A request to the supervisor's control endpoint (DIR/control.json's URL and token), answered with its status and JSON body. */
  control(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** The `ksim up` process itself. */
  up: TrackedProcess;
  /** Starts one more copy of a component (after a chaos kill, say), tracked for cleanup. */
  startComponent(component: string, args?: string[]): Promise<TrackedProcess>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `ksim ARGS` to its end (60 s at most). */
function runKsim(args: string[]): Promise<ToolResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ksimCli, ...args], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const e = err as (Error & { code?: unknown; killed?: boolean }) | null;
      const code = e ? (typeof e.code === 'number' ? e.code : 1) : 0;
      resolve({ code, stdout, stderr, timedOut: e?.killed === true });
    });
  });
}

/** One request to the control endpoint of the `ksim up` in dataDir. */
async function controlCall(dataDir: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const { url, token } = JSON.parse(readFileSync(join(dataDir, 'control.json'), 'utf8')) as { url: string; token: string };
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The last `n` lines of `text`. */
const tail = (text: string, n: number): string => text.trimEnd().split('\n').slice(-n).join('\n');

/**
 * Why a cluster did not come up, with what there is to read: the last lines
 * of `ksim up`'s output and of each component's log in the data dir (which
 * is removed when the test ends).
 */
function startFailure(why: string, output: string, dataDir: string): Error {
  const parts = [why, `--- ksim up (last lines) ---\n${tail(output, 30)}`];
  const logs = join(dataDir, 'logs');
  for (const file of existsSync(logs) ? readdirSync(logs).sort() : [])
    parts.push(`--- ${file} (last lines) ---\n${tail(readFileSync(join(logs, file), 'utf8'), 15)}`);
  return new Error(parts.join('\n'));
}

/** Starts `ksim up` (with `upArgs` besides the data dir, port, nodes and speed) and waits for `nodes` Ready nodes. */
export async function startCluster(opts: { nodes?: number; speed?: number; upArgs?: string[] } = {}): Promise<Cluster> {
  const nodes = opts.nodes ?? 3;
  const dataDir = await tempDir('cluster');
  const port = await freePort();
  const up = await spawnTracked(
    process.execPath,
    [
      ksimCli,
      'up',
      '--data-dir',
      dataDir,
      '--port',
      String(port),
      '--nodes',
      String(nodes),
      '--speed',
      String(opts.speed ?? 10),
      // The web UI follows every write: a test that does not look at it spares the machine its reads.
      ...(opts.upArgs?.some((a) => a.startsWith('--ui')) ? [] : ['--ui=false']),
      ...(opts.upArgs ?? []),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  up.child.stdout!.on('data', (d) => (output += d));
  up.child.stderr!.on('data', (d) => (output += d));
  const kubeconfig = join(dataDir, 'kubeconfig');
  const extra: TrackedProcess[] = [];
  const k = (args: string[], input?: string) => kubectl(args, { kubeconfig, input, timeoutMs: 60_000 });
  const deadline = Date.now() + 60_000;
  while (!output.includes('export KUBECONFIG=')) {
    if (!up.running() || Date.now() > deadline) throw startFailure('ksim up did not come up', output, dataDir);
    await sleep(100);
  }
  for (;;) {
    // `nodes` worker nodes: the control-plane node `ksim up` adds (registered with its taint) is not one of them.
    const r = await k([
      'get',
      'nodes',
      '-o',
      'jsonpath={range .items[*]}{.spec.taints[*].key} {.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
    ]);
    const workers = r.stdout.split('\n').filter((s) => !s.includes('node-role.kubernetes.io/control-plane'));
    // Ready, and no longer carrying the not-ready taint the node controller gave it at registration (until it
    // removes that, the scheduler keeps new Pods off the node, and a test that spreads Pods would see it empty).
    const schedulable = workers.filter((s) => s.endsWith(' True') && !s.includes('node.kubernetes.io/not-ready'));
    if (r.code === 0 && schedulable.length >= nodes) break;
    if (Date.now() > deadline)
      throw startFailure(
        `nodes not Ready in time (kubectl get nodes: exit ${r.code}${r.timedOut ? ', timed out' : ''}): ${r.stdout} ${r.stderr}`,
        output,
        dataDir,
      );
    await sleep(200);
  }
  const config = loadKubeconfig(kubeconfig);
  const secure = config.server.startsWith('https:');
  // Each component's own identity, as `ksim up` starts it (everyone shares the admin's over plain HTTP).
  const identityArgs = (component: string): string[] => {
    const paths = kubeconfigPaths(dataDir);
    const own: Record<string, string> = {
      'controller-manager': paths.controllerManager,
      scheduler: paths.scheduler,
      'kubelet-sim': paths.kubeletSim,
    };
    const file = secure && own[component] && existsSync(own[component]) ? own[component] : kubeconfig;
    const args = ['--kubeconfig', file];
    if (secure && component === 'controller-manager')
      args.push(
        '--cluster-signing-cert-file',
        pkiPaths(dataDir, 'ca').certPath,
        '--cluster-signing-key-file',
        pkiPaths(dataDir, 'ca').keyPath,
      );
    return args;
  };
  const recorded = (component: string): ComponentState => {
    const state = JSON.parse(readFileSync(join(dataDir, 'cluster.json'), 'utf8')) as ClusterState;
    const c = state.components.find((s) => s.name === component);
    if (!c) throw new Error(`ksim up recorded no ${component} in ${dataDir}/cluster.json`);
    return c;
  };
  return {
    dataDir,
    kubeconfig,
    url: config.server,
    tls: tlsMaterialOf(config),
    k,
    jsonpath: async (args, path) => ok(await k([...args, '-o', `jsonpath=${path}`])),
    pidOf: (component) => recorded(component).pid,
    chaos: (args) => runKsim(['chaos', ...args, '--data-dir', dataDir]),
    status: () => runKsim(['status', '--data-dir', dataDir]),
    ksim: (args) => runKsim([...args, '--data-dir', dataDir]),
    control: (method, path, body) => controlCall(dataDir, method, path, body),
    up,
    endpointOf: (component) => recorded(component).endpoint,
    async startComponent(component, args = []) {
      const proc = await spawnTracked(process.execPath, [ksimCli, component, ...identityArgs(component), '--port', '0', ...args], {
        stdio: 'ignore',
      });
      extra.push(proc);
      return proc;
    },
    async stop() {
      for (const p of extra) await p.stop();
      reportDeaths(output);
      await up.stop(20_000);
    },
  };
}

/**
 * For a failed run's sake: every component death `ksim up` reported (a test's
 * own chaos kill among them), with the last warnings and errors of that
 * component's log, on stderr (the data dir is gone after the run).
 */
function reportDeaths(output: string): void {
  for (const m of output.matchAll(/^ksim: (\S+) exited \(([^)]*)\).*see (\S+)$/gm)) {
    let tail: string[] = [];
    try {
      tail = readFileSync(m[3], 'utf8')
        .split('\n')
        .filter((l) => /"level":(40|50|60)/.test(l))
        .slice(-6);
    } catch {
      // The log is gone: the line above is all there is.
    }
    process.stderr.write(
      `ksim test: ${m[1]} exited (${m[2]}) during the run${tail.length ? `; its last warnings:\n  ${tail.join('\n  ')}` : ''}\n`,
    );
  }
}
