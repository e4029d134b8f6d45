// kube's human-readable durations (k8s.io/apimachinery/pkg/util/duration)
// and the "time since a timestamp" helpers the printers use for Age, Last
// Seen, Duration and "(5m ago)". Time always comes from an injected `now`.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Go's int(x) for a float: truncation toward zero. */
const trunc = (x: number): number => Math.trunc(x);

/**
 * duration.HumanDuration: ~2-3 significant figures, e.g. "45s", "3m20s",
 * "15m", "5h3m", "30h", "2d3h", "45d", "4y120d", "9y". A duration below -1s
 * is "<invalid>"; a slightly negative one (clock skew) is "0s".
 */
export function humanDuration(ms: number): string {
  const seconds = trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${trunc(hours / 24)}d` : `${trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = trunc(hours / 24) % 365;
    return dy === 0 ? `${trunc(hours / 24 / 365)}y` : `${trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${trunc(hours / 24 / 365)}y`;
}

/** duration.ShortHumanDuration: one unit only, e.g. "45s", "3m", "5h", "12d", "2y". */
export function shortHumanDuration(ms: number): string {
  const seconds = trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = trunc(ms / MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = trunc(ms / HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${trunc(hours / 24)}d`;
  return `${trunc(hours / 24 / 365)}y`;
}

/**
 * Parses a metav1.Time / MicroTime string; undefined for a zero time (absent,
 * null, empty, unparseable or Go's zero "0001-01-01T00:00:00Z").
 */
export function parseTime(ts: unknown): number | undefined {
  if (typeof ts !== 'string' || ts === '') return undefined;
  const t = Date.parse(ts);
  if (Number.isNaN(t) || t <= ZERO_TIME) return undefined;
  return t;
}

const ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');

/** translateTimestampSince: HumanDuration(now - ts), or "<unknown>" for a zero timestamp. */
export function since(ts: unknown, now: Date): string {
  const t = parseTime(ts);
  if (t === undefined) return '<unknown>';
  return humanDuration(now.getTime() - t);
}

/** translateTimestampUntil: HumanDuration(ts - now), or "<unknown>" for a zero timestamp. */
export function until(ts: unknown, now: Date): string {
  const t = parseTime(ts);
  if (t === undefined) return '<unknown>';
  return humanDuration(t - now.getTime());
}
