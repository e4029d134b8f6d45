// The result of a run as data (the JSON report is this object) and as the
// terminal table: one row per check and invariant with its mode, result and
// time to recovery, then the verdict.
import type { TimelineEvent } from '../../../shared/timeline/types.ts';
import { formatDuration } from '../../../shared/timeline/svg.ts';
import type { CheckResult } from './checks.ts';
import type { InvariantResult } from './invariants/types.ts';
import type { FaultRecord } from './steps.ts';

export interface ExperimentReport {
  experiment: string;
  description?: string;
  file?: string;
  seed: number;
  startedAt: string;
  durationMs: number;
  /** passed: every check and invariant held; failed: one did not, or a step could not be carried out; aborted: Ctrl-C (the run's timeout is a failure, named in errors). */
  verdict: 'passed' | 'failed' | 'aborted';
  checks: CheckResult[];
  invariants: InvariantResult[];
  faults: FaultRecord[];
  /** Steps that could not be carried out, faults that could not be recovered. */
  errors: string[];
  /** Reactions beyond the report's limit, counted only. */
  droppedReactions: number;
  events: TimelineEvent[];
}

/** The rows of the table, checks then invariants. */
export function tableRows(r: ExperimentReport): string[][] {
  const at = (ms: number | undefined) => (ms === undefined ? '' : ` at ${formatDuration(ms)}`);
  const rows = r.checks.map((c) => [
    c.name,
    c.mode,
    c.passed ? 'passed' : `FAILED${at(c.at)}`,
    c.timeToRecoveryMs === undefined ? '-' : formatDuration(c.timeToRecoveryMs),
    c.message,
  ]);
  for (const i of r.invariants)
    rows.push([i.name, `Invariant ${i.kind}`, i.held ? 'held' : `VIOLATED${at(i.violations[0]?.at)}`, '-', i.message]);
  return rows;
}

/** The terminal table and verdict. */
export function formatTable(r: ExperimentReport, width = process.stdout.columns || 120): string {
  const head = ['CHECK', 'MODE', 'RESULT', 'TIME TO RECOVERY', 'DETAIL'];
  const rows = [head, ...tableRows(r)];
  const widths = head.slice(0, 4).map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const used = widths.reduce((a, b) => a + b + 3, 0);
  const detailWidth = Math.max(width - used, 30);
  const lines = rows.map((row) => {
    const detail = row[4].length > detailWidth ? `${row[4].slice(0, detailWidth - 1)}…` : row[4];
    return [...row.slice(0, 4).map((c, i) => c.padEnd(widths[i])), detail].join('   ').trimEnd();
  });
  const out = [
    `experiment ${r.experiment} (seed ${r.seed}): ${formatDuration(r.durationMs)}, ${r.faults.length} fault(s)`,
    '',
    ...lines,
    '',
  ];
  for (const e of r.errors) out.push(`error: ${e}`);
  out.push(`verdict: ${r.verdict.toUpperCase()}`);
  return out.join('\n') + '\n';
}

/** 0 when the run passed, 1 otherwise. */
export function exitCodeOf(r: ExperimentReport): number {
  return r.verdict === 'passed' ? 0 : 1;
}
