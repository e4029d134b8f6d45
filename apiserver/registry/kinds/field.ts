// Field-error helpers for the per-kind rules: kube's field.Error types that
// shared/api/errors.ts has no builder for, the Go `%#v` renderings kube puts
// in "Invalid value: ..." (maps, label selectors, IntOrString, byte slices),
// path building, and the semantic equality kube's update checks use.
import { fieldError, type FieldError } from '../../../shared/api/errors.ts';
import { goQuote, isObject } from '../../../shared/patch/go-format.ts';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';

export { fieldError, type FieldError };

// kube has more field.Error types than FieldError's union names; their causes
// still carry kube's reason.
const NOT_FOUND = 'FieldValueNotFound' as FieldError['type'];
const TOO_MANY = 'FieldValueTooMany' as FieldError['type'];

/** A value as kube's field.Error prints it when no Go type name is needed. */
export function show(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** Builders on top of errors.ts's `fieldError`, with Go-faithful value printing. */
export const fe = {
  required: (field: string, detail = ''): FieldError => fieldError.required(field, detail),
  forbidden: (field: string, detail: string): FieldError => fieldError.forbidden(field, detail),
  /** `<field>: Invalid value: <value>: <detail>`, strings quoted as Go's %q does. */
  invalid(field: string, value: unknown, detail: string): FieldError {
    return fe.invalidShown(field, show(value), detail);
  },
  /** Invalid with a value already rendered (e.g. by one of the go* printers below). */
  invalidShown(field: string, shown: string, detail: string): FieldError {
    return { type: 'FieldValueInvalid', field, message: `${field}: Invalid value: ${shown}${detail ? `: ${detail}` : ''}` };
  },
  /** Invalid with the value omitted (kube's field.OmitValueType). */
  invalidNoValue(field: string, detail: string): FieldError {
    return { type: 'FieldValueInvalid', field, message: `${field}: Invalid value${detail ? `: ${detail}` : ''}` };
  },
  notSupported(field: string, value: unknown, supported: string[]): FieldError {
    const list = supported.map((s) => goQuote(s)).join(', ');
    return { type: 'FieldValueNotSupported', field, message: `${field}: Unsupported value: ${show(value)}: supported values: ${list}` };
  },
  duplicate(field: string, value: unknown): FieldError {
    return fe.duplicateShown(field, show(value));
  },
  duplicateShown(field: string, shown: string): FieldError {
    return { type: 'FieldValueDuplicate', field, message: `${field}: Duplicate value: ${shown}` };
  },
  notFound(field: string, value: unknown): FieldError {
    return { type: NOT_FOUND, field, message: `${field}: Not found: ${show(value)}` };
  },
  tooLong(field: string, max: number): FieldError {
    return { type: 'FieldValueTooLong', field, message: `${field}: Too long: may not be more than ${max} bytes` };
  },
  tooMany(field: string, actual: number, max: number): FieldError {
    return { type: TOO_MANY, field, message: `${field}: Too many: ${actual}: must have at most ${max} items` };
  },
};

/** `parent.child`, or `child` at the root. */
export function child(parent: string, name: string): string {
  return parent ? `${parent}.${name}` : name;
}

/** `parent[i]` (kube prints map keys the same way: `limits[cpu]`). */
export function index(parent: string, i: number | string): string {
  return `${parent}[${i}]`;
}

/** Go's `%#v` of a map[string]string: `map[string]string{"a":"b", "c":"d"}`, nil as `map[string]string(nil)`. */
export function goStringMap(m: Record<string, unknown> | null | undefined): string {
  if (m === null || m === undefined || typeof m !== 'object') return 'map[string]string(nil)';
  const keys = Object.keys(m).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(m[k]))}`).join(', ')}}`;
}

/** Go's `%#v` of a []string. */
export function goStringSlice(a: unknown[] | null | undefined): string {
  if (!Array.isArray(a)) return '[]string(nil)';
  return `[]string{${a.map((s) => goQuote(String(s))).join(', ')}}`;
}

/** Go's `%#v` of a []byte. */
export function goBytes(b: Uint8Array | null | undefined): string {
  if (!b) return '[]byte(nil)';
  return `[]byte{${Array.from(b, (x) => `0x${x.toString(16)}`).join(', ')}}`;
}

/** Go's `%#v` of a metav1.LabelSelector (what "Invalid value" shows for selectors). */
export function goLabelSelector(sel: LabelSelector | null | undefined): string {
  if (sel === null || sel === undefined) return 'null';
  const exprs = Array.isArray(sel.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions
        .map(
          (e) =>
            `v1.LabelSelectorRequirement{Key:${goQuote(String(e?.key ?? ''))}, Operator:${goQuote(String(e?.operator ?? ''))}, Values:${goStringSlice(e?.values)}}`,
        )
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return `v1.LabelSelector{MatchLabels:${goStringMap(sel.matchLabels)}, MatchExpressions:${exprs}}`;
}

/**
 * `String(v)` of a decoded JSON value, spelled out: a value that should have
 * been a string may be anything a client sent (an object prints as
 * "[object Object]", an array as its joined elements).
 */
export function jsonText(v: unknown): string {
  if (v === null || v === undefined || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')
    return String(v);
  if (Array.isArray(v)) return v.map((x: unknown) => (x === null || x === undefined ? '' : jsonText(x))).join(',');
  return '[object Object]';
}

/** Go's `%#v` of an intstr.IntOrString. */
export function goIntOrString(v: unknown): string {
  if (typeof v === 'number') return `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`;
  return `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(jsonText(v ?? ''))}}`;
}

function isZeroish(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v).every(isZeroish);
  return false;
}

/**
 * kube's apiequality.Semantic.DeepEqual on decoded JSON: nil and empty
 * slices/maps are equal, and (since Go structs hold zero values) a missing
 * field equals its zero value.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isZeroish(a) && isZeroish(b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => semanticEqual(x, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!semanticEqual(ao[k], bo[k])) return false;
  return true;
}

/**
 * Go's zero value of a struct as JSON: an empty object, although
 * kubernetes-types marks some of its fields required (validation then
 * reports them missing, as kube does).
 */
export function zero<T extends object>(): T {
  return {} as T;
}

/** Keys of a map in Go's sorted order (kube iterates maps randomly; sorted keeps messages stable). */
export function sortedKeys(m: unknown): string[] {
  return isObject(m) ? Object.keys(m).sort() : [];
}

/** `ValidateNonnegativeField`: `<field>: Invalid value: -1: must be greater than or equal to 0`. */
export function nonNegative(value: unknown, field: string): FieldError[] {
  return typeof value === 'number' && value < 0 ? [fe.invalid(field, value, 'must be greater than or equal to 0')] : [];
}
