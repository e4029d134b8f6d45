// `ksim chaos ...`: parses the command line (parse.ts), sends the fault to
// the supervisor of the cluster in --data-dir (cli/control/client.ts) and
// prints its one-line answer and the fault's id; `list` prints the faults in
// effect; `run FILE` hands over to the experiment runner. Exit status: 0
// done, 1 refused or no cluster (one line on stderr), 2 a bad command line.
import path from 'node:path';
import type { ActiveFault, ChaosResult } from '../../shared/chaos/protocol.ts';
import { controlRequest } from '../control/client.ts';
import { faultTable } from './list.ts';
import { ChaosUsageError, parseChaosArgs, type ParsedChaosArgs } from './parse.ts';
import { CHAOS_USAGE } from './usage.ts';

/** The --data-dir to repeat in a hint, when it is not the default. */
function dataDirHint(dataDir: string): string {
  return dataDir === path.resolve(process.env.KSIM_DATA_DIR || '.ksim') ? '' : ` --data-dir ${dataDir}`;
}

/**
 * `run`: the experiment runner (cli/chaos/experiment/main.ts, loaded only
 * now) gets every argument after `run`, plus --data-dir when only `ksim
 * chaos` was given it (before `run`, or as $KSIM_DATA_DIR).
 */
async function runExperiment(run: NonNullable<ParsedChaosArgs['run']>, dataDir: string): Promise<number> {
  const { runExperimentMain } = await import('./experiment/main.ts');
  const hasDir = run.argv.some((a) => a === '--data-dir' || a.startsWith('--data-dir='));
  return runExperimentMain(hasDir ? run.argv : [...run.argv, '--data-dir', dataDir]);
}

/** Runs `ksim chaos` and returns its exit status. */
export async function chaos(argv: string[]): Promise<number> {
  let parsed: ParsedChaosArgs;
  try {
    parsed = parseChaosArgs(argv);
  } catch (err) {
    if (!(err instanceof ChaosUsageError)) throw err;
    process.stderr.write(`ksim chaos: ${err.message}\nRun "ksim chaos --help" for usage.\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(CHAOS_USAGE);
    return 0;
  }
  if (parsed.run) return runExperiment(parsed.run, parsed.dataDir);
  try {
    if (parsed.list) {
      const faults = await controlRequest<ActiveFault[]>(parsed.dataDir, 'GET', '/faults');
      process.stdout.write(faultTable(faults, Date.now()));
      return 0;
    }
    const result = await controlRequest<ChaosResult>(parsed.dataDir, 'POST', '/chaos', parsed.request);
    process.stdout.write(`${result.message}\n`);
    // A lasting fault: how to undo it (a recover's answer names the fault it undid).
    if (result.faultId && parsed.request?.action !== 'recover')
      process.stdout.write(`fault ${result.faultId}; recover with: ksim chaos recover ${result.faultId}${dataDirHint(parsed.dataDir)}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`ksim chaos: ${(err as Error).message}\n`);
    return 1;
  }
}

/** `ksim chaos` as a command: exits with its status. */
export async function chaosMain(argv: string[]): Promise<void> {
  const code = await chaos(argv);
  process.exitCode = code;
  if (code !== 0) process.exit(code);
}
