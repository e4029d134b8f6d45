// `ksim controller-manager`: runs the controllers against the apiserver,
// through watches only. With leader election (the default) several copies
// can run and one works; losing the lease stops the controllers at once and
// the process campaigns again.
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import { KubeClient } from '../shared/client/kube-client.ts';
import { realClock } from '../shared/clock/clock.ts';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import { handleShutdown } from '../shared/cli/shutdown.ts';
import { runController, type RunningController } from '../shared/controller/run-controller.ts';
import { EventRecorder } from '../shared/events/event-recorder.ts';
import { InformerFactory } from '../shared/informer/factory.ts';
import { LeaderElector } from '../shared/leader/leader-election.ts';
import { createLogger } from '../shared/log/logger.ts';
import { startHealthServer } from '../shared/metrics/health-server.ts';
import { createMetricsRegistry } from '../shared/metrics/registry.ts';
import { CONTROLLERS, eventSource } from './controllers/index.ts';

const FLAGS = {
  kubeconfig: { type: 'string', default: '', help: 'kubeconfig of the controller-manager identity (required)' },
  'leader-elect': { type: 'boolean', default: true, help: 'run leader election on the kube-system/kube-controller-manager Lease' },
  port: { type: 'number', default: 10257, help: 'health and metrics port (0 picks a free one)' },
  controllers: { type: 'string', default: '*', help: 'comma-separated controllers to run, * for all' },
  workers: { type: 'number', default: 5, help: 'workers per controller (kube: --concurrent-*-syncs=5)' },
  speed: { type: 'number', default: 1, help: 'divide every control-plane duration by this' },
  qps: { type: 'number', default: 0, help: 'client-side request rate limit (0 = none; kube defaults to 20)' },
  burst: { type: 'number', default: 0, help: 'client-side burst (with --qps)' },
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
  const log = createLogger('controller-manager');
  const client = KubeClient.fromKubeconfig(flags.kubeconfig, { userAgent: 'ksim-controller-manager', qps: flags.qps, burst: flags.burst });
  const registry = createMetricsRegistry('controller-manager');
  const identity = `${os.hostname()}_${randomUUID()}`;
  const enabled = flags.controllers === '*' ? Object.keys(CONTROLLERS) : flags.controllers.split(',').map((s) => s.trim());
  for (const name of enabled) {
    if (!CONTROLLERS[name]) {
      process.stderr.write(`ksim controller-manager: unknown controller "${name}" (known: ${Object.keys(CONTROLLERS).join(', ')})\n`);
      process.exit(2);
    }
  }

  let running: { factory: InformerFactory; controllers: RunningController[] } | undefined;
  const startWork = async () => {
    const factory = new InformerFactory(client, { log, clock: realClock });
    // Each controller records Events under its own source name, as in kube (`From: replicaset-controller`).
    const ctx = { client, informers: factory, clock: realClock, log, registry, speed: flags.speed };
    const parts = enabled.map((name) =>
      CONTROLLERS[name]({ ...ctx, events: new EventRecorder(client, { component: eventSource(name), log }) }),
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

  const health = await startHealthServer({ port: flags.port, registry, ready: () => running !== undefined });
  log.info({ port: health.port, identity }, 'serving health and metrics');

  let elector: LeaderElector | undefined;
  if (flags['leader-elect']) {
    elector = new LeaderElector(client, {
      namespace: 'kube-system',
      name: 'kube-controller-manager',
      identity,
      log,
      onStartedLeading: () => void startWork(),
      onStoppedLeading: () => void stopWork(),
    });
    elector.start();
  } else {
    await startWork();
  }

  handleShutdown(log, async () => {
    await elector?.stop();
    await stopWork();
    await health.close();
    client.close();
  });
}
