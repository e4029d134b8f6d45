// The fast path of the decode-time checks. Nearly every body a client sends
// is clean: no unknown or duplicate fields, no type or format errors, nothing
// Go would write back differently. For those, walking the already-parsed
// object against the schema answers "nothing to report" several times faster
// than the text scanner (decode-scan.ts), which walks every character to find
// the exact error kube would print. So: try the walk first, and fall back to
// the scanner whenever the walk is not certain, never to report anything
// itself. What only the text can tell (duplicate keys that JSON.parse merged,
// number spellings like 1.0 or 1e3 that Go rejects for integers, integers
// beyond double precision) comes from one cheap pass that counts members and
// looks at number literals.
import type { DecodeNode, StructNode } from './decode-schema.ts';
import { RFC3339, RFC3339_MICRO, base64DecodeError, intFits, parseGoTime, parseQuantityError } from './go-formats.ts';

/** The walk cannot vouch for the value: run the full scan. */
const UNSURE = -1;

/** Longest integer literal whose Number() prints back the same digits. */
const SAFE_DIGITS = 15;

/**
 * How many object members the JSON text has, outside strings (each has one
 * colon), or UNSURE when a number literal is one that JSON.parse would not
 * round-trip to the same text (fraction, exponent, -0, more than 15 digits).
 * The text is known to be valid JSON: JSON.parse accepted it.
 */
export function countMembers(text: string): number {
  let members = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = endOfString(text, i);
    } else if (c === 58) {
      members++;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      const start = i;
      let d = text.charCodeAt(i + 1);
      while (d >= 48 && d <= 57) d = text.charCodeAt(++i + 1);
      if (d === 46 || d === 101 || d === 69) return UNSURE;
      const length = i + 1 - start;
      if (length > SAFE_DIGITS || (c === 45 && length === 2 && text.charCodeAt(start + 1) === 48)) return UNSURE;
    }
  }
  return members;
}

/** The index of the quote that closes the string opening at `open`. */
function endOfString(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    let b = q - 1;
    while (text.charCodeAt(b) === 92) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    from = q + 1;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Walks a parsed struct against its schema; returns the number of object
 * members it holds (to compare with countMembers), or UNSURE when anything
 * would need the scanner: an unknown field, a null, a value of the wrong
 * type, a format error, or a value Go would rewrite (a non-canonical time or
 * base64 string).
 */
export function walkStruct(node: StructNode, obj: Record<string, unknown>): number {
  const fields = node.fields();
  let members = 0;
  for (const key in obj) {
    const field = fields.get(key);
    if (field === undefined) return UNSURE;
    const value = obj[key];
    if (value === null) {
      // Go leaves a struct field unset for a null, whatever its type (clients
      // send "eventTime": null and "creationTimestamp": null all the time). The
      // scanner would drop it the same way, so doing it here is safe either way.
      delete obj[key];
      members++;
      continue;
    }
    const counted = walkValue(field, value);
    if (counted === UNSURE) return UNSURE;
    members += 1 + counted;
  }
  return members;
}

function walkValue(node: DecodeNode, v: unknown): number {
  if (v === null) return UNSURE;
  switch (node.kind) {
    case 'struct':
      return isPlainObject(v) ? walkStruct(node, v) : UNSURE;
    case 'map': {
      if (!isPlainObject(v)) return UNSURE;
      let members = 0;
      for (const key in v) {
        const counted = walkValue(node.elem, v[key]);
        if (counted === UNSURE) return UNSURE;
        members += 1 + counted;
      }
      return members;
    }
    case 'slice': {
      if (!Array.isArray(v)) return UNSURE;
      let members = 0;
      for (const item of v) {
        const counted = walkValue(node.elem, item);
        if (counted === UNSURE) return UNSURE;
        members += counted;
      }
      return members;
    }
    case 'string':
      return typeof v === 'string' ? 0 : UNSURE;
    case 'bool':
      return typeof v === 'boolean' ? 0 : UNSURE;
    case 'float':
      return typeof v === 'number' ? 0 : UNSURE;
    case 'int':
      return typeof v === 'number' && Number.isInteger(v) && intFits(String(v), node.bits, node.unsigned) ? 0 : UNSURE;
    case 'intOrString':
      if (typeof v === 'string') return 0;
      return typeof v === 'number' && Number.isInteger(v) && intFits(String(v), 32, false) ? 0 : UNSURE;
    case 'quantity':
      if (typeof v === 'number') return parseQuantityError(String(v)) === undefined ? 0 : UNSURE;
      // Quantity strips the quotes without unescaping: text with escapes goes to the scanner.
      return typeof v === 'string' && !v.includes('\\') && v.trim() === v && parseQuantityError(v) === undefined ? 0 : UNSURE;
    case 'time':
      return typeof v === 'string' && isCanonicalTime(v, node.micro) ? 0 : UNSURE;
    case 'bytes':
      return typeof v === 'string' && base64DecodeError(v) === undefined && Buffer.from(v, 'base64').toString('base64') === v ? 0 : UNSURE;
    case 'raw':
      return countParsedMembers(v);
  }
}

/** Members of any parsed JSON value (for schemaless fields). */
function countParsedMembers(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  let members = 0;
  if (Array.isArray(v)) {
    for (const item of v) members += countParsedMembers(item);
    return members;
  }
  for (const key in v) members += 1 + countParsedMembers((v as Record<string, unknown>)[key]);
  return members;
}

const TIME_TEXT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const MICRO_TIME_TEXT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** Whether `text` parses as a metav1.Time (MicroTime) and Go writes it back unchanged; otherwise the scanner decides. */
function isCanonicalTime(text: string, micro: boolean): boolean {
  if (!(micro ? MICRO_TIME_TEXT : TIME_TEXT).test(text)) return false;
  const t = parseGoTime(micro ? RFC3339_MICRO : RFC3339, text);
  return t.error === undefined && t.canonical === text;
}
