// `ksim controller-manager`: runs the controllers against the apiserver,
// through watches only. With leader election (the default) several copies
// can run and one works; losing the lease stops the controllers at once and
// the process campaigns again.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { parseDuration } from '../shared/api/protobuf/special.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { realClock } from '../shared/clock/clock.ts';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import { handleShutdown } from '../shared/cli/shutdown.ts';
import { runController, type RunningController } from '../shared/controller/run-controller.ts';
import { EventRecorder } from '../shared/events/event-recorder.ts';
import { InformerFactory } from '../shared/informer/factory.ts';
import { LeaderElector } from '../shared/leader/leader-election.ts';
import { registerInfo, serveControl } from '../shared/chaos/component-control.ts';
import { createLogger } from '../shared/log/logger.ts';
import { startHealthServer } from '../shared/metrics/health-server.ts';
import { stepper } from '../shared/controller/stepper.ts';
import { stepperRoutes } from '../shared/controller/stepper-routes.ts';
import { createMetricsRegistry } from '../shared/metrics/registry.ts';
import { CONTROLLERS, eventSource } from './controllers/index.ts';
import { ControllerCredentials } from './controller-credentials.ts';

const FLAGS = {
  kubeconfig: { type: 'string', default: '', help: 'kubeconfig of the controller-manager identity (required)' },
  'leader-elect': { type: 'boolean', default: true, help: 'run leader election on the kube-system/kube-controller-manager Lease' },
  port: { type: 'number', default: 10257, help: 'health and metrics port (0 picks a free one)' },
  controllers: { type: 'string', default: '*', help: 'comma-separated controllers to run, * for all' },
  workers: { type: 'number', default: 5, help: 'workers per controller (kube: --concurrent-*-syncs=5)' },
  speed: { type: 'number', default: 1, help: 'divide every control-plane duration but leader election by this' },
  qps: { type: 'number', default: 0, help: 'client-side request rate limit (0 = none; kube defaults to 20)' },
  burst: { type: 'number', default: 0, help: 'client-side burst (with --qps)' },
  'cluster-signing-cert-file': { type: 'string', default: '', help: 'PEM CA certificate the csrsigning controller issues from' },
  'cluster-signing-key-file': { type: 'string', default: '', help: 'PEM private key of --cluster-signing-cert-file' },
  'cluster-signing-duration': { type: 'string', default: '8760h0m0s', help: 'the longest certificate the csrsigning controller issues' },
  'service-account-private-key-file': {
    type: 'string',
    default: '',
    help: 'PEM private key the serviceaccount-token controller signs legacy token Secrets with (the apiserver verifies with its public half)',
  },
  'root-ca-file': { type: 'string', default: '', help: "PEM CA bundle written into token Secrets' ca.crt" },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

/** Runs the controller-manager command. */
export async function controllerManagerMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('controller-manager', argv, FLAGS);
  if (!flags) return;
  if (!flags.kubeconfig) {
    process.stderr.write('ksim controller-manager: --kubeconfig is required\n');
    process.exit(2);
  }
  const signingDuration = parseDuration(flags['cluster-signing-duration']);
  if (signingDuration === undefined || signingDuration <= 0n) {
    process.stderr.write(`ksim controller-manager: invalid --cluster-signing-duration "${flags['cluster-signing-duration']}"\n`);
    process.exit(2);
  }
  const csrSigning = {
    certFile: flags['cluster-signing-cert-file'],
    keyFile: flags['cluster-signing-key-file'],
    durationMs: Number(signingDuration / 1_000_000n),
  };
  const log = createLogger('controller-manager');
  // The supervisor's private channel (`ksim chaos skew`, `ksim status`), when `ksim up` started this process.
  serveControl(log);
  const client = KubeClient.fromKubeconfig(flags.kubeconfig, { userAgent: 'kube-controller-manager', qps: flags.qps, burst: flags.burst });
  const registry = createMetricsRegistry('controller-manager');
  const credentials = new ControllerCredentials(client, { userAgent: 'kube-controller-manager', qps: flags.qps, burst: flags.burst }, log);
  const identity = `${os.hostname()}_${randomUUID()}`;
  const enabled = flags.controllers === '*' ? Object.keys(CONTROLLERS) : flags.controllers.split(',').map((s) => s.trim());
  for (const name of enabled) {
    if (!CONTROLLERS[name]) {
      process.stderr.write(`ksim controller-manager: unknown controller "${name}" (known: ${Object.keys(CONTROLLERS).join(', ')})\n`);
      process.exit(2);
    }
  }

  let running: { factory: InformerFactory; controllers: RunningController[] } | undefined;
  // The controllers' ServiceAccounts and tokens come from the apiserver: until it answers, try again.
  const clientWithRetry = async (name: string): Promise<KubeClient> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await credentials.clientFor(name);
      } catch (err) {
        if (attempt % 10 === 0) log.warn({ err, controller: name }, 'cannot get the controller its credentials yet; retrying');
        await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5000)));
      }
    }
  };
  const startWork = async () => {
    const factory = new InformerFactory(client, { log, clock: realClock });
    // Each controller records Events under its own source name, as in kube (`From: replicaset-controller`).
    const tokenSigning = { privateKeyFile: flags['service-account-private-key-file'], rootCaFile: flags['root-ca-file'] || undefined };
    const ctx = { informers: factory, clock: realClock, log, registry, speed: flags.speed, csrSigning, tokenSigning };
    // Each controller writes as its own ServiceAccount (kube's --use-service-account-credentials);
    // the shared informers read with the controller-manager's own identity.
    const parts = await Promise.all(
      enabled.map(async (name) => {
        const own = await clientWithRetry(name);
        return CONTROLLERS[name]({ ...ctx, client: own, events: new EventRecorder(own, { component: eventSource(name), log }) });
      }),
    );
    const current = { factory, controllers: [] as RunningController[] };
    running = current;
    factory.start();
    for (const p of parts) {
      current.controllers.push(await runController({ ...p, workers: flags.workers, log, registry }));
    }
    log.info({ controllers: enabled }, 'controllers started');
  };
  const stopWork = async () => {
    const current = running;
    running = undefined;
    if (!current) return;
    current.factory.stop();
    await Promise.all(current.controllers.map((c) => c.stop()));
  };

  const health = await startHealthServer({
    port: flags.port,
    registry,
    ready: () => running !== undefined,
    routes: stepperRoutes(stepper),
  });
  log.info({ port: health.port, identity }, 'serving health and metrics');

  let elector: LeaderElector | undefined;
  if (flags['leader-elect']) {
    elector = new LeaderElector(client, {
      namespace: 'kube-system',
      name: 'kube-controller-manager',
      identity,
      speed: flags.speed,
      registry,
      log,
      onStartedLeading: () => void startWork(),
      onStoppedLeading: () => void stopWork(),
    });
    const e = elector;
    registerInfo(() => ({ leader: { lease: e.lease, identity, leading: e.isLeader } }));
    elector.start();
  } else {
    await startWork();
  }

  handleShutdown(log, async () => {
    await elector?.stop();
    await stopWork();
    await health.close();
    credentials.close();
    client.close();
  });
}
