// The apiserver's --history flag: how long the store keeps every revision.
// "all" (the default) keeps everything for ever; "off" keeps none; else a
// comma-separated list of bounds, any of: revisions=N (per object), age=D
// (30s, 15m, 24h, 7d) and size=B (bytes, or with Ki, Mi, Gi).
import type { HistoryPolicy } from '../storage/types.ts';

const UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const UNITS_BYTES: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

/** The policy `value` names; throws an Error whose message says what is wrong. */
export function parseHistoryFlag(value: string): HistoryPolicy | false {
  if (value === '' || value === 'all') return {};
  if (value === 'off') return false;
  const policy: HistoryPolicy = {};
  for (const part of value.split(',')) {
    const [name, v = ''] = part.split('=', 2);
    let m: RegExpExecArray | null;
    if (name === 'revisions' && /^[1-9]\d{0,8}$/.test(v)) policy.maxRevisionsPerObject = Number(v);
    else if (name === 'age' && (m = /^([1-9]\d{0,8})([smhd])$/.exec(v))) policy.maxAgeMs = Number(m[1]) * UNITS_MS[m[2]];
    else if (name === 'size' && (m = /^([1-9]\d{0,12})(Ki|Mi|Gi)?$/.exec(v))) policy.maxBytes = Number(m[1]) * UNITS_BYTES[m[2] ?? ''];
    else throw new Error(`"${part}": expected all, off, or a list of revisions=N, age=DURATION (e.g. 24h) and size=BYTES (e.g. 2Gi)`);
  }
  return policy;
}
