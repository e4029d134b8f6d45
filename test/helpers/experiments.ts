// Running an example experiment (experiments/*.yaml) as a user runs it:
// `ksim chaos run FILE --data-dir DIR --speed 20` with both reports, and the
// checks every passing run must meet (exit 0, every check and invariant held,
// a self-contained HTML report).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { ksimCli, repoRoot } from './paths.ts';
import { tempDir } from './temp-dir.ts';
import type { ExperimentReport } from '../../cli/chaos/experiment/report.ts';

export const SPEED = 20;
export const EXPERIMENT_TIMEOUT_MS = 150_000;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  report?: ExperimentReport;
  html?: string;
}

/** Runs `ksim chaos run FILE --data-dir DIR --speed 20` with both reports. */
export async function runExperiment(file: string, dataDir: string, extra: string[] = []): Promise<Run> {
  const out = await tempDir('experiment-report');
  const json = join(out, 'report.json');
  const html = join(out, 'report.html');
  const args = [
    ksimCli,
    'chaos',
    'run',
    isAbsolute(file) ? file : join(repoRoot, file),
    '--data-dir',
    dataDir,
    '--speed',
    String(SPEED),
    '--report-json',
    json,
    '--report-html',
    html,
    ...extra,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  const read = (f: string) => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return undefined;
    }
  };
  const text = read(json);
  return { code, stdout, stderr, report: text ? (JSON.parse(text) as ExperimentReport) : undefined, html: read(html) };
}

export function assertPassed(r: Run): ExperimentReport {
  const why = `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
  assert.equal(r.code, 0, why);
  const report = r.report!;
  assert.ok(report, `no JSON report: ${why}`);
  assert.equal(report.verdict, 'passed', why);
  assert.ok(report.checks.length > 0 && report.checks.every((c) => c.passed), why);
  assert.ok(
    report.invariants.every((i) => i.held),
    why,
  );
  assert.match(r.stdout, /verdict: PASSED/);
  assertHtml(r, report);
  return report;
}

export function assertHtml(r: Run, report: ExperimentReport): void {
  const html = r.html!;
  assert.ok(html, 'an HTML report');
  assert.match(html, /^<!DOCTYPE html>/);
  assert.ok(html.includes('<svg xmlns="http://www.w3.org/2000/svg"'), 'the timeline inline');
  assert.ok(html.includes(`>${report.verdict.toUpperCase()}<`), 'the verdict');
  // Self-contained: nothing to fetch.
  assert.doesNotMatch(html, /<(script|link|img|iframe)\b|\bsrc=|url\(/i);
  for (const c of report.checks) assert.ok(html.includes(c.name), `the report names ${c.name}`);
}

export const faultsOf = (report: ExperimentReport, action: string) => report.faults.filter((f) => f.request.action === action);
