// JSON forms of kube's special scalar types, written the way their Go
// MarshalJSON methods write them: metav1.Time (RFC 3339, seconds, UTC),
// metav1.MicroTime (six fractional digits), metav1.Duration (Go's
// time.Duration.String()), and the parsers the encoder needs to go back.

const NS_PER_SEC = 1_000_000_000n;

/** Splits nanoseconds since the epoch into floor seconds and a non-negative nanosecond remainder. */
function splitNanos(total: bigint): { seconds: bigint; nanos: bigint } {
  let seconds = total / NS_PER_SEC;
  let nanos = total % NS_PER_SEC;
  if (nanos < 0n) {
    nanos += NS_PER_SEC;
    seconds -= 1n;
  }
  return { seconds, nanos };
}

/** "2006-01-02T15:04:05" of whole seconds since the epoch, or undefined outside years 0000-9999. */
function formatSeconds(seconds: bigint): string | undefined {
  // Years 0 and 9999 bound what RFC 3339 can write with four digits.
  if (seconds < -62167219200n || seconds > 253402300799n) return undefined;
  return new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
}

/**
 * metav1.Time from its protobuf seconds and nanos: kube drops the nanos
 * (JSON has second precision) and writes UTC, e.g. "2026-11-30T10:00:00Z".
 */
export function formatTime(seconds: bigint): string | undefined {
  const s = formatSeconds(seconds);
  return s && `${s}Z`;
}

/** metav1.MicroTime: nanos truncated to microseconds, always six digits, e.g. "2026-11-30T10:00:00.000000Z". */
export function formatMicroTime(seconds: bigint, nanos: bigint): string | undefined {
  const micros = nanos / 1000n;
  const split = splitNanos(seconds * NS_PER_SEC + micros * 1000n);
  const s = formatSeconds(split.seconds);
  return s && `${s}.${String(split.nanos / 1000n).padStart(6, '0')}Z`;
}

/**
 * Parses an RFC 3339 time ("2006-01-02T15:04:05Z", fraction and offset
 * optional, as Go's time.Parse(time.RFC3339) accepts) into seconds and nanos
 * since the epoch; undefined when it is not one.
 */
export function parseTime(text: string): { seconds: bigint; nanos: number } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  if (date.getUTCDate() !== day) return undefined;
  let seconds = BigInt(date.getTime() / 1000);
  if (m[9]) {
    const offset = (Number(m[10]) * 60 + Number(m[11])) * 60;
    seconds -= BigInt(m[9] === '+' ? offset : -offset);
  }
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

/** Go's fmtFrac: the fraction of v / 10^prec without trailing zeros, and v / 10^prec. */
function fmtFrac(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let print = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    print ||= digit !== 0n;
    if (print) digits = String(digit) + digits;
    v /= 10n;
  }
  return [print ? `.${digits}` : '', v];
}

/** Go's time.Duration.String() of nanoseconds, e.g. "1h2m3.5s", "1.5ms", "0s". */
export function formatDuration(nanos: bigint): string {
  const neg = nanos < 0n;
  let u = BigInt.asUintN(64, neg ? -nanos : nanos);
  let out: string;
  if (u === 0n) return '0s';
  if (u < NS_PER_SEC) {
    let unit: string;
    let prec: number;
    if (u < 1000n) [unit, prec] = ['ns', 0];
    else if (u < 1_000_000n) [unit, prec] = ['µs', 3];
    else [unit, prec] = ['ms', 6];
    const [frac, whole] = fmtFrac(u, prec);
    out = `${whole}${frac}${unit}`;
  } else {
    const [frac, secs] = fmtFrac(u, 9);
    u = secs;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  µs: 1000n,
  μs: 1000n,
  ms: 1_000_000n,
  s: NS_PER_SEC,
  m: 60n * NS_PER_SEC,
  h: 3600n * NS_PER_SEC,
};

/** Go's time.ParseDuration, to nanoseconds; undefined when the text is not a duration. */
export function parseDuration(text: string): bigint | undefined {
  let s = text;
  let neg = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (!s) return undefined;
  let total = 0n;
  const re = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (s) {
    const m = re.exec(s);
    if (!m || (m[1] === '' && !m[2])) return undefined;
    const unit = UNITS[m[3]];
    total += BigInt(m[1] || '0') * unit;
    if (m[2]) total += (BigInt(m[2]) * unit) / 10n ** BigInt(m[2].length);
    s = s.slice(m[0].length);
  }
  return neg ? -total : total;
}
