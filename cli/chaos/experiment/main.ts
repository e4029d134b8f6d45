// `ksim chaos run FILE.yaml --data-dir DIR [--report-json F] [--report-html F]
// [--seed N] [--speed N]`: reads and checks the experiment (exit 2 when it is
// invalid or the cluster lacks what it needs), runs it against the `ksim up`
// in DIR (its admin kubeconfig, its supervisor's control endpoint), prints
// the table and writes the reports. Exit 0 only when every check and
// invariant held. Ctrl-C stops the steps, undoes every fault and still
// writes the reports; a second Ctrl-C exits at once.
import fs from 'node:fs';
import path from 'node:path';
import { KubeClient } from '../../../shared/client/kube-client.ts';
import { FlagError, flagHelp, parseFlags, type FlagSpec } from '../../../shared/cli/flags.ts';
import { controlDriver, type ChaosDriver } from './driver.ts';
import { renderHtmlReport } from './html.ts';
import { exitCodeOf, formatTable, type ExperimentReport } from './report.ts';
import { RequirementError, runExperiment } from './runner.ts';
import { ExperimentError, loadExperiment } from './validate.ts';

const FLAGS = {
  'data-dir': { type: 'string', default: '.ksim', help: 'the cluster data directory' },
  'report-json': { type: 'string', help: 'write the JSON report here' },
  'report-html': { type: 'string', help: 'write the HTML report (one self-contained file) here' },
  seed: { type: 'number', help: "the seed of every random choice (default: the file's spec.seed)" },
  speed: { type: 'number', default: 1, help: 'the --speed the cluster runs at: fault durations and waits in the file are divided by it' },
  help: { type: 'boolean', help: 'print this help' },
} satisfies FlagSpec;

const USAGE = `Usage: ksim chaos run FILE.yaml --data-dir DIR [--report-json F] [--report-html F] [--seed N] [--speed N]\n`;

/** What main needs from outside; tests replace the driver. */
export interface MainDeps {
  driver?: ChaosDriver;
  out?: NodeJS.WritableStream;
  err?: NodeJS.WritableStream;
  signal?: AbortSignal;
}

export async function runExperimentMain(argv: string[], deps: MainDeps = {}): Promise<number> {
  const out = deps.out ?? process.stdout;
  const err = deps.err ?? process.stderr;
  const positional = argv.filter((a, i) => !a.startsWith('--') && (i === 0 || !flagTakesValue(argv[i - 1])));
  const flagArgs = argv.filter((a) => !positional.includes(a));
  let flags: ReturnType<typeof parseFlags<typeof FLAGS>>;
  try {
    flags = parseFlags(flagArgs, FLAGS);
  } catch (e) {
    if (!(e instanceof FlagError)) throw e;
    err.write(`ksim chaos run: ${e.message}\n${USAGE}${flagHelp(FLAGS)}\n`);
    return 2;
  }
  if (flags.help) {
    out.write(`${USAGE}${flagHelp(FLAGS)}\n`);
    return 0;
  }
  if (positional.length !== 1) {
    err.write(`ksim chaos run: name one experiment file\n${USAGE}`);
    return 2;
  }
  const file = positional[0];
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    err.write(`ksim chaos run: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    return 2;
  }
  let exp;
  try {
    exp = loadExperiment(text, { speed: flags.speed });
  } catch (e) {
    if (!(e instanceof ExperimentError)) throw e;
    err.write(`ksim chaos run: ${file} is not a valid experiment:\n${e.errors.map((x) => `  ${x}`).join('\n')}\n`);
    return 2;
  }
  const dataDir = flags['data-dir'];
  const kubeconfig = path.join(dataDir, 'kubeconfig');
  if (!fs.existsSync(kubeconfig)) {
    err.write(`ksim chaos run: no cluster in ${path.resolve(dataDir)} (no kubeconfig); start one with ksim up --data-dir ${dataDir}\n`);
    return 2;
  }
  const makeClient = (timeoutMs: number) => KubeClient.fromKubeconfig(kubeconfig, { userAgent: 'ksim-experiment', timeoutMs });
  const client = makeClient(10_000);

  // Ctrl-C: the first stops the run (faults are still undone, reports still written); the second exits.
  const abort = new AbortController();
  deps.signal?.addEventListener('abort', () => abort.abort(), { once: true });
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) process.exit(130);
    err.write('ksim chaos run: interrupted; undoing the faults (Ctrl-C again to quit at once)\n');
    abort.abort();
  };
  process.on('SIGINT', onSigint);
  let report: ExperimentReport;
  try {
    report = await runExperiment(exp, {
      client,
      makeClient,
      driver: deps.driver ?? controlDriver(dataDir),
      signal: abort.signal,
      file,
      seed: flags.seed === undefined || Number.isNaN(flags.seed) || !argv.some((a) => a.startsWith('--seed')) ? undefined : flags.seed,
    });
  } catch (e) {
    if (e instanceof RequirementError) {
      err.write(`ksim chaos run: ${e.message}\n`);
      return 2;
    }
    err.write(`ksim chaos run: ${(e as Error).message}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSigint);
    client.close();
  }
  out.write(formatTable(report));
  if (flags['report-json']) fs.writeFileSync(flags['report-json'], JSON.stringify(report, null, 2) + '\n');
  if (flags['report-html']) fs.writeFileSync(flags['report-html'], renderHtmlReport(report));
  return exitCodeOf(report);
}

function flagTakesValue(arg: string | undefined): boolean {
  if (!arg?.startsWith('--') || arg.includes('=')) return false;
  const spec = (FLAGS as FlagSpec)[arg.slice(2)];
  return spec !== undefined && spec.type !== 'boolean';
}
