// What a benchmark produces and how it is shown: figures (a value, a unit
// and, when the project's issue sets one, a target that is reported as met
// or missed but never fails the run), progress lines while a phase runs,
// and the table printed at the end.

/** A target from the issue: reported next to the figure, never enforced. */
export interface Target {
  op: '>=' | '<=' | '<' | '>';
  value: number;
}

/** One measured figure. */
export interface Figure {
  bench: string;
  name: string;
  value: number | string;
  unit: string;
  target?: Target;
  /** How the figure was obtained, when it is not obvious from its name. */
  note?: string;
}

/** What a benchmark receives: sizing, figure recording, progress, results of earlier benchmarks. */
export interface BenchContext {
  /** Smoke-run mode: durations and sizes scaled down about 10x. */
  readonly quick: boolean;
  /** `full` normally, `quick` in quick mode. */
  size<T>(full: T, quick: T): T;
  /** Records a figure (kept even if the benchmark fails later). */
  record(name: string, value: number | string, unit: string, extra?: { target?: Target; note?: string }): void;
  /** Prints one progress line, prefixed with the benchmark's name (a function: benchmarks pass it on as it is). */
  progress: (message: string) => void;
  /** Values earlier benchmarks of this run shared (e.g. the raw put rate). */
  readonly shared: Map<string, number>;
}

/** A benchmark that `npm run bench -- <name>` can run. */
export interface Benchmark {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<void>;
}

/** Whether `value` meets `target`. */
export function targetMet(value: number, target: Target): boolean {
  switch (target.op) {
    case '>=':
      return value >= target.value;
    case '<=':
      return value <= target.value;
    case '<':
      return value < target.value;
    case '>':
      return value > target.value;
  }
}

/** A number with thousands separators and a sensible number of decimals. */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  const digits = abs >= 100 || Number.isInteger(v) ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Bytes as MiB or GiB. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

function targetText(f: Figure): string {
  if (!f.target) return '';
  return `${f.target.op} ${formatNumber(f.target.value)}`;
}

function statusText(f: Figure): string {
  if (!f.target || typeof f.value !== 'number') return '';
  return targetMet(f.value, f.target) ? 'met' : 'MISSED';
}

function valueText(f: Figure): string {
  return typeof f.value === 'number' ? formatNumber(f.value) : f.value;
}

/** Renders figures as an aligned plain-text table, grouped by benchmark. */
export function renderTable(figures: Figure[]): string {
  const header = ['benchmark', 'figure', 'value', 'unit', 'target', ''];
  const rows = figures.map((f) => [f.bench, f.name + (f.note ? ` (${f.note})` : ''), valueText(f), f.unit, targetText(f), statusText(f)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const right = new Set([2]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const out = [line(header), widths.map((w) => '-'.repeat(w)).join('  ')];
  let previous = '';
  for (const [i, row] of rows.entries()) {
    if (previous && figures[i].bench !== previous) out.push('');
    previous = figures[i].bench;
    out.push(line(row));
  }
  return out.join('\n');
}
