// Ports of the Go parsers whose error texts reach clients while kube decodes a
// JSON body: resource.ParseQuantity, base64.StdEncoding.Decode, time.Parse
// with the RFC 3339 layouts of metav1.Time and metav1.MicroTime, and the
// quoting of strconv.Quote and package time. Each gives kube's error text, or
// nothing (or, for times, the value as kube writes it back) where Go accepts
// the input.

/** resource.splitREString, quoted in ErrFormatWrong. */
export const QUANTITY_REGEXP = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
/** resource.ErrFormatWrong. */
export const QUANTITY_FORMAT_WRONG = `quantities must match the regular expression '${QUANTITY_REGEXP}'`;
/** resource.ErrNumeric. */
export const QUANTITY_NUMERIC = 'unable to parse numeric part of quantity';
/** resource.ErrSuffix. */
export const QUANTITY_SUFFIX = "unable to parse quantity's suffix";

const isDigitCode = (c: number): boolean => c >= 48 && c <= 57;
const SUFFIX_CHARS = 'eEinumkKMGTP';

const DEC_SUFFIXES: Record<string, number> = { '': 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** strconv.ParseInt(s, 10, 64) succeeds (Go accepts a leading sign). */
function parsesAsInt64(s: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n <= 2n ** 63n - 1n;
}

/**
 * The error resource.ParseQuantity returns for `str`, or undefined when it
 * parses. Only the outcome is ported, not the value.
 */
export function parseQuantityError(str: string): string | undefined {
  if (str.length === 0) return QUANTITY_FORMAT_WRONG;
  if (str === '0') return undefined;
  const end = str.length;
  let pos = 0;
  if (str[0] === '-' || str[0] === '+') pos++;
  // leading zeros
  while (pos < end && str[pos] === '0') pos++;
  if (pos >= end) return undefined; // all zeros: "0"
  const numStart = pos;
  while (pos < end && isDigitCode(str.charCodeAt(pos))) pos++;
  if (pos >= end) return undefined; // digits only
  const numLen = pos === numStart ? 1 : pos - numStart; // an empty numerator counts as "0"
  let denomLen = 0;
  if (str[pos] === '.') {
    pos++;
    const denomStart = pos;
    while (pos < end && isDigitCode(str.charCodeAt(pos))) pos++;
    if (pos >= end) return undefined; // "1.5", "1.", "."
    denomLen = pos - denomStart;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos])) pos++;
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  while (pos < end && isDigitCode(str.charCodeAt(pos))) pos++;
  if (pos < end) return QUANTITY_FORMAT_WRONG;
  const suffix = str.slice(suffixStart);

  let exponent: number;
  let format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
  if (Object.hasOwn(DEC_SUFFIXES, suffix)) {
    exponent = DEC_SUFFIXES[suffix];
    format = 'DecimalSI';
  } else if (Object.hasOwn(BIN_SUFFIXES, suffix)) {
    exponent = BIN_SUFFIXES[suffix];
    format = 'BinarySI';
  } else if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && parsesAsInt64(suffix.slice(1))) {
    exponent = Number(BigInt.asIntN(32, BigInt(suffix.slice(1))));
    format = 'DecimalExponent';
  } else {
    return QUANTITY_SUFFIX;
  }

  // The fast path (an int64 mantissa) cannot fail; the slow path hands the
  // numeric part to inf.Dec, which fails only when it holds no digit.
  let precision: number;
  let scale = 0;
  if (format === 'BinarySI') {
    precision = exponent >= 0 && denomLen === 0 ? 15 - numLen - Math.trunc((exponent * 3) / 10) - 1 : -1;
  } else {
    scale = exponent;
    precision = 18 - (numLen + denomLen);
  }
  const fast = precision >= 0 && scale - denomLen >= -9;
  if (!fast && !/[0-9]/.test(value)) return QUANTITY_NUMERIC;
  return undefined;
}

const B64 = new Int8Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) B64[c.charCodeAt(0)] = i;

/**
 * The error base64.StdEncoding.Decode returns for `s` (already unquoted), or
 * undefined. Offsets are byte offsets; every byte before the first bad one is
 * ASCII, so string indexes serve.
 */
export function base64DecodeError(s: string): string | undefined {
  const n = s.length;
  const bad = (at: number): string => `illegal base64 data at input byte ${at}`;
  const isNewline = (c: number): boolean => c === 10 || c === 13;
  let si = 0;
  while (si < n) {
    for (let j = 0; j < 4; j++) {
      if (si === n) {
        if (j === 0) return undefined;
        return bad(si - j); // StdEncoding is padded: a short final quantum is an error
      }
      const c = s.charCodeAt(si);
      si++;
      if (c < 128 && B64[c] >= 0) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== 61) return bad(si - 1);
      // Padding.
      if (j === 0 || j === 1) return bad(si - 1);
      if (j === 2) {
        while (si < n && isNewline(s.charCodeAt(si))) si++;
        if (si === n) return bad(n);
        if (s.charCodeAt(si) !== 61) return bad(si - 1);
        si++;
      }
      while (si < n && isNewline(s.charCodeAt(si))) si++;
      if (si < n) return bad(si);
      return undefined;
    }
  }
  return undefined;
}

const hex2 = (b: number): string => b.toString(16).padStart(2, '0');

/** Go's string bytes as a JS string of one char per byte, so indexes are Go's byte indexes. */
const utf8Bytes = (s: string): string => Buffer.from(s, 'utf8').toString('latin1');

/**
 * Package time's quote() of a byte string (see utf8Bytes): like strconv.Quote,
 * but every non-ASCII or control byte as \xNN.
 */
function timeQuoteBytes(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80 || c < 0x20) out += '\\x' + hex2(c);
    else {
      if (c === 34 || c === 92) out += '\\';
      out += s[i];
    }
  }
  return out + '"';
}

/** Package time's quote(), used in time.ParseError messages. */
export function timeQuote(s: string): string {
  return timeQuoteBytes(utf8Bytes(s));
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const NAMED_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** strconv.Quote: Go's %q, used for the paths of strict decoding errors. */
export function goQuote(s: string): string {
  let out = '"';
  for (let ch of s) {
    let c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) {
      ch = '\ufffd'; // a lone surrogate is invalid UTF-8 to Go's JSON decoder, which substitutes U+FFFD
      c = 0xfffd;
    }
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (c < 0x80 && c >= 0x20 && c !== 0x7f) out += ch;
    else if (NAMED_ESCAPES[ch]) out += NAMED_ESCAPES[ch];
    else if (c < 0x20 || c === 0x7f) out += '\\x' + hex2(c);
    else if (PRINTABLE.test(ch)) out += ch;
    else if (c < 0x10000) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += '\\U' + c.toString(16).padStart(8, '0');
  }
  return out + '"';
}

/** time.RFC3339, the layout of metav1.Time. */
export const RFC3339 = '2006-01-02T15:04:05Z07:00';
/** metav1.RFC3339Micro, the layout of metav1.MicroTime. */
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

type Std = 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'frac6' | 'tz';
/** The layouts cut the way nextStdChunk cuts them: [literal prefix, std element, its layout text]. */
const CHUNKS: Record<string, [string, Std, string][]> = {
  [RFC3339]: [
    ['', 'year', '2006'],
    ['-', 'month', '01'],
    ['-', 'day', '02'],
    ['T', 'hour', '15'],
    [':', 'minute', '04'],
    [':', 'second', '05'],
    ['', 'tz', 'Z07:00'],
  ],
  [RFC3339_MICRO]: [
    ['', 'year', '2006'],
    ['-', 'month', '01'],
    ['-', 'day', '02'],
    ['T', 'hour', '15'],
    [':', 'minute', '04'],
    [':', 'second', '05'],
    ['', 'frac6', '.000000'],
    ['', 'tz', 'Z07:00'],
  ],
};

const isDigitAt = (s: string, i: number): boolean => i < s.length && isDigitCode(s.charCodeAt(i));

/** getnum: one or two digits (fixed: exactly two). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigitAt(s, 0)) return undefined;
  if (!isDigitAt(s, 1)) return fixed ? undefined : [s.charCodeAt(0) - 48, s.slice(1)];
  return [(s.charCodeAt(0) - 48) * 10 + s.charCodeAt(1) - 48, s.slice(2)];
}

/** time's atoi: an optional sign, then only digits. */
function atoi(s: string): number | undefined {
  let neg = false;
  if (s.length > 0 && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (!/^[0-9]*$/.test(s)) return undefined;
  const x = s === '' ? 0 : Number(s);
  return neg ? -x : x;
}

/** parseNanoseconds: only its failure modes matter here. */
function nanosecondsError(value: string, nbytes: number): 'bad' | 'range' | undefined {
  if (value[0] !== '.' && value[0] !== ',') return 'bad';
  if (nbytes > 10) nbytes = 10;
  const ns = atoi(value.slice(1, nbytes));
  if (ns === undefined) return 'bad';
  if (ns < 0) return 'range';
  return undefined;
}

const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
}

/** What time.Parse made of a value: its error, or the value as metav1.Time / MicroTime write it back. */
export type GoTime = { error: string } | { error?: undefined; canonical: string | null };

/**
 * time.Parse(layout, value), ported from Go's general parser (time/format.go),
 * which accepts everything its RFC 3339 fast path accepts and produces every
 * error text. On success, `canonical` is what kube writes back: UTC, whole
 * seconds for Time and six fractional digits for MicroTime, null for Go's
 * zero time.
 */
export function parseGoTime(layout: typeof RFC3339 | typeof RFC3339_MICRO, input: string): GoTime {
  let value = utf8Bytes(input);
  const avalue = value;
  const cannot = (valueElem: string, layoutElem: string): GoTime => ({
    error: `parsing time ${timeQuoteBytes(avalue)} as ${timeQuoteBytes(layout)}: cannot parse ${timeQuoteBytes(valueElem)} as ${timeQuoteBytes(layoutElem)}`,
  });
  const message = (m: string): GoTime => ({ error: `parsing time ${timeQuoteBytes(avalue)}${m}` });
  let year = 0;
  let month = -1;
  let day = -1;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let fraction = ''; // fractional-second digits as written
  let offset = 0; // seconds east of UTC
  const chunks = CHUNKS[layout];
  for (let ci = 0; ci < chunks.length; ci++) {
    const [prefix, std, stdstr] = chunks[ci];
    if (prefix) {
      if (value.length === 0 || value[0] !== prefix) return cannot(value, prefix);
      value = value.slice(1);
    }
    const hold = value;
    let bad = false;
    let range = '';
    switch (std) {
      case 'year': {
        if (value.length < 4 || !isDigitAt(value, 0)) {
          bad = true;
          break;
        }
        const y = atoi(value.slice(0, 4));
        value = value.slice(4);
        if (y === undefined) bad = true;
        else year = y;
        break;
      }
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second': {
        const got = getnum(value, std !== 'hour');
        if (!got) {
          bad = true;
          break;
        }
        const [n, rest] = got;
        value = rest;
        if (std === 'month') {
          month = n;
          if (n <= 0 || n > 12) range = 'month';
        } else if (std === 'day') day = n;
        else if (std === 'hour') {
          hour = n;
          if (n >= 24) range = 'hour';
        } else if (std === 'minute') {
          minute = n;
          if (n >= 60) range = 'minute';
        } else {
          second = n;
          if (n >= 60) {
            range = 'second';
            break;
          }
          // A fractional second the layout does not name is still accepted.
          if (value.length >= 2 && (value[0] === '.' || value[0] === ',') && isDigitAt(value, 1)) {
            if (chunks[ci + 1]?.[1] === 'frac6') break;
            let k = 2;
            while (k < value.length && isDigitAt(value, k)) k++;
            const e = nanosecondsError(value, k);
            if (e === 'range') range = 'fractional second';
            else if (e) bad = true;
            fraction = value.slice(1, k);
            value = value.slice(k);
          }
        }
        break;
      }
      case 'frac6': {
        if (value.length < 7) {
          bad = true;
          break;
        }
        const e = nanosecondsError(value, 7);
        if (e === 'range') range = 'fractional second';
        else if (e) bad = true;
        fraction = value.slice(1, 7).replace(/^[+-]/, '');
        value = value.slice(7);
        break;
      }
      case 'tz': {
        if (value.length >= 1 && value[0] === 'Z') {
          value = value.slice(1);
          break;
        }
        if (value.length < 6 || value[3] !== ':') {
          bad = true;
          break;
        }
        const sign = value[0];
        const hr = getnum(value.slice(1, 3), true);
        const mm = hr && getnum(value.slice(4, 6), true);
        value = value.slice(6);
        if (!hr || !mm) bad = true;
        if ((hr?.[0] ?? 0) > 24) range = 'time zone offset hour';
        if ((mm?.[0] ?? 0) > 60) range = 'time zone offset minute';
        if (sign !== '+' && sign !== '-') bad = true;
        else offset = (sign === '-' ? -1 : 1) * ((hr?.[0] ?? 0) * 3600 + (mm?.[0] ?? 0) * 60);
        break;
      }
    }
    if (range) return message(`: ${range} out of range`);
    if (bad) return cannot(hold, stdstr);
  }
  if (value.length !== 0) return message(`: extra text: ${timeQuoteBytes(value)}`);
  if (day < 1 || day > daysIn(month, year)) return message(': day out of range');
  return { canonical: formatUTC(year, month, day, hour, minute, second - offset, fraction, layout === RFC3339_MICRO) };
}

/** The error time.Parse(layout, value) returns, or undefined when it parses. */
export function parseTimeError(layout: typeof RFC3339 | typeof RFC3339_MICRO, input: string): string | undefined {
  return parseGoTime(layout, input).error;
}

/** t.UTC().Format(RFC3339 or RFC3339Micro), or null for Go's zero time (0001-01-01T00:00:00Z). */
function formatUTC(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  fraction: string,
  micro: boolean,
): string | null {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  const digits = (fraction + '000000000').slice(0, 9);
  const zero =
    d.getUTCFullYear() === 1 &&
    d.getUTCMonth() === 0 &&
    d.getUTCDate() === 1 &&
    d.getUTCHours() === 0 &&
    d.getUTCMinutes() === 0 &&
    d.getUTCSeconds() === 0 &&
    /^0+$/.test(digits);
  if (zero) return null;
  const y = d.getUTCFullYear();
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  const yyyy = y < 0 ? '-' + pad(-y, 4) : pad(y, 4);
  const base = `${yyyy}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return micro ? `${base}.${digits.slice(0, 6)}Z` : `${base}Z`;
}

/** strconv.ParseInt(text, 10, 64) then reflect's OverflowInt for `bits`. */
export function intFits(text: string, bits: 8 | 16 | 32 | 64, unsigned: boolean): boolean {
  if (!/^-?[0-9]+$/.test(text)) return false;
  if (text.length <= 15) {
    const n = Number(text);
    if (unsigned) return n >= 0 && n < 2 ** bits && !text.startsWith('-');
    return n >= -(2 ** (bits - 1)) && n < 2 ** (bits - 1);
  }
  const n = BigInt(text);
  if (unsigned) return !text.startsWith('-') && n < 2n ** BigInt(bits);
  return n >= -(2n ** BigInt(bits - 1)) && n < 2n ** BigInt(bits - 1);
}
