// Secrets and ConfigMaps: defaults (type Opaque, stringData folded into
// data), base64 checks with Go's decoder errors, and ValidateSecret /
// ValidateConfigMap with their update rules (type and immutable data).
import { isObject } from '../../../shared/patch/go-format.ts';
import { fe, index, semanticEqual, sortedKeys, type FieldError } from './field.ts';
import { configMapKeyProblems } from './validators.ts';
import type { ConfigMap, Secret } from 'kubernetes-types/core/v1.js';

const MAX_SIZE = 1024 * 1024;
const B64 = /^[A-Za-z0-9+/]$/;

/**
 * Go's base64.StdEncoding error for `s` ("illegal base64 data at input byte
 * N"), or undefined when it decodes. \r and \n are skipped, as Go does.
 */
export function base64Problem(s: string): string | undefined {
  const src = Buffer.from(s, 'utf8');
  const bad = (n: number) => `illegal base64 data at input byte ${n}`;
  const isNl = (b: number) => b === 0x0a || b === 0x0d;
  let si = 0;
  for (;;) {
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return bad(si - j);
      }
      const ch = src[si++];
      if (B64.test(String.fromCharCode(ch))) continue;
      if (isNl(ch)) {
        j--;
        continue;
      }
      if (ch !== 0x3d) return bad(si - 1);
      if (j < 2) return bad(si - 1);
      if (j === 2) {
        while (si < src.length && isNl(src[si])) si++;
        if (si === src.length) return bad(src.length);
        if (src[si] !== 0x3d) return bad(si - 1);
        si++;
      }
      while (si < src.length && isNl(src[si])) si++;
      if (si < src.length) return bad(si);
      return undefined;
    }
  }
}

/** The decoded bytes of a valid base64 value. */
function decoded(s: string): Buffer {
  return Buffer.from(s.replace(/[\r\n]/g, ''), 'base64');
}

function canonicalBase64(map: unknown): void {
  if (!isObject(map)) return;
  for (const k of Object.keys(map)) {
    const v = map[k];
    if (typeof v === 'string' && base64Problem(v) === undefined) map[k] = decoded(v).toString('base64');
  }
}

/** SetDefaults_Secret, and the v1 conversion that folds stringData into data. */
export function defaultSecret(secret: Secret): void {
  if (!secret.type) secret.type = 'Opaque';
  if (isObject(secret.stringData)) {
    const data = isObject(secret.data) ? secret.data : {};
    for (const k of Object.keys(secret.stringData)) data[k] = Buffer.from(String(secret.stringData[k]), 'utf8').toString('base64');
    secret.data = data;
  }
  delete secret.stringData;
  canonicalBase64(secret.data);
}

/** Checks each value of a base64 map (kube reports these while decoding, as a 400). */
function validateBase64Map(map: unknown, path: string): { errs: FieldError[]; size: number; values: Map<string, Buffer> } {
  const errs: FieldError[] = [];
  const values = new Map<string, Buffer>();
  let size = 0;
  for (const k of sortedKeys(map)) {
    const v = (map as Record<string, unknown>)[k];
    if (v === null) continue;
    const s = typeof v === 'string' ? v : '';
    const problem = typeof v === 'string' ? base64Problem(s) : 'must be a base64-encoded string';
    if (problem) {
      errs.push(fe.invalid(index(path, k), '<secret contents redacted>', problem));
      continue;
    }
    const b = decoded(s);
    values.set(k, b);
    size += b.length;
  }
  return { errs, size, values };
}

function jsonProblem(b: Buffer): string | undefined {
  const text = b.toString('utf8');
  if (text.trim() === '') return 'unexpected end of JSON input';
  try {
    const v = JSON.parse(text);
    if (!isObject(v))
      return `json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type map[string]interface {}`;
    return undefined;
  } catch {
    const c = text.trim()[0];
    return `invalid character '${c}' looking for beginning of value`;
  }
}

/** ValidateSecret, or ValidateSecretUpdate with `old`. */
export function validateSecret(secret: Secret, old?: Secret): FieldError[] {
  const errs: FieldError[] = [];
  if (old) {
    if ((secret.type ?? '') !== (old.type ?? '')) errs.push(fe.invalid('type', secret.type ?? '', 'field is immutable'));
    if (old.immutable === true) {
      if (secret.immutable !== true) errs.push(fe.forbidden('immutable', 'field is immutable when `immutable` is set'));
      if (!semanticEqual(secret.data, old.data)) errs.push(fe.forbidden('data', 'field is immutable when `immutable` is set'));
    }
  }
  const { errs: b64, size, values } = validateBase64Map(secret.data, 'data');
  for (const k of sortedKeys(secret.data)) {
    for (const m of configMapKeyProblems(k)) errs.push(fe.invalid(index('data', k), k, m));
  }
  errs.push(...b64);
  if (size > MAX_SIZE) errs.push(fe.tooLong('data', MAX_SIZE));
  const has = (k: string) => isObject(secret.data) && k in secret.data;
  switch (secret.type ?? '') {
    case 'kubernetes.io/service-account-token':
      if (!secret.metadata?.annotations?.['kubernetes.io/service-account.name']) {
        errs.push(fe.required('metadata.annotations[kubernetes.io/service-account.name]'));
      }
      break;
    case 'kubernetes.io/dockercfg':
    case 'kubernetes.io/dockerconfigjson': {
      const key = secret.type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
      if (!has(key)) {
        errs.push(fe.required(index('data', key)));
        break;
      }
      const b = values.get(key);
      const problem = b ? jsonProblem(b) : undefined;
      if (problem) errs.push(fe.invalid(index('data', key), '<secret contents redacted>', problem));
      break;
    }
    case 'kubernetes.io/basic-auth':
      if (!has('username') && !has('password')) errs.push(fe.required('data[username]'), fe.required('data[password]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (!(values.get('ssh-privatekey')?.length ?? 0)) errs.push(fe.required('data[ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) errs.push(fe.required('data[tls.crt]'));
      if (!has('tls.key')) errs.push(fe.required('data[tls.key]'));
      break;
  }
  return errs;
}

/** ConfigMap defaults: binaryData re-encoded as kube re-encodes []byte. */
export function defaultConfigMap(cm: ConfigMap): void {
  canonicalBase64(cm.binaryData);
}

/** ValidateConfigMap, or ValidateConfigMapUpdate with `old`. */
export function validateConfigMap(cm: ConfigMap, old?: ConfigMap): FieldError[] {
  const errs: FieldError[] = [];
  if (old && old.immutable === true) {
    if (cm.immutable !== true) errs.push(fe.forbidden('immutable', 'field is immutable when `immutable` is set'));
    if (!semanticEqual(cm.data, old.data)) errs.push(fe.forbidden('data', 'field is immutable when `immutable` is set'));
    if (!semanticEqual(cm.binaryData, old.binaryData)) errs.push(fe.forbidden('binaryData', 'field is immutable when `immutable` is set'));
  }
  let size = 0;
  for (const k of sortedKeys(cm.data)) {
    for (const m of configMapKeyProblems(k)) errs.push(fe.invalid(index('data', k), k, m));
    if (isObject(cm.binaryData) && k in cm.binaryData) errs.push(fe.invalid(index('data', k), k, 'duplicate of key present in binaryData'));
    size += Buffer.byteLength(String(cm.data?.[k] ?? ''), 'utf8');
  }
  for (const k of sortedKeys(cm.binaryData)) {
    for (const m of configMapKeyProblems(k)) errs.push(fe.invalid(index('binaryData', k), k, m));
  }
  const { errs: b64, size: binSize } = validateBase64Map(cm.binaryData, 'binaryData');
  errs.push(...b64);
  if (size + binSize > MAX_SIZE) errs.push(fe.tooLong('[]', MAX_SIZE));
  return errs;
}
