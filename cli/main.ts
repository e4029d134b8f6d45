// Dispatches `ksim <command>` to the command's module.
import { exitQuietlyWhenStdoutCloses } from '../shared/cli/closed-pipe.ts';
import { awaitStartSignal } from '../shared/cli/start-signal.ts';

const USAGE = `Usage: ksim <command> [flags]

Commands:
  up          start a whole cluster (apiserver and components) in the foreground
  status      show the components of a running cluster
  chaos       inject a fault into a running cluster, list or recover faults, run an experiment
  kubectl     run kubectl v1.35 against a running cluster (ksim kubectl [--data-dir DIR] ARGS...)
  history     every revision of an object, with who wrote it and what changed (ksim history KIND/NAME)
  diff        what changed in an object between two revisions (ksim diff KIND/NAME R1 R2)
  blame       which revision and writer last set each field of an object (ksim blame KIND/NAME)
  trace       the writes one change caused across the control plane, as a tree (ksim trace KIND/NAME)
  step        pause a controller and step its reconciliation one work item at a time (ksim step --help)
  apiserver   run the API server alone
  controller-manager
              run the controllers (Deployments, ReplicaSets, ...) against an apiserver
  scheduler   run the scheduler against an apiserver
  kubelet-sim run simulated nodes (kubelets) against an apiserver
  ui          serve the web UI against an apiserver (ksim up starts one)

Run "ksim <command> --help" for a command's flags.
`;

/** Runs the ksim command line. */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // The commands whose output a user pipes into head or grep.
  if (['status', 'chaos', 'history', 'diff', 'blame', 'trace', 'step'].includes(command)) exitQuietlyWhenStdoutCloses();
  switch (command) {
    case 'apiserver': {
      const { apiserverMain } = await import('../apiserver/main.ts');
      return apiserverMain(rest);
    }
    case 'controller-manager': {
      const { controllerManagerMain } = await import('../controller-manager/main.ts');
      await awaitStartSignal();
      return controllerManagerMain(rest);
    }
    case 'scheduler': {
      const { schedulerMain } = await import('../scheduler/main.ts');
      await awaitStartSignal();
      return schedulerMain(rest);
    }
    case 'kubelet-sim': {
      const { kubeletSimMain } = await import('../kubelet-sim/main.ts');
      await awaitStartSignal();
      return kubeletSimMain(rest);
    }
    case 'ui': {
      const { uiMain } = await import('../ui/server/main.ts');
      await awaitStartSignal();
      return uiMain(rest);
    }
    case '__create-worker': {
      // Not a command: how the apiserver starts its create worker threads (apiserver/create-workers/pool.ts).
      const { runCreateWorker } = await import('../apiserver/create-workers/worker.ts');
      return runCreateWorker();
    }
    case 'up': {
      const { upMain } = await import('./up.ts');
      return upMain(rest);
    }
    case 'status': {
      const { statusMain } = await import('./status.ts');
      return statusMain(rest);
    }
    case 'chaos': {
      const { chaosMain } = await import('./chaos/main.ts');
      return chaosMain(rest);
    }
    case 'history':
    case 'diff':
    case 'blame':
    case 'trace': {
      const { historyMain } = await import('./history/main.ts');
      return historyMain(command, rest);
    }
    case 'step': {
      const { stepMain } = await import('./step.ts');
      return stepMain(rest);
    }
    case 'kubectl': {
      const { kubectlMain } = await import('./kubectl.ts');
      return kubectlMain(rest);
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      process.stderr.write(`ksim: unknown command "${command}"\n\n${USAGE}`);
      process.exit(2);
  }
}
