// Runs the scheduler benchmark on its own (until bench/run.ts lists it):
//   node --import tsx bench/scheduler-run.ts [--quick]
import { schedulerThroughput } from './scheduler-throughput.ts';
import { formatNumber, type BenchContext } from './report.ts';

const quick = process.argv.includes('--quick');
const ctx: BenchContext = {
  quick,
  size: (full, q) => (quick ? q : full),
  record: (name, value, unit, extra) => process.stdout.write(`${name}: ${typeof value === 'number' ? formatNumber(value) : value} ${unit}${extra?.target ? ` (target ${extra.target.op} ${extra.target.value})` : ''}${extra?.note ? ` [${extra.note}]` : ''}\n`),
  progress: (m) => process.stderr.write(`  ${m}\n`),
  shared: new Map(),
};
await schedulerThroughput.run(ctx);
