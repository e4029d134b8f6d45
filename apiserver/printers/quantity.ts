// resource.Quantity's canonical String() for printing quota usage: "1000m"
// prints "1", "1024Mi" prints "1Gi", "0.5" prints "500m". Quantities are
// stored as the client wrote them; kube canonicalises them when it decodes,
// so the printer does the same before showing them.

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_NAMES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

interface Parsed {
  /** value = mantissa * 10^exponent */
  mantissa: bigint;
  exponent: number;
  format: Format;
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

function parse(text: string): Parsed | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/.exec(text.trim());
  if (!m) return undefined;
  const [, sign, whole = '', frac = '', suffix = ''] = m;
  if (whole === '' && frac === '') return undefined;
  let mantissa = BigInt((whole || '0') + frac);
  let exponent = -frac.length;
  let format: Format;
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) {
    format = 'DecimalSI';
    exponent += DECIMAL_SUFFIXES[suffix];
  } else if (Object.hasOwn(BINARY_SUFFIXES, suffix)) {
    format = 'BinarySI';
    mantissa *= 1024n ** BigInt(BINARY_SUFFIXES[suffix]);
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    format = 'DecimalExponent';
    exponent += Number(suffix.slice(1));
  } else {
    return undefined;
  }
  if (sign === '-') mantissa = -mantissa;
  // Quantities keep nano precision at most; finer values round up.
  if (exponent < -9) {
    const d = pow10(-9 - exponent);
    const q = mantissa / d;
    mantissa = mantissa % d === 0n ? q : mantissa > 0n ? q + 1n : q;
    exponent = -9;
  }
  return { mantissa, exponent, format };
}

/** The canonical form kube prints; the input unchanged if it does not parse. */
export function canonicalQuantity(text: string | number | undefined | null): string {
  if (text === undefined || text === null) return '0';
  const q = parse(String(text));
  if (!q) return String(text);
  if (q.mantissa === 0n) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const integral = q.exponent >= 0 || q.mantissa % pow10(-q.exponent) === 0n;
    const value = q.exponent >= 0 ? q.mantissa * pow10(q.exponent) : q.mantissa / pow10(-q.exponent);
    if (!integral || (value > -1024n && value < 1024n)) {
      format = 'DecimalSI';
    } else {
      let v = value;
      let k = 0;
      while (k < BINARY_NAMES.length - 1 && v % 1024n === 0n) {
        v /= 1024n;
        k++;
      }
      return `${v}${BINARY_NAMES[k]}`;
    }
  }
  let { mantissa, exponent } = q;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const r = ((exponent % 3) + 3) % 3;
  mantissa *= pow10(r);
  exponent -= r;
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  const suffix = DECIMAL_BY_EXPONENT.get(exponent);
  return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
}
