// Dispatches `ksim <command>` to the command's module.
const USAGE = `Usage: ksim <command> [flags]

Commands:
  up          start a whole cluster (apiserver and components) in the foreground
  status      show the components of a running cluster
  apiserver   run the API server alone
  controller-manager
              run the controllers (Deployments, ReplicaSets, ...) against an apiserver
  scheduler   run the scheduler against an apiserver
  kubelet-sim run simulated nodes (kubelets) against an apiserver

Run "ksim <command> --help" for a command's flags.
`;

/** Runs the ksim command line. */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'apiserver': {
      const { apiserverMain } = await import('../apiserver/main.ts');
      return apiserverMain(rest);
    }
    case 'controller-manager': {
      const { controllerManagerMain } = await import('../controller-manager/main.ts');
      return controllerManagerMain(rest);
    }
    case 'scheduler': {
      const { schedulerMain } = await import('../scheduler/main.ts');
      return schedulerMain(rest);
    }
    case 'kubelet-sim': {
      const { kubeletSimMain } = await import('../kubelet-sim/main.ts');
      return kubeletSimMain(rest);
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
