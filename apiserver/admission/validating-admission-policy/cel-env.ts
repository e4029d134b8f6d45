// The CEL environment of ValidatingAdmissionPolicy expressions, as kube's
// plugin/cel/compile.go declares it: `object`, `oldObject`, `request`,
// `namespaceObject` (dyn here: kube types it), `request` typed as kube's,
// `params` only when the policy has a paramKind, `authorizer` where kube
// offers it, and `variables` typed with the policy's own spec.variables.
// Compiling is parse + type check; a result type the expression may not
// have (a validation that is not bool) is kube's "must evaluate to" error.
// Errors are worded as cel-go's (`ERROR: <input>:1:3: ...` and the caret
// line), with cel-js's own descriptions of what is wrong.
import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import { AUTHORIZER_TYPE, registerAuthorizerLibrary } from './authorizer-library.ts';
import { registerKubeLibrary } from './library.ts';

/** What an expression must evaluate to (kube's ExpressionAccessor.ReturnTypes). */
export type ReturnTypes = 'bool' | 'string' | 'string-or-null' | 'any';

/** Which optional variables an expression sees (kube's OptionalVariableDeclarations). */
export interface Declarations {
  params: boolean;
  authorizer: boolean;
  /** The policy's variables compiled so far, with their types. */
  variables: readonly { name: string; type: string }[];
}

/** A compiled expression: run it against an activation. */
export interface Program {
  expression: string;
  /** The type the checker gave it ("bool", "dyn", "list<string>"...). */
  type: string;
  run(activation: Record<string, unknown>): unknown;
}

/** kube's cel.Error: Invalid for the user's expression, Internal for ksim's. */
export interface CompileError {
  type: 'Invalid' | 'Internal';
  detail: string;
}

export type Compiled = { program: Program } | { error: CompileError };

/** The class of the `variables` value (a fresh type per set of variables: its fields are the variables). */
export class Variables {}

const OPTIONS = { enableOptionalTypes: true, homogeneousAggregateLiterals: false } as const;

const GVK = { group: 'string', version: 'string', kind: 'string' };
const GVR = { group: 'string', version: 'string', resource: 'string' };
/** kube's BuildRequestType: `request` is typed, so `request.nosuch` does not compile. */
const REQUEST_SCHEMA = {
  kind: GVK,
  resource: GVR,
  subResource: 'string',
  requestKind: GVK,
  requestResource: GVR,
  requestSubResource: 'string',
  name: 'string',
  namespace: 'string',
  operation: 'string',
  userInfo: { username: 'string', uid: 'string', groups: 'list<string>', extra: 'map<string, list<string>>' },
  dryRun: 'bool',
  options: 'dyn',
};
let baseEnv: Environment | undefined;

function base(): Environment {
  if (!baseEnv) {
    const env = new Environment(OPTIONS);
    for (const v of ['object', 'oldObject', 'namespaceObject']) env.registerVariable(v, 'dyn');
    env.registerVariable({ name: 'request', schema: REQUEST_SCHEMA });
    registerKubeLibrary(env);
    registerAuthorizerLibrary(env);
    baseEnv = env;
  }
  return baseEnv;
}

const envs = new Map<string, Environment>();
const ENV_CACHE_LIMIT = 256;

function envFor(d: Declarations): Environment {
  const key = `${d.params}|${d.authorizer}|${d.variables.map((v) => `${v.name}:${v.type}`).join(',')}`;
  let env = envs.get(key);
  if (!env) {
    env = base().clone(OPTIONS);
    if (d.params) env.registerVariable('params', 'dyn');
    if (d.authorizer) env.registerVariable('authorizer', AUTHORIZER_TYPE);
    env.registerType('kubernetes.Variables', {
      ctor: Variables,
      fields: Object.fromEntries(d.variables.map((v) => [v.name, v.type])),
    });
    env.registerVariable('variables', 'kubernetes.Variables');
    if (envs.size >= ENV_CACHE_LIMIT) envs.delete(envs.keys().next().value!);
    envs.set(key, env);
  }
  return env;
}

/** cel-go's type names: list(string), map(string, dyn). */
export function celTypeName(t: string): string {
  return t.replaceAll('<', '(').replaceAll('>', ')');
}

interface LocatedError {
  summary?: string;
  message: string;
  range?: { start: number };
}

/** An issue as cel-go's Issues.String() prints it: `ERROR: <input>:L:C: msg`, the line and a caret. */
export function describeIssue(expression: string, err: LocatedError): string {
  let summary = err.summary ?? err.message.split('\n')[0];
  const unknown = /^Unknown variable: (.*)$/.exec(summary);
  if (unknown) summary = `undeclared reference to '${unknown[1]}' (in container '')`;
  let at = err.range?.start ?? 0;
  const field = /^No such key: (.*)$/.exec(summary);
  if (field) {
    summary = `undefined field '${field[1]}'`;
    // cel-go points at the selecting dot.
    if (expression[at - 1] === '.') at -= 1;
  }
  const before = expression.slice(0, at);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const col = at - lineStart;
  const text = expression.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${col + 1}: ${summary}\n | ${text}\n | ${'.'.repeat(col)}^`;
}

function accepts(want: ReturnTypes, got: string): string | undefined {
  switch (want) {
    case 'any':
      return undefined;
    case 'bool':
    case 'string':
      return got === want ? undefined : `must evaluate to ${want} but got ${celTypeName(got)}`;
    case 'string-or-null':
      return got === 'string' || got === 'null' ? undefined : `must evaluate to one of [string null_type] but got ${celTypeName(got)}`;
  }
}

/**
 * `expression` with every `null` literal (outside string literals) as
 * `dyn(null)`. cel-js refuses `c ? 'text' : null`, which cel-go accepts
 * (kube's own auditAnnotation example): a dyn branch unifies with any other.
 */
export function nullAsDyn(expression: string): string {
  return expression.replace(/("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|\bnull\b/g, (m, quoted) => (quoted ? m : 'dyn(null)'));
}

/** Compiles `expression` for the declarations `d`, checking its result type. */
export function compileExpression(expression: string, want: ReturnTypes, d: Declarations): Compiled {
  const env = envFor(d);
  let source = expression;
  let parsed: ParseResult;
  try {
    parsed = env.parse(source);
  } catch (err) {
    return { error: { type: 'Invalid', detail: `compilation failed: ${describeIssue(expression, err as LocatedError)}` } };
  }
  let checked = env.check(source);
  let nullBranch = false;
  if (!checked.valid && (checked.error as { code?: string } | undefined)?.code === 'incompatible_ternary_branches') {
    const retried = env.check(nullAsDyn(expression));
    if (retried.valid) {
      source = nullAsDyn(expression);
      parsed = env.parse(source);
      checked = retried;
      nullBranch = true;
    }
  }
  if (!checked.valid)
    return { error: { type: 'Invalid', detail: `compilation failed: ${describeIssue(expression, checked.error as LocatedError)}` } };
  // A branch that was null may make the rest dyn: kube would have typed it as the other branch.
  const type = nullBranch && checked.type === 'dyn' && want === 'string-or-null' ? 'string' : (checked.type ?? 'dyn');
  const wrong = accepts(want, type);
  if (wrong) return { error: { type: 'Invalid', detail: wrong } };
  return { program: { expression, type, run: (activation) => parsed(activation) } };
}
