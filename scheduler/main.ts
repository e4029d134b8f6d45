// `ksim scheduler`: the scheduler as its own process. Reads a kubeconfig
// (and optionally a KubeSchedulerConfiguration), serves /healthz, /readyz
// and /metrics, takes part in leader election on the kube-system/
// kube-scheduler Lease (unless --leader-elect=false), schedules while it
// leads (each attempt passes the step-through gate served on the same
// port), and exits 0 after a clean shutdown on SIGTERM or SIGINT.
import os from 'node:os';
import { parseCommandFlags, type FlagSpec } from '../shared/cli/flags.ts';
import { handleShutdown } from '../shared/cli/shutdown.ts';
import { KubeClient } from '../shared/client/kube-client.ts';
import { LeaderElector } from '../shared/leader/leader-election.ts';
import { registerInfo, serveControl } from '../shared/chaos/component-control.ts';
import { stepper } from '../shared/controller/stepper.ts';
import { stepperRoutes } from '../shared/controller/stepper-routes.ts';
import { createLogger } from '../shared/log/logger.ts';
import { startHealthServer } from '../shared/metrics/health-server.ts';
import { createMetricsRegistry } from '../shared/metrics/registry.ts';
import { ConfigError, loadConfig, resolveConfig } from './config.ts';
import { Scheduler } from './scheduler.ts';

const FLAGS = {
  kubeconfig: { type: 'string', default: '', help: 'kubeconfig of the scheduler identity' },
  config: { type: 'string', default: '', help: 'KubeSchedulerConfiguration file (profiles, plugins, weights)' },
  'leader-elect': { type: 'boolean', default: true, help: 'take part in leader election (kube-system/kube-scheduler Lease)' },
  'leader-elect-lease-duration': {
    type: 'number',
    default: 15,
    help: 'lease duration in seconds (the renew deadline and retry period scale with it; --speed does not shorten them)',
  },
  port: { type: 'number', default: 10259, help: 'port for /healthz, /readyz and /metrics (0 picks a free one)' },
  'bind-address': { type: 'string', default: '127.0.0.1', help: 'address for the health server' },
  speed: { type: 'number', default: 1, help: 'divide backoff durations by this (leader election keeps kube timings)' },
  'kube-api-qps': { type: 'number', default: 0, help: 'client rate limit (0: none)' },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

/** Runs the scheduler command with `argv` (flags only). */
export async function schedulerMain(argv: string[]): Promise<void> {
  const flags = parseCommandFlags('scheduler', argv, FLAGS);
  if (!flags) return;
  const log = createLogger('scheduler');
  // The supervisor's private channel (`ksim chaos skew`, `ksim status`), when `ksim up` started this process.
  serveControl(log);
  if (!flags.kubeconfig) {
    process.stderr.write('ksim scheduler: --kubeconfig is required\n');
    process.exit(2);
  }
  let config;
  try {
    config = flags.config ? loadConfig(flags.config) : resolveConfig(undefined);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`ksim scheduler: ${err.message}\n`);
    process.exit(2);
  }
  const speed = flags.speed > 0 ? flags.speed : 1;
  const identity = `${os.hostname()}_${process.pid}`;
  const client = KubeClient.fromKubeconfig(flags.kubeconfig, { userAgent: 'kube-scheduler', qps: flags['kube-api-qps'] || undefined });
  const registry = createMetricsRegistry('scheduler');
  const scheduler = new Scheduler({ client, config, log, registry, speed, identity });
  let stopping = false;
  const leaseMs = flags['leader-elect-lease-duration'] * 1000;
  const elector = flags['leader-elect']
    ? new LeaderElector(client, {
        namespace: 'kube-system',
        name: 'kube-scheduler',
        identity,
        leaseDurationMs: leaseMs,
        renewDeadlineMs: Math.round((leaseMs * 2) / 3),
        retryPeriodMs: Math.round(leaseMs / 7.5),
        speed,
        registry,
        log,
        onStartedLeading: () => void scheduler.run(),
        // kube-scheduler exits when it loses the lease; a supervisor may start it again.
        onStoppedLeading: () => {
          if (!stopping) stop('lost leadership', 1);
        },
      })
    : undefined;
  const health = await startHealthServer({
    host: flags['bind-address'],
    port: flags.port,
    registry,
    ready: () => scheduler.hasSynced(),
    // Step-through of the scheduling attempts (`ksim step pause scheduler`).
    routes: stepperRoutes(stepper),
  });
  log.info({ port: health.port, profiles: config.profiles.map((p) => p.schedulerName) }, 'scheduler serving health and metrics');

  const stop = handleShutdown(log, async () => {
    stopping = true;
    await elector?.stop();
    await scheduler.stop();
    await health.close();
    client.close();
  });

  scheduler.startInformers();
  if (!elector) {
    await scheduler.run();
    return;
  }
  registerInfo(() => ({ leader: { lease: elector.lease, identity, leading: elector.isLeader } }));
  elector.start();
}
