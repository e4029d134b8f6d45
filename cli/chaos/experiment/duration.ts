// Durations as experiment files write them: "250ms", "2s", "1m30s", "1h",
// optionally signed ("+30s", "-5s") for clock skews; a bare number is
// milliseconds.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of `text`, or undefined when it is not a duration. */
export function parseDuration(text: unknown, signed = false): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && (signed || text >= 0) ? text : undefined;
  if (typeof text !== 'string') return undefined;
  const m = /^([+-]?)((?:\d+(?:\.\d+)?(?:ms|s|m|h))+)$/.exec(text.trim());
  if (!m || (m[1] && !signed)) return undefined;
  let total = 0;
  for (const part of m[2].matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(part[1]) * UNIT_MS[part[2]];
  return m[1] === '-' ? -total : total;
}
