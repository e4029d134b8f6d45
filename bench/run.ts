// `npm run bench [-- <name>...] [--quick]`: runs the benchmarks in order,
// prints a table of figures with the machine they ran on, and writes the
// same figures to bench/last-run.json. Targets are printed as met or missed;
// a missed target never fails the run (a benchmark that crashes does).
// BENCH_QUICK=1 is the same as --quick: about 10x shorter, for smoke runs.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { creates } from './creates.ts';
import { rawStore } from './raw-store.ts';
import { scale } from './scale.ts';
import { watchFanout } from './watch-fanout.ts';
import { kubectlBench } from './kubectl.ts';
import { deploymentBench } from './deployment.ts';
import { schedulerThroughput } from './scheduler-throughput.ts';
import { kubeletSim } from './kubelet-sim.ts';
import { machineBusy } from './proc.ts';
import { renderTable, type BenchContext, type Benchmark, type Figure } from './report.ts';
import { jobsBench } from './jobs.ts';
import { daemonSetBench } from './daemonsets.ts';
import { statefulSetBench } from './statefulsets.ts';
import { startup } from './startup.ts';
import { topBench } from './top.ts';
import { chaosRecovery } from './chaos-recovery.ts';

const BENCHMARKS: Benchmark[] = [
  rawStore,
  creates,
  watchFanout,
  scale,
  kubectlBench,
  deploymentBench,
  schedulerThroughput,
  kubeletSim,
  jobsBench,
  daemonSetBench,
  statefulSetBench,
  startup,
  topBench,
  chaosRecovery,
  (await import('./chaos-overhead.ts')).chaosOverhead,
  (await import('./history.ts')).historyBench,
];
const RESULTS_FILE = fileURLToPath(new URL('./last-run.json', import.meta.url));

function usage(): string {
  const names = BENCHMARKS.map((b) => `  ${b.name.padEnd(14)} ${b.description}`).join('\n');
  return `Usage: npm run bench [-- <name>...] [--quick]\n\nBenchmarks (all, in this order, when none is named):\n${names}\n`;
}

/** The commit measured, "+dirty" when the work tree has changes, or why it is unknown. */
function sourceRevision(): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  try {
    const dirty = git('status', '--porcelain').length > 0 ? '+dirty' : '';
    try {
      return git('rev-parse', '--short', 'HEAD') + dirty;
    } catch {
      return `no commit yet${dirty}`;
    }
  } catch {
    return 'unknown (not a git work tree)';
  }
}

function machine() {
  return {
    cores: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage());
    return 0;
  }
  const unknownFlags = argv.filter((a) => a.startsWith('-') && a !== '--quick');
  const names = argv.filter((a) => !a.startsWith('-'));
  const unknown = names.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknownFlags.length > 0 || unknown.length > 0) {
    process.stderr.write(`bench: unknown ${[...unknownFlags, ...unknown].join(', ')}\n\n${usage()}`);
    return 2;
  }
  const quick = argv.includes('--quick') || process.env.BENCH_QUICK === '1';
  const selected = names.length > 0 ? BENCHMARKS.filter((b) => names.includes(b.name)) : BENCHMARKS;
  const host = machine();
  const revision = sourceRevision();
  const started = new Date();
  process.stdout.write(
    `ksim benchmarks${quick ? ' (quick)' : ''} at ${revision}: ${host.cores} cores, ${host.cpu}, ${host.memoryGiB} GiB, Node ${host.node}, ${host.os}\n`,
  );

  const figures: Figure[] = [];
  const failures: { bench: string; error: string }[] = [];
  const shared = new Map<string, number>();
  const t0 = performance.now();
  for (const bench of selected) {
    const benchStart = performance.now();
    const ctx: BenchContext = {
      quick,
      shared,
      size: (full, small) => (quick ? small : full),
      record: (name, value, unit, extra = {}) => {
        figures.push({ bench: bench.name, name, value, unit, ...extra });
      },
      progress: (message) => {
        const at = ((performance.now() - t0) / 1000).toFixed(0).padStart(4);
        process.stderr.write(`[${at} s] ${bench.name}: ${message}\n`);
      },
    };
    // Other work on the machine skews every figure: measure it while nothing of ours runs.
    const busy = await machineBusy(1000);
    ctx.record('machine busy before start', busy, '% of all cores', { note: `load average ${os.loadavg()[0].toFixed(1)}` });
    ctx.progress(
      busy > 10 ? `starting; WARNING: the machine is already ${Math.round(busy)}% busy with other work, figures will be low` : 'starting',
    );
    try {
      await bench.run(ctx);
      ctx.progress(`done in ${((performance.now() - benchStart) / 1000).toFixed(1)} s`);
    } catch (err) {
      const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
      failures.push({ bench: bench.name, error });
      ctx.progress(`FAILED: ${error}`);
    }
  }

  process.stdout.write(`\n${renderTable(figures)}\n`);
  for (const f of failures) process.stdout.write(`\n${f.bench} FAILED (figures above are partial):\n${f.error}\n`);
  const report = {
    startedAt: started.toISOString(),
    durationSeconds: Math.round((performance.now() - t0) / 100) / 10,
    quick,
    revision,
    benchmarks: selected.map((b) => b.name),
    machine: host,
    figures,
    failures,
  };
  writeFileSync(RESULTS_FILE, JSON.stringify(report, null, 2) + '\n');
  process.stdout.write(`\nFigures written to ${RESULTS_FILE}\n`);
  return failures.length > 0 ? 1 : 0;
}

// process.exit runs the helpers' exit hooks, which kill any apiserver still
// running and remove the temp dirs, whatever happened above.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
