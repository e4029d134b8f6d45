// resource.Quantity as kube parses, compares and re-serializes it: "0.5" is
// stored as "500m", "1024Mi" as "1Gi", and resource lists are rounded up to
// milli precision (SetDefaults_ResourceList). Values are exact: a bigint
// mantissa times a power of ten.
import { LruCache } from '../../../shared/util/lru-cache.ts';

/** A parsed quantity: mant * 10^exp, with the format its suffix implied. Never mutated: parses are shared. */
export interface Quantity {
  readonly mant: bigint;
  readonly exp: number;
  readonly format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
}

/**
 * The same few quantity texts ("100m", "128Mi") arrive in nearly every Pod,
 * and parsing one (regexp, bigint) costs more than the rest of its field's
 * validation: remember recent answers.
 */
const MEMO_CAPACITY = 4096;
const parsed = new LruCache<Quantity | string>(MEMO_CAPACITY);
const canonical = new LruCache<string>(MEMO_CAPACITY);

/** kube's ErrFormatWrong. */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_ERROR = "unable to parse quantity's suffix";
const NUMERIC_ERROR = 'unable to parse numeric part of quantity';

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX: Record<number, string> = Object.fromEntries(Object.entries(DECIMAL).map(([k, v]) => [v, k]));
const BINARY_SUFFIX: Record<number, string> = Object.fromEntries(Object.entries(BINARY).map(([k, v]) => [v, k]));
const RE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

/** Parses a quantity as it arrives in JSON (string or number); a string is kube's error. */
export function parseQuantity(input: unknown): Quantity | string {
  if (typeof input !== 'string' && typeof input !== 'number') return QUANTITY_FORMAT_ERROR;
  const text = String(input);
  return parsed.getOrCompute(text, () => parseQuantityText(text));
}

function parseQuantityText(text: string): Quantity | string {
  const str = text.trim();
  if (str === '0') return { mant: 0n, exp: 0, format: 'DecimalSI' };
  const m = RE.exec(str);
  if (!m) return QUANTITY_FORMAT_ERROR;
  let num = m[1];
  const suffix = m[2];
  let negative = false;
  if (num.startsWith('+') || num.startsWith('-')) {
    negative = num.startsWith('-');
    num = num.slice(1);
  }
  const parts = num.split('.');
  if (parts.length > 2) return QUANTITY_FORMAT_ERROR;
  const [whole, frac = ''] = parts;
  if (whole === '' && frac === '') return NUMERIC_ERROR;
  let mant = BigInt((whole || '0') + frac);
  let exp = -frac.length;
  let format: Quantity['format'];
  if (suffix in DECIMAL) {
    format = 'DecimalSI';
    exp += DECIMAL[suffix];
  } else if (suffix in BINARY) {
    format = 'BinarySI';
    mant *= 1n << BigInt(BINARY[suffix]);
  } else if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[-+]?\d+$/.test(suffix.slice(1))) {
    format = 'DecimalExponent';
    exp += Number(suffix.slice(1));
  } else {
    return SUFFIX_ERROR;
  }
  if (negative) mant = -mant;
  return normalize({ mant, exp, format });
}

function normalize(q: Quantity): Quantity {
  let { mant, exp } = q;
  if (mant === 0n) return { ...q, mant: 0n, exp: 0 };
  while (mant % 10n === 0n) {
    mant /= 10n;
    exp++;
  }
  return { ...q, mant, exp };
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

/** -1, 0 or 1, as Quantity.Cmp. */
export function cmpQuantity(a: Quantity, b: Quantity): number {
  const e = Math.min(a.exp, b.exp);
  const x = a.mant * pow10(a.exp - e);
  const y = b.mant * pow10(b.exp - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The sum of two quantities (format of the first). */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  const e = Math.min(a.exp, b.exp);
  return normalize({ mant: a.mant * pow10(a.exp - e) + b.mant * pow10(b.exp - e), exp: e, format: a.format });
}

/** The quantity rounded away from zero to a multiple of 10^scale (Quantity.RoundUp). */
export function roundUp(q: Quantity, scale: number): Quantity {
  if (q.exp >= scale) return q;
  const f = pow10(scale - q.exp);
  const abs = q.mant < 0n ? -q.mant : q.mant;
  let m = (abs + f - 1n) / f;
  if (q.mant < 0n) m = -m;
  return normalize({ mant: m, exp: scale, format: q.format });
}

/** True when the quantity is a whole number. */
export function isInteger(q: Quantity): boolean {
  return q.exp >= 0;
}

/** The canonical text kube serializes a quantity as (Quantity.String). */
export function formatQuantity(q: Quantity): string {
  if (q.mant === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const small = cmpQuantity(q, { mant: 1024n, exp: 0, format }) < 0 && cmpQuantity(q, { mant: -1024n, exp: 0, format }) > 0;
    if (small || !isInteger(q)) format = 'DecimalSI';
  }
  if (format === 'BinarySI') {
    let value = q.mant * pow10(q.exp);
    let e = 0;
    while (value % 1024n === 0n && e < 60) {
      value /= 1024n;
      e += 10;
    }
    return `${value}${BINARY_SUFFIX[e] ?? ''}`;
  }
  let { mant, exp } = normalize(q);
  const rem = ((exp % 3) + 3) % 3;
  if (rem !== 0) {
    mant *= pow10(rem);
    exp -= rem;
  }
  if (format === 'DecimalExponent') return exp === 0 ? `${mant}` : `${mant}e${exp}`;
  const suffix = DECIMAL_SUFFIX[exp];
  return suffix === undefined ? `${mant}e${exp}` : `${mant}${suffix}`;
}

/** Canonical text for a JSON quantity, or the input unchanged when it does not parse. */
export function canonicalQuantity<T>(input: T, milli = false): T | string {
  if (typeof input !== 'string' && typeof input !== 'number') return input;
  const q = parseQuantity(input);
  if (typeof q === 'string') return input;
  return canonical.getOrCompute(`${milli ? 'm' : ''}:${input}`, () => formatQuantity(milli ? roundUp(q, -3) : q));
}

/** Canonicalizes every value of a ResourceList in place (rounded up to milli precision). */
export function canonicalizeResourceList(list: unknown): void {
  if (typeof list !== 'object' || list === null || Array.isArray(list)) return;
  const l = list as Record<string, unknown>;
  for (const k of Object.keys(l)) l[k] = canonicalQuantity(l[k], true);
}
