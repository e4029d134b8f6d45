// A Kubernetes quantity ("100m", "1.5Gi", "2e3") as a JavaScript number of
// base units, for arithmetic that needs no exactness (the scheduler's sums,
// the QoS class's comparisons). The exact, arbitrary-precision Quantity the
// API validates and prints is apiserver/registry/kinds/quantity.ts.

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
  Ti: 1024 ** 4,
  Pi: 1024 ** 5,
  Ei: 1024 ** 6,
};

/** The number of base units `q` stands for (a number is itself); NaN when it is no quantity. */
export function quantityNumber(q: unknown): number {
  if (typeof q === 'number') return q;
  if (typeof q !== 'string') return NaN;
  const m = /^([+-]?[0-9.]+)([eE][+-]?[0-9]+)?(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(q.trim());
  if (!m) return NaN;
  return Number(m[1] + (m[2] ?? '')) * SUFFIX[m[3] ?? ''];
}
