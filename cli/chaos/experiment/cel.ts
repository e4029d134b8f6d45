// CEL for experiment conditions: the same cel-js environment options and
// kube library (quantities, lists, regex, ...) ValidatingAdmissionPolicy
// uses, with one variable instead of admission's: `object` (a get; null
// when the object does not exist) or `objects` (a list's items). Errors
// read as cel-go's, through the admission wrapper's describeIssue.
import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import { describeIssue } from '../../../apiserver/admission/validating-admission-policy/cel-env.ts';
import { registerKubeLibrary } from '../../../apiserver/admission/validating-admission-policy/library.ts';
import { toCel } from '../../../apiserver/admission/validating-admission-policy/values.ts';

export type ConditionVariable = 'object' | 'objects';

/** A condition compiled: run it with the object (or list of objects) it reads. */
export interface ConditionProgram {
  run(value: unknown): boolean;
}

const OPTIONS = { enableOptionalTypes: true, homogeneousAggregateLiterals: false } as const;
const envs = new Map<ConditionVariable, Environment>();

function envFor(variable: ConditionVariable): Environment {
  let env = envs.get(variable);
  if (!env) {
    env = new Environment(OPTIONS);
    env.registerVariable(variable, variable === 'objects' ? 'list' : 'dyn');
    registerKubeLibrary(env);
    envs.set(variable, env);
  }
  return env;
}

/** Compiles `expr` with `variable` declared; it must evaluate to bool. */
export function compileCondition(expr: string, variable: ConditionVariable): { program: ConditionProgram } | { error: string } {
  const env = envFor(variable);
  let parsed: ParseResult;
  try {
    parsed = env.parse(expr);
  } catch (err) {
    return { error: `compilation failed: ${describeIssue(expr, err as { message: string })}` };
  }
  const checked = env.check(expr);
  if (!checked.valid) return { error: `compilation failed: ${describeIssue(expr, checked.error as unknown as { message: string })}` };
  if (checked.type !== 'bool' && checked.type !== 'dyn') return { error: `must evaluate to bool but got ${checked.type}` };
  return {
    program: {
      run(value) {
        const out = parsed({ [variable]: toCel(value) });
        if (typeof out !== 'boolean') throw new Error(`evaluated to ${typeof out}, not a bool`);
        return out;
      },
    },
  };
}
