// The standard cron parser kube validates CronJob schedules with
// (robfig/cron v3 ParseStandard): five fields or an @descriptor, with the
// library's exact error texts.

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];
const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

function atoi(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr))
    throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function intOrName(expr: string, names?: Record<string, number>): number {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : atoi(expr);
}

function checkRange(expr: string, b: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = b.min;
    end = b.max;
  } else {
    start = intOrName(lowAndHigh[0], b.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1], b.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = atoi(rangeAndStep[1]);
    if (lowAndHigh.length === 1) end = b.max;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expr}`);
  }
  if (start < b.min) throw new Error(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new Error(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

function goDuration(s: string): boolean {
  return /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s) || s === '0';
}

/** The error robfig/cron's ParseStandard gives for `spec`, or undefined when it parses. */
export function cronProblem(spec: string): string | undefined {
  if (spec.length === 0) return 'empty spec string';
  try {
    let s = spec;
    if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) {
      const i = s.indexOf(' ');
      const eq = s.indexOf('=');
      const loc = s.slice(eq + 1, i < 0 ? undefined : i);
      if (!validTimeZone(loc)) return `provided bad location ${loc}: unknown time zone ${loc}`;
      s = i < 0 ? '' : s.slice(i).trim();
    }
    if (s.startsWith('@')) {
      if (DESCRIPTORS.has(s)) return undefined;
      if (s.startsWith('@every ')) {
        const d = s.slice('@every '.length);
        return goDuration(d) ? undefined : `failed to parse duration ${s}: time: invalid duration ${JSON.stringify(d)}`;
      }
      return `unrecognized descriptor: ${s}`;
    }
    const fields = s.split(/\s+/).filter((f) => f.length > 0);
    if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
    fields.forEach((f, i) => {
      for (const expr of f.split(',').filter((x) => x.length > 0)) checkRange(expr, FIELDS[i]);
    });
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Whether Go's time.LoadLocation would find `tz` (the runtime's IANA database stands in for Go's). */
export function validTimeZone(tz: string): boolean {
  if (tz === 'UTC' || tz === '') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
