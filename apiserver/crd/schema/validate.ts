// Validation of a custom resource against its CRD's structural schema, with
// the messages kube-apiserver's OpenAPI validator (kube-openapi's
// validate package, through apiextensions' kubeOpenAPIResultToFieldErrors)
// gives: `spec.replicas: Invalid value: "string": spec.replicas in body must
// be of type integer: "string"`, `spec.size: Unsupported value: ...`,
// `spec.name: Required value`. Plus the list-type uniqueness kube checks
// beside it (x-kubernetes-list-type set / map).
import { fe, type FieldError } from '../../registry/kinds/field.ts';
import { deepEqual } from '../../../shared/util/deep-equal.ts';
import { checkFormat } from './formats.ts';
import { childPath, isJsonObject, type JSONSchemaProps } from './types.ts';

/** The JSON type name kube-openapi reports for a value. */
export function jsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isJsonObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    default:
      return true;
  }
}

const inBody = (path: string) => `${path} in body`;

/** A type error: TypeInvalid with the actual type's name as its value. */
function typeError(path: string, want: string, actual: string): FieldError {
  const e = fe.invalid(path, actual, `${inBody(path)} must be of type ${want}: ${JSON.stringify(actual)}`);
  return { ...e, type: 'FieldValueTypeInvalid' as FieldError['type'] };
}

/** Go's %v of a float64 bound as kube-openapi prints it. */
function num(n: number): string {
  return String(n);
}

/**
 * Validates `value` at `path` against `schema`; at the root (path '') the
 * object's metadata, apiVersion and kind are left to the generic checks.
 */
export function validateValue(value: unknown, schema: JSONSchemaProps | undefined, path = ''): FieldError[] {
  const errs: FieldError[] = [];
  if (schema) walk(value, schema, path, errs, path === '');
  return errs;
}

function walk(value: unknown, s: JSONSchemaProps, path: string, errs: FieldError[], root: boolean): void {
  // A member set to undefined is absent (it is not serialized).
  if (value === undefined) return;
  if (value === null) {
    if (s.nullable) return;
    if (s['x-kubernetes-int-or-string']) {
      errs.push(typeError(path, 'integer,string', 'null'));
      return;
    }
    if (s.type) errs.push(typeError(path, s.type, 'null'));
    return;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (!(typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)))) {
      errs.push(typeError(path, 'integer,string', jsonTypeName(value)));
      return;
    }
  } else if (s.type && !typeMatches(s.type, value)) {
    errs.push(typeError(path, s.type, jsonTypeName(value)));
    return;
  }
  if (s.enum && s.enum.length > 0 && !s.enum.some((e) => deepEqual(e, value))) {
    const values = s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
    errs.push(fe.notSupported(path, value, values));
  }
  if (typeof value === 'number') numberChecks(value, s, path, errs);
  if (typeof value === 'string') stringChecks(value, s, path, errs);
  if (Array.isArray(value)) arrayChecks(value, s, path, errs);
  if (isJsonObject(value)) objectChecks(value, s, path, errs, root);
  for (const sub of s.allOf ?? []) walk(value, sub, path, errs, root);
}

function numberChecks(v: number, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum) {
      const how = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
      errs.push(fe.invalid(path, v, `${inBody(path)} should be ${how} ${num(s.maximum)}`));
    }
  }
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum) {
      const how = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
      errs.push(fe.invalid(path, v, `${inBody(path)} should be ${how} ${num(s.minimum)}`));
    }
  }
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) errs.push(fe.invalid(path, v, `${inBody(path)} should be a multiple of ${num(s.multipleOf)}`));
  }
}

/** Length in characters (runes), as kube-openapi counts with utf8.RuneCountInString. */
function runes(v: string): number {
  let n = 0;
  for (const _ of v) n++;
  return n;
}

const patternCache = new Map<string, RegExp | null>();

function compiled(pattern: string): RegExp | null {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern, 'u');
    } catch {
      re = null;
    }
    patternCache.set(pattern, re);
  }
  return re;
}

function stringChecks(v: string, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (s.maxLength !== undefined && runes(v) > s.maxLength) errs.push(fe.tooLong(path, s.maxLength));
  if (s.minLength !== undefined && runes(v) < s.minLength) {
    errs.push(fe.invalid(path, v, `${inBody(path)} should be at least ${s.minLength} chars long`));
  }
  if (s.pattern !== undefined) {
    const re = compiled(s.pattern);
    if (re && !re.test(v)) errs.push(fe.invalid(path, v, `${inBody(path)} should match '${s.pattern}'`));
  }
  if (s.format && !s['x-kubernetes-int-or-string'] && !checkFormat(s.format, v)) {
    errs.push(fe.invalid(path, v, `${inBody(path)} must be of type ${s.format}: ${JSON.stringify(v)}`));
  }
}

function arrayChecks(v: unknown[], s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (s.maxItems !== undefined && v.length > s.maxItems) errs.push(fe.tooMany(path, v.length, s.maxItems));
  if (s.minItems !== undefined && v.length < s.minItems) {
    errs.push(fe.invalid(path, v.length, `${inBody(path)} should have at least ${s.minItems} items`));
  }
  if (s.items) v.forEach((item, i) => walk(item, s.items!, `${path}[${i}]`, errs, false));
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') {
    v.forEach((item, i) => {
      if (v.slice(0, i).some((prev) => deepEqual(prev, item))) errs.push(fe.duplicate(`${path}[${i}]`, item));
    });
  } else if (listType === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const seen: Record<string, unknown>[] = [];
    v.forEach((item, i) => {
      if (!isJsonObject(item)) return;
      const k: Record<string, unknown> = {};
      for (const key of keys) if (item[key] !== undefined) k[key] = item[key];
      if (seen.some((prev) => deepEqual(prev, k))) errs.push(fe.duplicateShown(`${path}[${i}]`, goInterfaceMap(k)));
      seen.push(k);
    });
  }
}

/** Go's %#v of a map[string]interface{}, as kube prints a duplicate list-map key. */
function goInterfaceMap(m: Record<string, unknown>): string {
  const parts = Object.keys(m)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${typeof m[k] === 'string' ? JSON.stringify(m[k]) : String(m[k])}`);
  return `map[string]interface {}{${parts.join(', ')}}`;
}

function objectChecks(v: Record<string, unknown>, s: JSONSchemaProps, path: string, errs: FieldError[], root: boolean): void {
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties) errs.push(fe.tooMany(path, n, s.maxProperties));
  if (s.minProperties !== undefined && n < s.minProperties) {
    errs.push(fe.invalid(path, n, `${inBody(path)} should have at least ${s.minProperties} properties`));
  }
  for (const name of s.required ?? []) {
    if (!(name in v) || v[name] === undefined) errs.push(fe.required(childPath(path, name)));
  }
  const props = s.properties ?? {};
  for (const [k, child] of Object.entries(v)) {
    if (root && (k === 'metadata' || k === 'apiVersion' || k === 'kind')) continue;
    const sub = props[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    if (sub) walk(child, sub, childPath(path, k), errs, false);
  }
  if (s['x-kubernetes-embedded-resource']) {
    if (typeof v.apiVersion !== 'string' || v.apiVersion === '') errs.push(fe.required(childPath(path, 'apiVersion'), 'must not be empty'));
    if (typeof v.kind !== 'string' || v.kind === '') errs.push(fe.required(childPath(path, 'kind'), 'must not be empty'));
  }
}
