// The type checking kube's ValidatingAdmissionPolicy status controller
// reports in status.typeChecking (apiserver/pkg/admission/plugin/policy/
// validating/typechecking.go): each validation's expression and
// messageExpression checked against the schema of every kind the policy's
// resourceRules name (rules with a wildcard are not checked, as in kube).
// Here the check is the one users meet most: a field selected on `object`
// or `oldObject` (or `params`) that the kind's schema does not have, with
// cel-go's "undefined field" message and caret. What cel-go's typed check
// finds beyond that (wrong operand types on typed fields) is not found.
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { findResource, findResourceByKind } from '../../../shared/api/resources.ts';
import { fieldOf, typeFor, typeForKind, type SchemaField } from '../../../shared/api/schema/index.ts';
import { parse, type ASTNode } from '@marcbachmann/cel-js';
import type { MatchResources } from './matching.ts';

/** One status.typeChecking.expressionWarnings item. */
export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

const gvkString = (g: Gvk) => `${g.group}/${g.version}, Kind=${g.kind}`;

/** The kinds the policy's resource rules name without wildcards, sorted by group, version and kind. */
export function kindsToCheck(policy: ValidatingAdmissionPolicy): Gvk[] {
  const mr: MatchResources | undefined = policy.spec?.matchConstraints;
  const out = new Map<string, Gvk>();
  for (const rule of mr?.resourceRules ?? []) {
    const groups = rule.apiGroups ?? [];
    const versions = rule.apiVersions ?? [];
    const resources = rule.resources ?? [];
    if ([...groups, ...versions, ...resources].some((x) => x.includes('*'))) continue;
    for (const group of groups)
      for (const version of versions)
        for (const res of resources) {
          if (res.includes('/')) continue;
          const rt = findResource(group, version, res);
          if (rt) out.set(`${group}/${version}/${rt.kind}`, { group, version, kind: rt.kind });
        }
  }
  return [...out.values()].sort(
    (a, b) => a.group.localeCompare(b.group) || a.version.localeCompare(b.version) || a.kind.localeCompare(b.kind),
  );
}

/** A position in the schema: an object type by name, or a field schema. */
type Place = { type: string } | { field: SchemaField } | undefined;

function fieldsOf(p: Place): string | undefined {
  if (!p) return undefined;
  if ('type' in p) return typeFor(p.type)?.special ? undefined : p.type;
  return p.field.type === 'ref' && p.field.ref && !typeFor(p.field.ref)?.special ? p.field.ref : undefined;
}

function elementOf(p: Place): Place {
  if (!p || 'type' in p) return undefined;
  const f = p.field;
  if (f.type === 'array' && f.items) return { field: f.items };
  if (f.type === 'object' && f.additionalProperties) return { field: f.additionalProperties };
  return undefined;
}

interface Issue {
  at: number;
  message: string;
}

/** The undefined fields `expression` selects on the typed roots. */
function undefinedFields(expression: string, roots: Record<string, string | undefined>): Issue[] {
  let ast: ASTNode;
  try {
    ast = parse(expression).ast;
  } catch {
    return []; // validation reports what does not parse
  }
  const issues: Issue[] = [];
  const places = new Map<ASTNode, Place>();
  const resolve = (n: ASTNode): Place => {
    if (places.has(n)) return places.get(n);
    let p: Place;
    if (n.op === 'id') {
      const t = roots[n.args];
      p = t ? { type: t } : undefined;
    } else if (n.op === '.' || n.op === '.?') {
      const [operand, name] = n.args;
      const type = fieldsOf(resolve(operand));
      if (type) {
        const f = fieldOf(type, name);
        if (f) p = { field: f };
        else {
          const dot = expression.indexOf('.', operand.range.end);
          issues.push({ at: dot < 0 ? n.range.start : dot, message: `undefined field '${name}'` });
        }
      }
    } else if (n.op === '[]' || n.op === '[?]') {
      p = elementOf(resolve(n.args[0]));
    }
    places.set(n, p);
    return p;
  };
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== 'object' || !('op' in v)) return;
    const n = v as ASTNode;
    resolve(n);
    visit(n.args);
  };
  visit(ast);
  return issues.sort((a, b) => a.at - b.at);
}

/** cel-go's Issues.String() for issues of one expression. */
function issuesText(expression: string, issues: Issue[]): string {
  return issues
    .map((i) => {
      const before = expression.slice(0, i.at);
      const line = before.split('\n').length;
      const col = i.at - (before.lastIndexOf('\n') + 1);
      const text = expression.split('\n')[line - 1] ?? '';
      return `ERROR: <input>:${line}:${col + 1}: ${i.message}\n | ${text}\n | ${'.'.repeat(col)}^`;
    })
    .join('\n');
}

/** kube's TypeChecker.Check: the expression warnings of `policy`. */
export function typeCheck(policy: ValidatingAdmissionPolicy): ExpressionWarning[] {
  const kinds = kindsToCheck(policy);
  if (kinds.length === 0) return [];
  const pk = policy.spec?.paramKind;
  let params: string | undefined;
  if (pk?.kind) {
    const [group, version] = (pk.apiVersion ?? '').includes('/') ? pk.apiVersion!.split('/', 2) : ['', pk.apiVersion ?? ''];
    const rt = findResourceByKind(group, pk.kind);
    params = rt && rt.version === version ? typeForKind(group, version, pk.kind)?.name : undefined;
  }
  const check = (expression: string): string => {
    const results: string[] = [];
    for (const gvk of kinds) {
      const object = typeForKind(gvk.group, gvk.version, gvk.kind)?.name;
      const issues = undefinedFields(expression, { object, oldObject: object, params });
      if (issues.length) results.push(`${gvkString(gvk)}: ${issuesText(expression, issues)}\n`);
    }
    return results.join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  (policy.spec?.validations ?? []).forEach((v, i) => {
    const w = check(v.expression ?? '');
    if (w) warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if (!v.messageExpression) return;
    const m = check(v.messageExpression);
    if (m) warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  });
  return warnings;
}
