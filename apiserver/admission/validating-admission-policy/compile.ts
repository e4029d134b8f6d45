// One ValidatingAdmissionPolicy compiled, as kube's validating plugin
// compiles it (plugin.go compilePolicy): its variables in order (each sees
// the ones before it), its matchConditions, validations with their
// messageExpressions, and auditAnnotations. The same function checks a
// policy on write (validation reports the errors as field errors) and
// builds what admission evaluates; the plugin keeps one per generation.
import type {
  AuditAnnotation,
  MatchCondition,
  Validation,
  ValidatingAdmissionPolicySpec,
  Variable,
} from 'kubernetes-types/admissionregistration/v1.js';
import { compileExpression, type Compiled, type Declarations, type ReturnTypes } from './cel-env.ts';

export interface CompiledExpression<T> {
  spec: T;
  /** The item's index in its spec list (for field paths). */
  index: number;
  compiled: Compiled;
}

export interface CompiledValidation extends CompiledExpression<Validation> {
  message?: Compiled;
}

/** A policy's expressions, each compiled or with its compile error. */
export interface CompiledPolicy {
  variables: CompiledExpression<Variable>[];
  matchConditions: CompiledExpression<MatchCondition>[];
  validations: CompiledValidation[];
  auditAnnotations: CompiledExpression<AuditAnnotation>[];
}

const trimmed = (s: unknown): string => (typeof s === 'string' ? s.trim() : '');

/** Compiles every expression of `spec` (blank ones are left out: validation reports them). */
export function compilePolicy(spec: ValidatingAdmissionPolicySpec): CompiledPolicy {
  const params = spec.paramKind !== undefined && spec.paramKind !== null;
  const declared: { name: string; type: string }[] = [];
  const decl = (authorizer: boolean): Declarations => ({ params, authorizer, variables: [...declared] });
  const compile = (expr: unknown, want: ReturnTypes, authorizer = true): Compiled =>
    compileExpression(typeof expr === 'string' ? expr : '', want, decl(authorizer));

  const variables: CompiledExpression<Variable>[] = [];
  (Array.isArray(spec.variables) ? spec.variables : []).forEach((v, index) => {
    if (!trimmed(v?.expression) || !trimmed(v?.name)) return;
    const compiled = compile(v.expression, 'any');
    variables.push({ spec: v, index, compiled });
    // A variable that does not compile is still declared (as dyn): what uses it fails at evaluation, as kube's composition does.
    declared.push({ name: v.name, type: 'program' in compiled ? compiled.program.type : 'dyn' });
  });
  const list = <T>(x: T[] | undefined): Array<{ item: T; index: number }> =>
    (Array.isArray(x) ? x : []).map((item, index) => ({ item, index }));
  return {
    variables,
    matchConditions: list(spec.matchConditions)
      .filter(({ item }) => trimmed(item?.expression))
      .map(({ item, index }) => ({ spec: item, index, compiled: compile(trimmed(item.expression), 'bool') })),
    validations: list(spec.validations)
      .filter(({ item }) => trimmed(item?.expression))
      .map(({ item, index }) => ({
        spec: item,
        index,
        compiled: compile(item.expression, 'bool'),
        message: trimmed(item.messageExpression) ? compile(item.messageExpression, 'string', false) : undefined,
      })),
    auditAnnotations: list(spec.auditAnnotations)
      .filter(({ item }) => trimmed(item?.valueExpression))
      .map(({ item, index }) => ({ spec: item, index, compiled: compile(trimmed(item.valueExpression), 'string-or-null') })),
  };
}
