// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and
// ValidatingAdmissionPolicyBinding: kube's defaults (failurePolicy Fail;
// matchPolicy Equivalent, empty namespace and object selectors, rule scope
// "*") and validation (pkg/apis/admissionregistration/validation), with
// every CEL expression compiled: an expression that does not compile, or
// evaluates to the wrong type, is a 422 on the write, as in kube.
import type {
  AuditAnnotation,
  MatchCondition,
  ParamKind,
  ParamRef,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  Validation,
  Variable,
} from 'kubernetes-types/admissionregistration/v1.js';
import { goQuote, isObject } from '../../../shared/patch/go-format.ts';
import { compilePolicy, type CompiledExpression, type CompiledValidation } from '../../admission/validating-admission-policy/compile.ts';
import type { Compiled } from '../../admission/validating-admission-policy/cel-env.ts';
import type { MatchResources, ResourceRule } from '../../admission/validating-admission-policy/matching.ts';
import { nameProblems } from '../names.ts';
import { child, fe, goStringSlice, index, type FieldError } from './field.ts';
import { qualifiedName, validateLabelSelector } from './validators.ts';

type Policy = ValidatingAdmissionPolicy & { spec?: { matchConstraints?: MatchResources } };
type Binding = ValidatingAdmissionPolicyBinding & { spec?: { matchResources?: MatchResources } };

const arr = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** Go's %#v of a slice of a named string type of the internal admissionregistration package. */
const goTyped = (type: string, v: unknown[]) => `[]admissionregistration.${type}{${v.map((x) => goQuote(String(x))).join(', ')}}`;

// ------------------------------------------------------------------ defaults

function defaultMatchResources(mr: MatchResources | undefined): void {
  if (!isObject(mr)) return;
  mr.matchPolicy ??= 'Equivalent';
  mr.namespaceSelector ??= {};
  mr.objectSelector ??= {};
  for (const r of [...arr(mr.resourceRules), ...arr(mr.excludeResourceRules)]) if (isObject(r)) r.scope ??= '*';
}

/** SetDefaults for a ValidatingAdmissionPolicy: failurePolicy Fail, and its matchConstraints'. */
export function defaultValidatingAdmissionPolicy(p: Policy): void {
  if (!isObject(p.spec)) return;
  p.spec.failurePolicy ??= 'Fail';
  defaultMatchResources(p.spec.matchConstraints);
}

/** SetDefaults for a ValidatingAdmissionPolicyBinding: its matchResources', when it has some. */
export function defaultValidatingAdmissionPolicyBinding(b: Binding): void {
  if (isObject(b.spec)) defaultMatchResources(b.spec.matchResources);
}

// ------------------------------------------------------------------ rules

const hasWildcard = (v: unknown[]) => v.includes('*');

/** kube's ValidatePathSegmentName. */
function pathSegmentProblems(name: string): string[] {
  return nameProblems(name, 'path-segment');
}

function validateResources(resources: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fe.required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((rs, i) => {
    if (rs === '') return void errs.push(fe.required(index(path, i)));
    if (rs === '*/*') doubleWildcard = true;
    if (rs === '*') singleWildcard = true;
    const slash = rs.indexOf('/');
    if (slash < 0) {
      withoutSub = rs !== '*';
      return;
    }
    const [res, sub] = [rs.slice(0, slash), rs.slice(slash + 1)];
    if (withWildcardSub.has(res)) errs.push(fe.invalid(index(path, i), rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (subWithWildcardRes.has(sub)) errs.push(fe.invalid(index(path, i), rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === '*') withWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard)
    errs.push(fe.invalidShown(path, goStringSlice(resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub)
    errs.push(fe.invalidShown(path, goStringSlice(resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

function validateRule(rule: ResourceRule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = arr(rule.operations);
  if (ops.length === 0) errs.push(fe.required(child(path, 'operations')));
  if (ops.length > 1 && hasWildcard(ops))
    errs.push(
      fe.invalidShown(child(path, 'operations'), goTyped('OperationType', ops), "if '*' is present, must not specify other operations"),
    );
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(fe.notSupported(index(child(path, 'operations'), i), op, OPERATIONS));
  });
  const groups = arr(rule.apiGroups);
  if (groups.length === 0) errs.push(fe.required(child(path, 'apiGroups')));
  if (groups.length > 1 && hasWildcard(groups))
    errs.push(fe.invalidShown(child(path, 'apiGroups'), goStringSlice(groups), "if '*' is present, must not specify other API groups"));
  const versions = arr(rule.apiVersions);
  if (versions.length === 0) errs.push(fe.required(child(path, 'apiVersions')));
  if (versions.length > 1 && hasWildcard(versions))
    errs.push(
      fe.invalidShown(child(path, 'apiVersions'), goStringSlice(versions), "if '*' is present, must not specify other API versions"),
    );
  versions.forEach((v, i) => {
    if (v === '') errs.push(fe.required(index(child(path, 'apiVersions'), i)));
  });
  errs.push(...validateResources(arr(rule.resources), child(path, 'resources')));
  if (rule.scope !== undefined && rule.scope !== null && !SCOPES.includes(rule.scope))
    errs.push(fe.notSupported(child(path, 'scope'), rule.scope, SCOPES));
  return errs;
}

function validateNamedRule(rule: ResourceRule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  arr(rule.resourceNames).forEach((n, i) => {
    const p = index(child(path, 'resourceNames'), i);
    for (const m of pathSegmentProblems(n)) errs.push(fe.invalid(p, n, m));
    if (seen.has(n)) errs.push(fe.duplicate(p, n));
    seen.add(n);
  });
  return [...errs, ...validateRule(rule, path)];
}

const MATCH_POLICIES = ['Equivalent', 'Exact'];

function validateMatchResources(mr: MatchResources | undefined | null, path: string): FieldError[] {
  if (!isObject(mr)) return [];
  const errs: FieldError[] = [];
  if (mr.matchPolicy === undefined || mr.matchPolicy === null) errs.push(fe.required(child(path, 'matchPolicy')));
  else if (!MATCH_POLICIES.includes(mr.matchPolicy)) errs.push(fe.notSupported(child(path, 'matchPolicy'), mr.matchPolicy, MATCH_POLICIES));
  for (const f of ['namespaceSelector', 'objectSelector'] as const) {
    if (mr[f] === undefined || mr[f] === null) errs.push(fe.required(child(path, f)));
    else errs.push(...validateLabelSelector(mr[f], child(path, f)));
  }
  arr(mr.resourceRules).forEach((r, i) => errs.push(...validateNamedRule(r, index(child(path, 'resourceRules'), i))));
  arr(mr.excludeResourceRules).forEach((r, i) => errs.push(...validateNamedRule(r, index(child(path, 'excludeResourceRules'), i))));
  return errs;
}

// ------------------------------------------------------------------ policies

function celError(path: string, expression: string, c: Compiled | undefined): FieldError[] {
  if (!c || !('error' in c)) return [];
  if (c.error.type === 'Internal')
    return [{ type: 'FieldValueInvalid', field: path, message: `${path}: Internal error: ${c.error.detail}` }];
  return [fe.invalid(path, expression, c.error.detail)];
}

function byIndex<T>(list: CompiledExpression<T>[]): Map<number, Compiled> {
  return new Map(list.map((c) => [c.index, c.compiled]));
}

function validateParamKind(pk: ParamKind, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const apiVersion = str(pk.apiVersion);
  const p = child(path, 'apiVersion');
  if (!apiVersion) errs.push(fe.required(p));
  else if (apiVersion !== '/') {
    const slashes = apiVersion.split('/').length - 1;
    if (slashes > 1) errs.push(fe.invalid(p, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = slashes === 0 ? ['', apiVersion] : apiVersion.split('/');
      if (group) {
        const probs = nameProblems(group, 'subdomain');
        if (probs.length) errs.push(fe.invalid(p, group, probs.join(',')));
      }
      if (!version) errs.push(fe.invalid(p, apiVersion, 'version must be specified'));
      else {
        const probs = nameProblems(version, 'dns1035');
        if (probs.length) errs.push(fe.invalid(p, version, probs.join(',')));
      }
    }
  }
  const kind = str(pk.kind);
  if (!kind) errs.push(fe.required(child(path, 'kind')));
  else {
    const probs = nameProblems(kind.toLowerCase(), 'dns1035');
    if (probs.length)
      errs.push(fe.invalid(child(path, 'kind'), kind, `may have mixed case, but should otherwise match: ${probs.join(',')}`));
  }
  return errs;
}

const CEL_RESERVED = new Set(
  'true false null in as break const continue else for function if import let loop package namespace return var void while'.split(' '),
);
const isCelIdentifier = (name: string) => /^[_a-zA-Z][_a-zA-Z0-9]*$/.test(name) && !CEL_RESERVED.has(name);

function validateMatchConditions(list: MatchCondition[], compiled: Map<number, Compiled>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (list.length > 64) errs.push(fe.tooMany(path, list.length, 64));
  const names = new Set<string>();
  list.forEach((m, i) => {
    const p = index(path, i);
    const expr = str(m?.expression).trim();
    if (!expr) errs.push(fe.required(child(p, 'expression')));
    else errs.push(...celError(child(p, 'expression'), expr, compiled.get(i)));
    const name = str(m?.name);
    if (!name) errs.push(fe.required(child(p, 'name')));
    else errs.push(...qualifiedName(name, child(p, 'name')));
    if (name) {
      if (names.has(name)) errs.push(fe.duplicate(child(p, 'name'), name));
      names.add(name);
    }
  });
  return errs;
}

function validateVariables(list: Variable[], compiled: Map<number, Compiled>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  list.forEach((v, i) => {
    const p = index(path, i);
    const name = str(v?.name);
    if (!name.trim()) errs.push(fe.required(child(p, 'name'), 'name is not specified'));
    else if (!isCelIdentifier(name)) errs.push(fe.invalid(child(p, 'name'), name, 'name is not a valid CEL identifier'));
    const expr = str(v?.expression);
    if (!expr.trim()) errs.push(fe.required(child(p, 'expression'), 'expression is not specified'));
    else errs.push(...celError(child(p, 'expression'), expr, compiled.get(i)));
  });
  return errs;
}

const REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];

function validateValidations(list: Validation[], compiled: CompiledValidation[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const byI = new Map(compiled.map((c) => [c.index, c]));
  list.forEach((v, i) => {
    const p = index(path, i);
    const expr = str(v?.expression);
    if (!expr.trim()) errs.push(fe.required(child(p, 'expression'), 'expression is not specified'));
    else errs.push(...celError(child(p, 'expression'), expr, byI.get(i)?.compiled));
    const msgExpr = str(v?.messageExpression);
    if (msgExpr.length > 0 && !msgExpr.trim())
      errs.push(fe.invalid(child(p, 'messageExpression'), msgExpr, 'must be non-empty if specified'));
    else if (msgExpr.trim()) errs.push(...celError(child(p, 'messageExpression'), msgExpr, byI.get(i)?.message));
    const msg = str(v?.message);
    if (msg.length > 0 && !msg.trim()) errs.push(fe.invalid(child(p, 'message'), msg, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(msg.trim())) errs.push(fe.invalid(child(p, 'message'), msg, 'message must not contain line breaks'));
    if (v?.reason !== undefined && v.reason !== null && !REASONS.includes(v.reason))
      errs.push(fe.notSupported(child(p, 'reason'), v.reason, REASONS));
  });
  return errs;
}

const MAX_AUDIT_ANNOTATIONS = 20;
const MAX_VALUE_EXPRESSION = 5 * 1024;

function validateAuditAnnotations(
  policyName: string,
  list: AuditAnnotation[],
  compiled: Map<number, Compiled>,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  if (list.length > MAX_AUDIT_ANNOTATIONS) {
    const shown = `[]admissionregistration.AuditAnnotation{${list
      .map((a) => `admissionregistration.AuditAnnotation{Key:${goQuote(str(a?.key))}, ValueExpression:${goQuote(str(a?.valueExpression))}}`)
      .join(', ')}}`;
    errs.push(fe.invalidShown(path, shown, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  }
  const keys = new Set<string>();
  list.forEach((a, i) => {
    const p = index(path, i);
    const key = str(a?.key);
    if (policyName) errs.push(...qualifiedName(`${policyName}/${key}`, child(p, 'key')));
    else errs.push(fe.invalid(child(p, 'key'), key, 'requires metadata.name be non-empty'));
    const value = str(a?.valueExpression);
    if (!value.trim()) errs.push(fe.required(child(p, 'valueExpression'), 'valueExpression is not specified'));
    else if (value.trim().length > MAX_VALUE_EXPRESSION)
      errs.push(fe.required(child(p, 'valueExpression'), `must not exceed ${MAX_VALUE_EXPRESSION} bytes in length`));
    else errs.push(...celError(child(p, 'valueExpression'), value, compiled.get(i)));
    if (keys.has(key)) errs.push(fe.duplicate(child(p, 'key'), key));
    keys.add(key);
  });
  return errs;
}

const FAILURE_POLICIES = ['Fail', 'Ignore'];

/** kube's ValidateValidatingAdmissionPolicy (and its Update: unchanged paramKind and matchConditions are not compiled again). */
export function validateValidatingAdmissionPolicy(p: Policy, old?: Policy): FieldError[] {
  const spec = isObject(p.spec) ? p.spec : {};
  const errs: FieldError[] = [];
  const compiled = compilePolicy(spec);
  if (spec.failurePolicy === undefined || spec.failurePolicy === null) errs.push(fe.required('spec.failurePolicy'));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy))
    errs.push(fe.notSupported('spec.failurePolicy', spec.failurePolicy, FAILURE_POLICIES));
  if (isObject(spec.paramKind)) errs.push(...validateParamKind(spec.paramKind, 'spec.paramKind'));
  if (!isObject(spec.matchConstraints)) errs.push(fe.required('spec.matchConstraints'));
  else {
    errs.push(...validateMatchResources(spec.matchConstraints, 'spec.matchConstraints'));
    if (arr(spec.matchConstraints.resourceRules).length === 0) errs.push(fe.required('spec.matchConstraints.resourceRules'));
  }
  const sameConditions =
    old !== undefined &&
    JSON.stringify(old.spec?.paramKind ?? null) === JSON.stringify(spec.paramKind ?? null) &&
    JSON.stringify(old.spec?.matchConditions ?? null) === JSON.stringify(spec.matchConditions ?? null);
  if (!sameConditions)
    errs.push(...validateMatchConditions(arr(spec.matchConditions), byIndex(compiled.matchConditions), 'spec.matchConditions'));
  errs.push(...validateVariables(arr(spec.variables), byIndex(compiled.variables), 'spec.variables'));
  const validations = arr(spec.validations);
  const annotations = arr(spec.auditAnnotations);
  if (validations.length === 0 && annotations.length === 0) {
    const why = 'validations or auditAnnotations must contain at least one item';
    errs.push(fe.required('spec.validations', why), fe.required('spec.auditAnnotations', why));
  } else {
    errs.push(...validateValidations(validations, compiled.validations, 'spec.validations'));
    errs.push(...validateAuditAnnotations(str(p.metadata?.name), annotations, byIndex(compiled.auditAnnotations), 'spec.auditAnnotations'));
  }
  return errs;
}

// ------------------------------------------------------------------ bindings

function validateParamRef(ref: ParamRef | undefined | null, path: string): FieldError[] {
  if (!isObject(ref)) return [];
  const errs: FieldError[] = [];
  const name = str(ref.name);
  const hasSelector = ref.selector !== undefined && ref.selector !== null;
  if (name) {
    for (const m of pathSegmentProblems(name)) errs.push(fe.invalid(child(path, 'name'), name, m));
    if (hasSelector) errs.push(fe.forbidden(child(path, 'name'), 'name and selector are mutually exclusive'));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(ref.selector, child(path, 'selector')));
    if (name) errs.push(fe.forbidden(child(path, 'selector'), 'name and selector are mutually exclusive'));
  }
  if (!name && !hasSelector) errs.push(fe.required(path, 'one of name or selector must be specified'));
  const action = str(ref.parameterNotFoundAction);
  if (!action) errs.push(fe.required(child(path, 'parameterNotFoundAction')));
  else if (action !== 'Deny' && action !== 'Allow')
    errs.push(fe.notSupported(child(path, 'parameterNotFoundAction'), action, ['Deny', 'Allow']));
  return errs;
}

const ACTIONS = ['Audit', 'Deny', 'Warn'];

function validateValidationActions(actions: string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  actions.forEach((a, i) => {
    if (!ACTIONS.includes(a)) errs.push(fe.notSupported(index(path, i), a, ACTIONS));
    if (seen.has(a)) errs.push(fe.duplicate(index(path, i), a));
    seen.add(a);
  });
  if (seen.has('Deny') && seen.has('Warn'))
    errs.push(
      fe.invalidShown(
        path,
        goTyped('ValidationAction', actions),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  if (seen.size === 0) errs.push(fe.required(path, 'at least one validation action is required'));
  return errs;
}

/** kube's ValidateValidatingAdmissionPolicyBinding (the same on update). */
export function validateValidatingAdmissionPolicyBinding(b: Binding): FieldError[] {
  const spec = isObject(b.spec) ? b.spec : {};
  const errs: FieldError[] = [];
  const policyName = str(spec.policyName);
  if (!policyName) errs.push(fe.required('spec.policyName'));
  else for (const m of nameProblems(policyName, 'subdomain')) errs.push(fe.invalid('spec.policyName', policyName, m));
  errs.push(...validateParamRef(spec.paramRef, 'spec.paramRef'));
  // kube's path has this spelling.
  errs.push(...validateMatchResources(spec.matchResources, 'spec.matchResouces'));
  errs.push(...validateValidationActions(arr(spec.validationActions), 'spec.validationActions'));
  return errs;
}
