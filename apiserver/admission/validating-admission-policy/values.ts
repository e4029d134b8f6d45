// JSON objects as CEL values: kube hands CEL unstructured objects, whose
// whole numbers are int64 and the rest float64; cel-js wants a bigint for
// an int. Everything else (strings, booleans, null, lists, maps) is the
// same in both.

/** A decoded JSON value with its whole numbers as bigints. */
export function toCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCel);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toCel(x);
    return out;
  }
  return v ?? null;
}
