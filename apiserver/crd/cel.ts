// x-kubernetes-validations: the CEL rules of a CRD schema, compiled with
// @marcbachmann/cel-js in an environment with `self` and `oldSelf` plus
// kube's CEL library (the one ValidatingAdmissionPolicy registers), and
// evaluated on custom resource writes as kube's apiextensions CEL
// validator does: each rule on its node's value, transition rules (those
// that read oldSelf) only on an update where the old value is there, the
// message / messageExpression / reason / fieldPath of the rule.
import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import { registerKubeLibrary } from '../admission/validating-admission-policy/library.ts';
import { describeIssue } from '../admission/validating-admission-policy/cel-env.ts';
import { celErrorText } from '../admission/validating-admission-policy/evaluate.ts';
import { toCel } from '../admission/validating-admission-policy/values.ts';
import { fe, type FieldError } from '../registry/kinds/field.ts';
import { childPath, isJsonObject, type JSONSchemaProps, type ValidationRule } from './schema/index.ts';
import { goQuote } from '../../shared/patch/go-format.ts';

const OPTIONS = { enableOptionalTypes: true, homogeneousAggregateLiterals: false } as const;

let env: Environment | undefined;

function celEnv(): Environment {
  if (!env) {
    env = new Environment(OPTIONS);
    env.registerVariable('self', 'dyn');
    env.registerVariable('oldSelf', 'dyn');
    registerKubeLibrary(env);
  }
  return env;
}

interface CompiledRule {
  rule: ValidationRule;
  program?: ParseResult;
  messageProgram?: ParseResult;
  /** The rule reads oldSelf: a transition rule. */
  transition: boolean;
  error?: { field: 'rule' | 'messageExpression'; detail: string };
}

const cache = new Map<string, CompiledRule>();

type CelType = string | { [field: string]: CelType };

/**
 * The CEL type of a schema node, as kube declares `self` from the schema:
 * objects with properties are typed (so `self.nosuch` does not compile),
 * the rest as near as cel-js types go (formats, numbers and unknown fields
 * stay dyn). `root` adds what the object's own metadata exposes.
 */
export function celTypeOf(s: JSONSchemaProps | undefined, root = false): CelType {
  if (!s || s['x-kubernetes-int-or-string']) return 'dyn';
  switch (s.type) {
    case 'string':
      return s.format ? 'dyn' : 'string';
    case 'integer':
      return 'int';
    case 'boolean':
      return 'bool';
    case 'array': {
      const item = celTypeOf(s.items);
      return typeof item === 'string' ? `list<${item}>` : 'list<dyn>';
    }
    case 'object': {
      if (s.properties && !s['x-kubernetes-preserve-unknown-fields']) {
        const out: Record<string, CelType> = {};
        for (const [k, sub] of Object.entries(s.properties)) {
          if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) return 'dyn';
          out[k] = celTypeOf(sub);
        }
        if (root || s['x-kubernetes-embedded-resource']) {
          out.apiVersion = 'string';
          out.kind = 'string';
          out.metadata = { name: 'string', generateName: 'string' };
        }
        return out;
      }
      if (typeof s.additionalProperties === 'object') {
        const elem = celTypeOf(s.additionalProperties);
        return typeof elem === 'string' ? `map<string, ${elem}>` : 'map<string, dyn>';
      }
      return 'dyn';
    }
    default:
      return 'dyn';
  }
}

const typedEnvs = new Map<string, Environment>();

function envFor(type: CelType): Environment | undefined {
  if (type === 'dyn') return celEnv();
  const key = JSON.stringify(type);
  let e = typedEnvs.get(key);
  if (!e) {
    try {
      e = new Environment(OPTIONS);
      if (typeof type === 'string') {
        e.registerVariable('self', type);
        e.registerVariable('oldSelf', type);
      } else {
        e.registerVariable({ name: 'self', schema: type });
        e.registerVariable({ name: 'oldSelf', schema: type });
      }
      registerKubeLibrary(e);
    } catch {
      return undefined;
    }
    if (typedEnvs.size > 256) typedEnvs.delete(typedEnvs.keys().next().value!);
    typedEnvs.set(key, e);
  }
  return e;
}

type LocatedError = Parameters<typeof describeIssue>[1];

function compileIn(
  e: Environment,
  source: string,
  want: 'bool' | 'string',
): { program: ParseResult } | { detail: string; field?: boolean } {
  let program: ParseResult;
  try {
    program = e.parse(source);
  } catch (err) {
    return { detail: `compilation failed: ${describeIssue(source, err as LocatedError)}` };
  }
  const checked = e.check(source);
  if (!checked.valid) {
    const err = checked.error as LocatedError;
    return { detail: `compilation failed: ${describeIssue(source, err)}`, field: /^No such key: /.test(err.summary ?? err.message) };
  }
  const type = checked.type ?? 'dyn';
  if (type !== want && type !== 'dyn') return { detail: `must evaluate to ${want}` };
  return { program };
}

/**
 * Compiles an expression for `self` of `type`. An undefined field is an
 * error, as in kube; any other refusal of the typed check (where cel-js's
 * types are narrower than kube's) falls back to `self` as dyn.
 */
function compileOne(source: string, want: 'bool' | 'string', type: CelType): { program: ParseResult } | { detail: string } {
  const typed = envFor(type);
  if (typed && typed !== celEnv()) {
    const r = compileIn(typed, source, want);
    if ('program' in r || r.field) return r;
  }
  return compileIn(celEnv(), source, want);
}

/** Compiles a rule of the schema node `node` (cached by its text and the node's type). */
export function compileRule(rule: ValidationRule, node?: JSONSchemaProps, root = false): CompiledRule {
  const type = celTypeOf(node, root);
  const key = JSON.stringify([rule.rule, rule.messageExpression ?? '', type]);
  let c = cache.get(key);
  if (c) return { ...c, rule };
  const text = rule.rule ?? '';
  c = { rule, transition: /\boldSelf\b/.test(text) };
  const r = compileOne(text, 'bool', type);
  if ('detail' in r) c.error = { field: 'rule', detail: r.detail };
  else c.program = r.program;
  if (!c.error && rule.messageExpression) {
    const m = compileOne(rule.messageExpression, 'string', type);
    if ('detail' in m) c.error = { field: 'messageExpression', detail: m.detail };
    else c.messageProgram = m.program;
  }
  if (cache.size > 1024) cache.delete(cache.keys().next().value!);
  cache.set(key, c);
  return c;
}

/** Go's %#v of the internal apiextensions.ValidationRule, as kube's field error prints the rule. */
export function goValidationRule(r: ValidationRule): string {
  const ptr = (type: string, set: boolean) => (set ? `(*${type})(0xc000000000)` : `(*${type})(nil)`);
  return (
    `apiextensions.ValidationRule{Rule:${goQuote(r.rule ?? '')}, Message:${goQuote(r.message ?? '')}, ` +
    `MessageExpression:${goQuote(r.messageExpression ?? '')}, Reason:${ptr('apiextensions.FieldValueErrorReason', r.reason !== undefined)}, ` +
    `FieldPath:${goQuote(r.fieldPath ?? '')}, OptionalOldSelf:${ptr('bool', r.optionalOldSelf !== undefined)}}`
  );
}

/** The CRD-time errors of every rule in `schema` (`path` is the schema's field path, e.g. spec.versions[0].schema.openAPIV3Schema). */
export function validateSchemaRules(schema: JSONSchemaProps | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const visit = (s: JSONSchemaProps | undefined, p: string, root = false) => {
    if (!s || typeof s !== 'object') return;
    (s['x-kubernetes-validations'] ?? []).forEach((rule, i) => {
      const rp = `${p}.x-kubernetes-validations[${i}]`;
      if (!rule.rule) {
        errs.push(fe.required(`${rp}.rule`));
        return;
      }
      const c = compileRule(rule, s, root);
      if (c.error) errs.push(fe.invalidShown(`${rp}.${c.error.field}`, goValidationRule(rule), c.error.detail));
      if (rule.reason !== undefined && !REASONS.includes(rule.reason)) {
        errs.push(fe.notSupported(`${rp}.reason`, rule.reason, REASONS));
      }
    });
    for (const [k, sub] of Object.entries(s.properties ?? {})) visit(sub, `${p}.properties[${k}]`);
    if (isJsonObject(s.additionalProperties)) visit(s.additionalProperties, `${p}.additionalProperties`);
    if (s.items) visit(s.items, `${p}.items`);
  };
  visit(schema, path, true);
  return errs;
}

const REASONS = ['FieldValueRequired', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueDuplicate'];

function ruleError(rule: ValidationRule, path: string, typeName: string, message: string): FieldError {
  switch (rule.reason) {
    case 'FieldValueRequired':
      return fe.required(path, message);
    case 'FieldValueForbidden':
      return fe.forbidden(path, message);
    case 'FieldValueDuplicate':
      return fe.duplicate(path, message);
    default:
      return fe.invalid(path, typeName, message);
  }
}

/** A fieldPath (`.spec.x`, `.a['b']`, `.list[0]`) as a field error path below `base`. */
function fieldPathBelow(base: string, fieldPath: string): string {
  const parts = fieldPath.replace(/\['([^']*)'\]/g, '.$1').replace(/^\./, '');
  return parts ? (base ? `${base}.${parts}` : parts) : base;
}

/** The default message of a failed rule. */
function defaultMessage(rule: ValidationRule): string {
  return rule.message ? rule.message : `failed rule: ${rule.rule}`;
}

/**
 * Evaluates every rule of `schema` on `value` (and `old` on updates),
 * walking properties, map values and list items together.
 */
export function evaluateRules(value: unknown, old: unknown, schema: JSONSchemaProps | undefined, path = ''): FieldError[] {
  const errs: FieldError[] = [];
  walk(value, old, schema, path, errs, path === '');
  return errs;
}

function walk(value: unknown, old: unknown, s: JSONSchemaProps | undefined, path: string, errs: FieldError[], root = false): void {
  if (!s || value === undefined || value === null) return;
  const rules = s['x-kubernetes-validations'];
  if (rules?.length) {
    const typeName = s.type ?? (s['x-kubernetes-int-or-string'] ? 'integer' : 'object');
    const self = toCel(value);
    const oldSelf = old === undefined ? undefined : toCel(old);
    for (const rule of rules) {
      const c = compileRule(rule, s, root);
      if (!c.program) continue;
      if (c.transition && oldSelf === undefined && !rule.optionalOldSelf) continue;
      const at = rule.fieldPath ? fieldPathBelow(path, rule.fieldPath) : path;
      let result: unknown;
      try {
        result = c.program({ self, oldSelf: oldSelf ?? null });
      } catch (err) {
        errs.push(fe.invalid(at, typeName, `${celErrorText(err)} evaluating rule: ${rule.rule}`));
        continue;
      }
      if (result === true) continue;
      let message = defaultMessage(rule);
      if (c.messageProgram) {
        try {
          const m = c.messageProgram({ self, oldSelf: oldSelf ?? null });
          if (typeof m === 'string' && m.trim() !== '' && !m.includes('\n')) message = m;
        } catch {
          // kube falls back to the static message when the expression fails.
        }
      }
      errs.push(ruleError(rule, at, typeName, message));
    }
  }
  if (Array.isArray(value)) {
    if (s.items) value.forEach((item, i) => walk(item, undefined, s.items, `${path}[${i}]`, errs));
    return;
  }
  if (!isJsonObject(value)) return;
  const oldObj = isJsonObject(old) ? old : undefined;
  const props = s.properties ?? {};
  for (const [k, v] of Object.entries(value)) {
    const sub = props[k] ?? (isJsonObject(s.additionalProperties) ? s.additionalProperties : undefined);
    if (sub) walk(v, oldObj?.[k], sub, childPath(path, k), errs);
  }
}
