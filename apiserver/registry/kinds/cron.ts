// The standard cron parser kube uses for CronJob schedules (robfig/cron v3
// ParseStandard): five fields or an @descriptor, with the library's exact
// error texts, and the schedules it builds: Next(t), the first activation
// after t, walked field by field in the schedule's time zone as robfig's
// SpecSchedule does (day-of-month OR day-of-week unless either is `*`, DST
// gaps and repeats as Go's time.Date resolves them), and @every's constant
// delay. Times are milliseconds since the epoch; time zones come from the
// runtime's IANA database through Intl.

/** A parsed schedule: the first activation strictly after `t`, or ZERO_TIME when none within five years. */
export interface Schedule {
  next(t: number): number;
}

/** Go's zero time.Time (0001-01-01T00:00:00Z), which robfig returns when a schedule never fires. */
export const ZERO_TIME = -62135596800000;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

/** One field's set of values; `star` marks a field written `*` or `?` (robfig's starBit). */
interface Field {
  has: boolean[];
  star: boolean;
}

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTH: Bounds = { min: 1, max: 12, names: MONTHS };
const DOW: Bounds = { min: 0, max: 6, names: DAYS };
const FIELDS: Bounds[] = [MINUTES, HOURS, DOM, MONTH, DOW];

function atoi(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr))
    throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (Math.abs(n) > 2 ** 63 - 1)
    throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function intOrName(expr: string, names?: Record<string, number>): number {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : atoi(expr);
}

function emptyField(): Field {
  return { has: new Array<boolean>(64).fill(false), star: false };
}

function fullField(b: Bounds, star = true): Field {
  const f = emptyField();
  for (let i = b.min; i <= b.max; i++) f.has[i] = true;
  f.star = star;
  return f;
}

function onlyField(v: number): Field {
  const f = emptyField();
  f.has[v] = true;
  return f;
}

/** robfig's getRange: one `N`, `N-M`, `*`, optionally `/step`, ORed into `into`. */
function addRange(expr: string, b: Bounds, into: Field): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = b.min;
    end = b.max;
    star = true;
  } else {
    start = intOrName(lowAndHigh[0], b.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1], b.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = atoi(rangeAndStep[1]);
    // "N/step" means "N-max/step".
    if (lowAndHigh.length === 1) end = b.max;
    if (step > 1) star = false;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expr}`);
  }
  if (start < b.min) throw new Error(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new Error(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  for (let i = start; i <= end; i += step) into.has[i] = true;
  if (star) into.star = true;
}

function parseField(field: string, b: Bounds): Field {
  const f = emptyField();
  for (const expr of field.split(',').filter((x) => x.length > 0)) addRange(expr, b, f);
  return f;
}

const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, μs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration, in nanoseconds, with its error texts. */
export function parseGoDuration(text: string): number {
  const invalid = () => new Error(`time: invalid duration ${JSON.stringify(text)}`);
  let s = text;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0;
  while (s !== '') {
    const m = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    if (m[0] === '' || (m[1] === '' && !m[2])) throw invalid();
    s = s.slice(m[0].length);
    const unitMatch = /^[^.\d]*/.exec(s)![0];
    if (unitMatch === '') throw new Error(`time: missing unit in duration ${JSON.stringify(text)}`);
    const unit = DURATION_UNITS[unitMatch];
    if (unit === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unitMatch)} in duration ${JSON.stringify(text)}`);
    s = s.slice(unitMatch.length);
    total += Number(`${m[1] || '0'}.${m[2] || '0'}`) * unit;
  }
  return neg ? -total : total;
}

/** Whether Go's time.LoadLocation would find `tz` (the runtime's IANA database stands in for Go's). */
export function validTimeZone(tz: string): boolean {
  if (tz === 'UTC' || tz === '') return true;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    // Intl ignores case; Go opens a file by that name, so "utc" or "asia/tokyo" are unknown there.
    return !(resolved.toLowerCase() === tz.toLowerCase() && resolved !== tz);
  } catch {
    return false;
  }
}

/** The calendar fields of an instant in a zone (month 1-12, weekday 0 = Sunday). */
export interface ZonedFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

/** Wall-clock fields read as if they were UTC, normalizing overflow as Go's time.Date does. */
function wallMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

const floorTo = (t: number, unit: number) => t - (((t % unit) + unit) % unit);

/** A time zone: reads an instant's fields and builds instants from wall-clock fields (time.Date). */
export class Zone {
  private static readonly zones = new Map<string, Zone>();
  private readonly format?: Intl.DateTimeFormat;

  private constructor(readonly name: string) {
    if (name !== 'UTC') {
      this.format = new Intl.DateTimeFormat('en-US', {
        timeZone: name,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    }
  }

  /** The zone named `name` ('' and 'UTC' are UTC, as Go's LoadLocation); throws Go's error for an unknown one. */
  static of(name: string): Zone {
    const key = name === '' ? 'UTC' : name;
    let z = Zone.zones.get(key);
    if (!z) {
      if (!validTimeZone(key)) throw new Error(`unknown time zone ${name}`);
      z = new Zone(key);
      Zone.zones.set(key, z);
    }
    return z;
  }

  /** The fields of instant `t` on this zone's clocks. */
  fields(t: number): ZonedFields {
    const ms = floorTo(t, SECOND);
    if (!this.format) {
      const d = new Date(ms);
      return {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hour: d.getUTCHours(),
        minute: d.getUTCMinutes(),
        second: d.getUTCSeconds(),
        weekday: d.getUTCDay(),
      };
    }
    const p: Record<string, string> = {};
    for (const part of this.format.formatToParts(ms)) p[part.type] = part.value;
    const year = p.era === 'BC' ? 1 - Number(p.year) : Number(p.year);
    const f = {
      year,
      month: Number(p.month),
      day: Number(p.day),
      hour: Number(p.hour),
      minute: Number(p.minute),
      second: Number(p.second),
    };
    return { ...f, weekday: new Date(wallMs(f.year, f.month, f.day)).getUTCDay() };
  }

  /** The zone's UTC offset at instant `t`, in milliseconds. */
  offset(t: number): number {
    if (!this.format) return 0;
    const f = this.fields(t);
    return wallMs(f.year, f.month, f.day, f.hour, f.minute, f.second) - floorTo(t, SECOND);
  }

  /**
   * Go's time.Date in this zone: out-of-range fields normalize, and a wall
   * time that a transition skips or repeats resolves as Go does (take the
   * offset in force at the wall time read as UTC, and if the instant that
   * gives falls outside that offset's period, the offset in force there).
   */
  date(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
    const wall = wallMs(year, month, day, hour, minute, second);
    const first = this.offset(wall);
    const second_ = this.offset(wall - first);
    return wall - second_;
  }

  /** time.AddDate: the same wall clock `years`, `months`, `days` later. */
  addDate(t: number, years: number, months: number, days: number): number {
    const f = this.fields(t);
    return this.date(f.year + years, f.month + months, f.day + days, f.hour, f.minute, f.second) + (t - floorTo(t, SECOND));
  }
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Go's Format(time.RFC3339) of `t` in zone `tz` ('Z' for a zero offset). */
export function formatRFC3339(t: number, tz = 'UTC'): string {
  const z = Zone.of(tz);
  const f = z.fields(t);
  const off = Math.round(z.offset(t) / MINUTE);
  const zone = off === 0 ? 'Z' : `${off < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}${zone}`;
}

/** robfig's SpecSchedule: a bit set per field, read in `zone`. */
class SpecSchedule implements Schedule {
  constructor(
    private readonly second: Field,
    private readonly minute: Field,
    private readonly hour: Field,
    private readonly dom: Field,
    private readonly month: Field,
    private readonly dow: Field,
    private readonly zone: Zone,
  ) {}

  /** Day-of-month and day-of-week are ANDed when either is `*`, ORed otherwise (cron's historical rule). */
  private dayMatches(f: ZonedFields): boolean {
    const domMatch = this.dom.has[f.day];
    const dowMatch = this.dow.has[f.weekday];
    if (this.dom.star || this.dow.star) return domMatch && dowMatch;
    return domMatch || dowMatch;
  }

  next(from: number): number {
    const z = this.zone;
    // The earliest candidate is the upcoming whole second.
    let t = floorTo(from, SECOND) + SECOND;
    let added = false;
    const yearLimit = z.fields(t).year + 5;
    wrap: for (;;) {
      let f = z.fields(t);
      if (f.year > yearLimit) return ZERO_TIME;
      while (!this.month.has[f.month]) {
        if (!added) {
          added = true;
          t = z.date(f.year, f.month, 1);
        }
        t = z.addDate(t, 0, 1, 0);
        f = z.fields(t);
        if (f.month === 1) continue wrap;
      }
      while (!this.dayMatches(f)) {
        if (!added) {
          added = true;
          t = z.date(f.year, f.month, f.day);
        }
        t = z.addDate(t, 0, 0, 1);
        f = z.fields(t);
        // A midnight that DST skipped or doubled lands on another hour: go back to the day's start.
        if (f.hour !== 0) {
          t = f.hour > 12 ? t + (24 - f.hour) * HOUR : t - f.hour * HOUR;
          f = z.fields(t);
        }
        if (f.day === 1) continue wrap;
      }
      while (!this.hour.has[f.hour]) {
        if (!added) {
          added = true;
          t = z.date(f.year, f.month, f.day, f.hour);
        }
        t += HOUR;
        f = z.fields(t);
        if (f.hour === 0) continue wrap;
      }
      while (!this.minute.has[f.minute]) {
        if (!added) {
          added = true;
          t = floorTo(t, MINUTE);
        }
        t += MINUTE;
        f = z.fields(t);
        if (f.minute === 0) continue wrap;
      }
      while (!this.second.has[f.second]) {
        if (!added) {
          added = true;
          t = floorTo(t, SECOND);
        }
        t += SECOND;
        f = z.fields(t);
        if (f.second === 0) continue wrap;
      }
      return t;
    }
  }
}

/** robfig's ConstantDelaySchedule (@every): the delay, whole seconds of at least one, after `t`'s second. */
class ConstantDelaySchedule implements Schedule {
  private readonly delayMs: number;
  constructor(nanoseconds: number) {
    const ms = Math.max(nanoseconds, 1e9) / 1e6;
    this.delayMs = floorTo(ms, SECOND);
  }
  next(t: number): number {
    return floorTo(t, SECOND) + this.delayMs;
  }
}

function descriptor(spec: string, zone: Zone): Schedule {
  const zero = onlyField(0);
  const all = (b: Bounds) => fullField(b);
  switch (spec) {
    case '@yearly':
    case '@annually':
      return new SpecSchedule(zero, zero, zero, onlyField(1), onlyField(1), all(DOW), zone);
    case '@monthly':
      return new SpecSchedule(zero, zero, zero, onlyField(1), all(MONTH), all(DOW), zone);
    case '@weekly':
      return new SpecSchedule(zero, zero, zero, all(DOM), all(MONTH), onlyField(0), zone);
    case '@daily':
    case '@midnight':
      return new SpecSchedule(zero, zero, zero, all(DOM), all(MONTH), all(DOW), zone);
    case '@hourly':
      return new SpecSchedule(zero, zero, all(HOURS), all(DOM), all(MONTH), all(DOW), zone);
  }
  if (spec.startsWith('@every ')) {
    try {
      return new ConstantDelaySchedule(parseGoDuration(spec.slice('@every '.length)));
    } catch (e) {
      throw new Error(`failed to parse duration ${spec}: ${(e as Error).message}`, { cause: e });
    }
  }
  throw new Error(`unrecognized descriptor: ${spec}`);
}

/**
 * robfig/cron's ParseStandard: `spec`'s schedule, or an Error with the
 * library's text. A `TZ=` or `CRON_TZ=` prefix picks the zone; without one
 * the schedule reads `defaultZone` (Go's time.Local: UTC in kube's images).
 */
export function parseStandard(spec: string, defaultZone = 'UTC'): Schedule {
  if (spec.length === 0) throw new Error('empty spec string');
  let s = spec;
  let zone = Zone.of(defaultZone);
  if (s.startsWith('TZ=') || s.startsWith('CRON_TZ=')) {
    const i = s.indexOf(' ');
    const eq = s.indexOf('=');
    const loc = s.slice(eq + 1, i < 0 ? undefined : i);
    try {
      zone = Zone.of(loc);
    } catch (e) {
      throw new Error(`provided bad location ${loc}: ${(e as Error).message}`, { cause: e });
    }
    s = i < 0 ? '' : s.slice(i).trim();
  }
  if (s.startsWith('@')) return descriptor(s, zone);
  const fields = s.split(/\s+/).filter((f) => f.length > 0);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dom, month, dow] = fields.map((f, i) => parseField(f, FIELDS[i]));
  return new SpecSchedule(onlyField(0), minute, hour, dom, month, dow, zone);
}

/** The error robfig/cron's ParseStandard gives for `spec`, or undefined when it parses. */
export function cronProblem(spec: string): string | undefined {
  try {
    parseStandard(spec);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
