// `ksim up`: the supervisor. Starts the apiserver, waits until that process
// itself reports serving (over its IPC channel), then the other components
// (controller-manager and scheduler replicas, kubelet-sim), each with its
// own kubeconfig, and stays in the foreground until SIGINT/SIGTERM, when it
// stops every child in reverse order and exits 0. The apiserver makes
// DIR/pki and the kubeconfigs (it holds the data dir). Each child's IPC
// channel stays open: it is the supervisor's control channel to it.
// A death is reported; with --restart=on-failure the component is started
// again (cli/supervisor/restart-policy.ts). `ksim chaos` and `ksim status`
// reach the supervisor through its control endpoint (DIR/control.json).
// When its apiserver cannot start (data dir held by another ksim, port
// taken, disk read-only or full) it says why in one line and exits 1,
// leaving the data dir's cluster.json, control.json and kubeconfig alone.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { kubeconfigPaths, pkiPaths } from '../shared/pki/paths.ts';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import { mkdirFailureCause, openFailureReason } from '../apiserver/storage/open-failure.ts';
import { writeClusterState } from './cluster-state.ts';
import { SupervisedChild } from './supervisor/child.ts';
import { COMPONENT_ARGS, componentNames, kindOf, STATIC_POD_OF, type ClusterSettings } from './supervisor/components.ts';
import { Progress } from './supervisor/progress.ts';
import { RESTART_POLICIES, type RestartPolicy } from './supervisor/restart-policy.ts';
import { Supervisor } from './supervisor/supervisor.ts';
import { supervisorLogger } from './supervisor/log.ts';
import type { ChaosControl } from './supervisor/wiring.ts';
import type { ControlServer } from './supervisor/control-server.ts';
import { parseHistoryFlag } from '../apiserver/history-api/retention-flag.ts';

export { componentNodeFlags } from './supervisor/components.ts';

const FLAGS = {
  'data-dir': { type: 'string', default: '.ksim', help: 'directory for the database, kubeconfig and logs' },
  port: { type: 'number', default: 6443, help: 'apiserver port' },
  nodes: { type: 'number', default: 3, help: 'number of simulated worker nodes (the control-plane node comes besides them)' },
  'control-plane-node': {
    type: 'string',
    default: 'control-plane',
    help: "name of the control-plane node, which runs the control plane's mirror Pods ('' for none)",
  },
  speed: { type: 'number', default: 1, help: 'divide every control-plane duration but leader election by this' },
  'bind-address': { type: 'string', default: '127.0.0.1', help: 'apiserver listen address' },
  'advertise-address': {
    type: 'string',
    default: '',
    help: 'addresses or names the apiserver is reached at, comma-separated, added to its serving certificate',
  },
  ui: { type: 'boolean', default: true, help: 'serve the web UI (--ui=false: do not)' },
  'ui-port': { type: 'number', default: 0, help: 'port of the web UI (0 picks a free one)' },
  history: {
    type: 'string',
    default: 'all',
    help: 'how long the apiserver keeps every revision: all, off, or revisions=N,age=DURATION,size=BYTES',
  },
  'insecure-http': { type: 'boolean', help: 'serve plain HTTP with no authentication or authorization (teaching only)' },
  'image-catalog': { type: 'string', default: '', help: 'YAML file of more images the simulated registries hold (passed to kubelet-sim)' },
  restart: { type: 'string', default: 'never', help: 'never: report a component that dies; on-failure: start it again (with backoff)' },
  'controller-managers': { type: 'number', default: 1, help: 'controller-manager replicas (leader-elected)' },
  schedulers: { type: 'number', default: 1, help: 'scheduler replicas (leader-elected)' },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

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

function usage(message: string): never {
  process.stderr.write(`ksim up: ${message}\n`);
  process.exit(2);
}

/** Runs `ksim up`. */
export async function upMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('up', argv, FLAGS);
  if (!flags) return;
  if (!RESTART_POLICIES.includes(flags.restart as RestartPolicy))
    usage(`flag --restart: "${flags.restart}" is not one of ${RESTART_POLICIES.join(', ')}`);
  for (const f of ['controller-managers', 'schedulers'] as const)
    if (!Number.isInteger(flags[f]) || flags[f] < 0) usage(`flag --${f}: "${flags[f]}" is not a whole number of replicas`);
  try {
    parseHistoryFlag(flags.history);
  } catch (err) {
    usage(`flag --history: ${(err as Error).message}`);
  }
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
  const log = supervisorLogger(dataDir);
  const progress = new Progress(process.stdout);
  // cluster.json is written only once this supervisor's apiserver serves: before that the data dir may be another ksim's.
  let owner = false;
  let saveFailing = false;
  // Set once the apiserver serves; the hooks above read it whenever they run.
  let chaos: ChaosControl | undefined = undefined;
  const save = () => {
    if (!owner) return;
    const err = writeClusterState(dataDir, {
      supervisorPid: process.pid,
      server,
      ...(server.startsWith('http:') ? { insecure: true } : {}),
      components: supervisor.children.map((c) => c.state),
    });
    // Said once per failing stretch: a full disk must not end the supervisor, nor flood its output.
    if (err && !saveFailing)
      process.stderr.write(
        `ksim: could not update ${path.join(dataDir, 'cluster.json')} (${(err as NodeJS.ErrnoException).code ?? err.message}); \`ksim status\` may show an older state\n`,
      );
    saveFailing = err !== undefined;
  };
  const supervisor = new Supervisor(flags.restart as RestartPolicy, log, {
    changed: save,
    died: (child, exit, restarting) => {
      const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      log.warn({ component: child.name, code: exit.code, signal: exit.signal, restarting }, `${child.name} exited (${how})`);
      // An apiserver that never served: the one line saying why it could not start is enough.
      if (!owner) return;
      progress.clear();
      process.stderr.write(`ksim: ${child.name} exited (${how})${restarting ? ', restarting it' : ''}; see ${child.state.log}\n`);
    },
    started: (child, why) => chaos?.started(child, why),
  });

  let control: ControlServer | undefined;
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log.info({ code }, 'stopping every component');
    chaos?.close();
    await control?.close().catch(() => undefined);
    await supervisor.stopAll();
    save();
    log.flush();
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  const apiserverArgs = ['--data-dir', dataDir, '--port', String(flags.port), '--bind-address', flags['bind-address']];
  if (flags['advertise-address']) apiserverArgs.push('--advertise-address', flags['advertise-address']);
  if (insecure) apiserverArgs.push('--insecure-http');
  if (flags.history !== 'all') apiserverArgs.push('--history', flags.history);
  const apiserver = supervisor.add(new SupervisedChild('apiserver', 'apiserver', apiserverArgs, dataDir, server));
  const serving = supervisor.startApiserver();
  // Loaded while the apiserver starts.
  const wiring = import('./supervisor/wiring.ts');
  const settings: ClusterSettings = {
    dataDir,
    tls: !insecure,
    speed: flags.speed,
    nodes: flags.nodes,
    imageCatalog: flags['image-catalog'] ? path.resolve(flags['image-catalog']) : '',
    controlPlaneNode: flags['control-plane-node'],
    // The apiserver's own health port is its serving port (unknown before it serves when --port is 0).
    healthEndpoints: flags.port ? { apiserver: `${insecure ? 'http' : 'https'}://${host}:${flags.port}` } : {},
  };
  // The components start now and load their code while the apiserver starts; they begin once it serves.
  const components: SupervisedChild[] = [];
  const names = componentNames({
    controllerManagers: flags['controller-managers'],
    schedulers: flags.schedulers,
    nodes: flags.nodes,
    ui: flags.ui,
  });
  for (const name of names) {
    const port = name === 'ui' && flags['ui-port'] ? flags['ui-port'] : await freePort();
    // The control-plane node's static Pods probe the first replica of each.
    if (STATIC_POD_OF[name]) settings.healthEndpoints[name] = `http://127.0.0.1:${port}`;
    const args = [...COMPONENT_ARGS[kindOf(name)](settings), '--port', String(port)];
    const child = supervisor.add(new SupervisedChild(name, kindOf(name), args, dataDir, `http://127.0.0.1:${port}`));
    child.start({ waitForStart: true });
    components.push(child);
  }
  try {
    server = (await serving).url;
    owner = true;
  } catch (err) {
    process.stderr.write(`ksim up: ${(err as Error).message}\n`);
    await stopAll(1);
    return;
  }
  save();
  progress.done(`apiserver serving at ${server} (pid ${apiserver.state.pid}, ${progress.elapsed()})`);
  const tls = server.startsWith('https:');
  const kubeconfig = kubeconfigPaths(dataDir).admin;
  const missing = (tls ? Object.values(kubeconfigPaths(dataDir)) : [kubeconfig]).filter((f) => !fs.existsSync(f));
  if (missing.length > 0) {
    process.stderr.write(`ksim up: the apiserver serves ${server} but did not write ${missing.join(', ')}; see ${apiserver.state.log}\n`);
    await stopAll(1);
    return;
  }
  for (const child of components) child.begin();
  save();
  if (components.length) progress.done(`started ${components.map((c) => `${c.name} (pid ${c.state.pid})`).join(', ')}`);
  const { chaosControl } = await wiring;
  chaos = chaosControl({ supervisor, dataDir, kubeconfig, tls, controlPlaneNode: settings.controlPlaneNode, log });
  try {
    control = await chaos.serve(() => server);
  } catch (err) {
    process.stderr.write(
      `ksim up: could not start the control endpoint (${(err as Error).message}); \`ksim chaos\` cannot reach this cluster\n`,
    );
  }
  // kubeadm's mark-control-plane phase, with the admin's kubeconfig, once the node's kubelet has registered it.
  if (settings.controlPlaneNode && components.some((c) => c.name === 'kubelet-sim')) {
    const name = settings.controlPlaneNode;
    void import('../kubelet-sim/static-pods/mark-control-plane.ts')
      .then(({ markControlPlane }) => markControlPlane(kubeconfig, name))
      .then((err) => err && !stopping && process.stderr.write(`ksim up: could not mark node ${name} as the control plane: ${err}\n`));
  }
  const ui = components.find((c) => c.name === 'ui');
  process.stdout.write(
    `ksim is up: apiserver at ${server} (pid ${apiserver.state.pid}), data in ${dataDir}\n` +
      `Components: ${supervisor.children.map((c) => c.name).join(', ')}; \`ksim status --data-dir ${dataDir}\` shows them\n` +
      (tls ? `Cluster CA: ${pkiPaths(dataDir, 'ca').certPath}\n` : `INSECURE: plain HTTP, no authentication\n`) +
      `To use it:\n  export KUBECONFIG=${kubeconfig}\n  kubectl get namespaces\n` +
      (ui ? `Web UI: ${ui.state.endpoint}/ (timeline, ownership graph, object history)\n` : '') +
      `Chaos: \`ksim chaos --help\`; restart policy: ${flags.restart}. Logs: ${path.join(dataDir, 'logs')}. Stop with Ctrl-C.\n`,
  );
  const want = flags.nodes + (settings.controlPlaneNode && flags.nodes > 0 ? 1 : 0);
  if (want > 0) {
    const client = chaos.ctx.client();
    if (client) {
      const { showNodesReady } = await import('./supervisor/nodes-ready.ts');
      void showNodesReady(progress, client, want, () => stopping);
    }
  }
}
