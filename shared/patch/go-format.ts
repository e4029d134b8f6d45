// Renders decoded JSON the way Go's fmt and reflect print it, because kube's
// patch errors embed values with %v ("map[name:a value:b]") and type names
// ("map[string]interface {}"); ksim repeats those messages verbatim.

/** A decoded JSON object. */
export type JsonObject = { [key: string]: unknown };

/**
 * True for a JSON object (not null, not an array). A value typed as a kind's
 * field keeps its type (the checks guard JSON that may not match it); an
 * `unknown` one becomes a JsonObject.
 */
export function isObject<T>(v: T): v is T & JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own-property lookup, so keys such as "constructor" never reach the prototype. */
export function hasKey(obj: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** Sets a key safely, even "__proto__". */
export function setKey(obj: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/**
 * The Go kind of a value decoded the way kube decodes patches (integers as
 * int64, other numbers as float64): 'map', 'slice', 'string', 'int64',
 * 'float64', 'bool' or 'nil'.
 */
export function goKind(v: unknown): 'map' | 'slice' | 'string' | 'int64' | 'float64' | 'bool' | 'nil' {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return Number.isInteger(v) ? 'int64' : 'float64';
}

/** reflect.TypeOf(v) printed with %s, as mergepatch.ErrBadArgType shows it. */
export function goTypeName(v: unknown): string {
  switch (goKind(v)) {
    case 'map':
      return 'map[string]interface {}';
    case 'slice':
      return '[]interface {}';
    case 'nil':
      return '%!s(<nil>)';
    default:
      return goKind(v);
  }
}

/** A float64 as %v prints it: shortest digits, in exponent form below 1e-4 and from 1e6 up. */
function goFloat(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const [mantissa, expText] = n.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  return String(n);
}

/** A value as Go's %v prints the interface{} tree json.Unmarshal produces. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${keys.map((k) => `${k}:${goValue(v[k])}`).join(' ')}]`;
  }
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloat(v);
  if (typeof v === 'string' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  // Decoded JSON holds nothing else.
  return typeof v;
}

const goEscapes: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** A string as Go's %q prints it (exact for ASCII; other printable characters pass through). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (goEscapes[ch]) out += goEscapes[ch];
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A []string as Go's %q prints it: `["a" "b"]`. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map(goQuote).join(' ')}]`;
}

/** How encoding/json names a JSON value's type in "cannot unmarshal X into ..." errors. */
export function jsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** Structural equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => hasKey(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** A deep copy of a JSON value. */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}
