// The small validators kube's validation packages share (apimachinery's
// util/validation and meta/v1/validation): DNS names, qualified names, label
// maps and selectors, config keys, ports, env var names, IPs and CIDRs.
import { isObject } from '../../../shared/patch/go-format.ts';
import { isIP } from 'node:net';
import { isLabelKey, isLabelValue } from '../../../shared/labels/index.ts';
import { regexError } from '../../../shared/labels/validation.ts';
import { nameProblems } from '../names.ts';
import type { LabelSelector } from 'kubernetes-types/meta/v1.js';
import { child, fe, index, sortedKeys, type FieldError } from './field.ts';

/** `ValidateDNS1123Label`. */
export function dns1123Label(value: string, path: string): FieldError[] {
  return nameProblems(value, 'label').map((m) => fe.invalid(path, value, m));
}

/** `ValidateDNS1123Subdomain`. */
export function dns1123Subdomain(value: string, path: string): FieldError[] {
  return nameProblems(value, 'subdomain').map((m) => fe.invalid(path, value, m));
}

/** `ValidateQualifiedName` (label keys, annotation keys, condition types...). */
export function qualifiedName(value: string, path: string): FieldError[] {
  return isLabelKey(value).map((m) => fe.invalid(path, value, m));
}

/** `ValidateLabels`: every key a qualified name, every value a label value. */
export function validateLabels(labels: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const k of sortedKeys(labels)) {
    errs.push(...qualifiedName(k, path));
    const v = String((labels as Record<string, unknown>)[k]);
    for (const m of isLabelValue(v)) errs.push(fe.invalid(path, v, m));
  }
  return errs;
}

/** `ValidateLabelSelector` (strict: label values in expressions must be valid). */
export function validateLabelSelector(sel: LabelSelector | null | undefined, path: string): FieldError[] {
  if (!isObject(sel)) return [];
  const errs = validateLabels(sel.matchLabels, child(path, 'matchLabels'));
  (Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []).forEach((expr, i) => {
    const p = index(child(path, 'matchExpressions'), i);
    const values: unknown[] = Array.isArray(expr?.values) ? expr.values : [];
    switch (expr?.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fe.required(child(p, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          errs.push(fe.forbidden(child(p, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fe.invalid(child(p, 'operator'), expr?.operator ?? '', 'not a valid selector operator'));
    }
    errs.push(...qualifiedName(String(expr?.key ?? ''), child(p, 'key')));
    values.forEach((v, j) => {
      for (const m of isLabelValue(String(v))) errs.push(fe.invalid(index(child(p, 'values'), j), v, m));
    });
  });
  return errs;
}

/** `IsConfigMapKey`: problems with a ConfigMap/Secret data key. */
export function configMapKeyProblems(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        '[-._a-zA-Z0-9]+',
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** `IsValidPortNum`. */
export function portNumProblems(port: unknown): string[] {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** `IsValidPortName` (an IANA_SVC_NAME). */
export function portNameProblems(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.length > 0 && (name.startsWith('-') || name.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** `ValidatePortNumOrName` for an IntOrString port. */
export function portNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'string') return portNameProblems(port).map((m) => fe.invalid(path, port, m));
  return portNumProblems(port).map((m) => fe.invalid(path, port ?? 0, m));
}

/** `IsRelaxedEnvVarName` (RelaxedEnvironmentVariableValidation is on by default). */
export function envVarNameProblems(name: string): string[] {
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || c > 0x7e || ch === '=')
      return ["a valid environment variable name must consist only of printable ASCII characters other than '='"];
  }
  return [];
}

/** `IsValidIP`. */
export function validIP(value: string, path: string): FieldError[] {
  return isIP(value) ? [] : [fe.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')];
}

/** `IsValidCIDR`. */
export function validCIDR(value: string, path: string): FieldError[] {
  const [ip, bits, extra] = value.split('/');
  const family = isIP(ip ?? '');
  const n = Number(bits);
  const ok = extra === undefined && family !== 0 && /^\d+$/.test(bits ?? '') && n <= (family === 4 ? 32 : 128);
  return ok ? [] : [fe.invalid(path, value, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)')];
}

/** `InclusiveRangeError`. */
export function inclusiveRange(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}
