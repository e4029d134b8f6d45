// The time of day the CLI prints beside a write or a work item (ksim
// history, trace, step): local time with milliseconds, 10:04:05.123, as a
// reader compares it with their own clock and with kubectl's output.

/** `t` (epoch ms or an RFC 3339 time) as local time of day with milliseconds; '' when absent. */
export function timeOfDay(t: number | string | undefined): string {
  if (t === undefined) return '';
  const d = new Date(t);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}
