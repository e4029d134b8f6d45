// Evaluating one compiled policy for one (binding, param) against a
// request, as kube's validating/validator.go does: matchConditions first
// (false skips the policy, errors follow the failure policy), then every
// validation (false denies with messageExpression's result, the message,
// or "failed expression: ..."), then the auditAnnotations. Variables are
// evaluated lazily, once per evaluation, when an expression reads them.
import { Variables, type Compiled } from './cel-env.ts';
import type { CompiledPolicy } from './compile.ts';

/** The values an expression sees (already converted to CEL values). */
export interface Activation {
  object: unknown;
  oldObject: unknown;
  request: unknown;
  namespaceObject: unknown;
  params: unknown;
  authorizer?: unknown;
}

/** What one validation decided (kube's PolicyDecision). */
export interface Decision {
  action: 'admit' | 'deny';
  evaluation: 'admit' | 'deny' | 'error';
  message: string;
  /** kube's StatusReason: Invalid unless the validation names another. */
  reason?: string;
  /** The validation's index, for the Audit annotation's expressionIndex. */
  index: number;
}

/** One auditAnnotation's outcome. */
export interface AuditAnnotationResult {
  key: string;
  action: 'publish' | 'exclude' | 'error';
  value?: string;
  error?: string;
}

export interface ValidateResult {
  decisions: Decision[];
  auditAnnotations: AuditAnnotationResult[];
}

const MAX_MESSAGE_BYTES = 5 * 1024;

/** cel-go's wording for the errors cel-js words its own way. */
export function celErrorText(err: unknown): string {
  const e = err as { summary?: string; message?: string };
  const text = e?.summary ?? String(e?.message ?? err).split('\n')[0];
  if (text.startsWith('No such key: ')) return `no such key: ${text.slice('No such key: '.length)}`;
  return text;
}

type Outcome = { value: unknown } | { error: string };

function run(compiled: Compiled, activation: Record<string, unknown>): Outcome {
  if ('error' in compiled) return { error: `compilation error: ${compiled.error.detail}` };
  try {
    return { value: compiled.program.run(activation) };
  } catch (err) {
    return { error: `expression '${compiled.program.expression}' resulted in error: ${celErrorText(err)}` };
  }
}

/** The `variables` value: each variable evaluated on first read, its value (or error) kept. */
function lazyVariables(policy: CompiledPolicy, activation: Record<string, unknown>): Variables {
  const vars = new Variables();
  for (const v of policy.variables) {
    let memo: Outcome | undefined;
    Object.defineProperty(vars, v.spec.name, {
      enumerable: true,
      get() {
        if (!memo) {
          if ('error' in v.compiled) memo = { error: `composited variable "${v.spec.name}" fails to compile: ${v.compiled.error.detail}` };
          else {
            try {
              memo = { value: v.compiled.program.run(activation) };
            } catch (err) {
              memo = { error: celErrorText(err) };
            }
          }
        }
        if ('error' in memo) throw new Error(memo.error);
        return memo.value;
      },
    });
  }
  return vars;
}

/** kube's validator.Validate for one policy and one (binding, param). */
export function validate(policy: CompiledPolicy, failurePolicy: string | undefined, input: Activation): ValidateResult {
  const onError: Decision['action'] = failurePolicy === 'Ignore' ? 'admit' : 'deny';
  const activation: Record<string, unknown> = { ...input };
  activation.variables = lazyVariables(policy, activation);

  if (policy.matchConditions.length > 0) {
    // kube evaluates matchConditions without namespaceObject.
    const matchActivation = { ...activation, namespaceObject: null };
    const errors: string[] = [];
    for (const m of policy.matchConditions) {
      const out = run(m.compiled, matchActivation);
      if ('error' in out) errors.push(out.error);
      else if (out.value === false) return { decisions: [], auditAnnotations: [] };
    }
    if (errors.length) {
      const message = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
      return { decisions: [{ action: onError, evaluation: 'error', message, index: 0 }], auditAnnotations: [] };
    }
  }

  const decisions: Decision[] = policy.validations.map((v) => {
    const out = run(v.compiled, activation);
    if ('error' in out) return { action: onError, evaluation: 'error', message: out.error, index: v.index };
    if (out.value === true) return { action: 'admit', evaluation: 'admit', message: '', index: v.index };
    let message = '';
    if (v.message) {
      const m = run(v.message, { ...activation, authorizer: undefined });
      if ('value' in m && typeof m.value === 'string') {
        message = m.value.trim();
        if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES || message.includes('\n')) message = '';
      }
    }
    if (!message && typeof v.spec.message === 'string') message = v.spec.message.trim();
    if (!message) message = `failed expression: ${v.spec.expression.trim()}`;
    return { action: 'deny', evaluation: 'deny', message, reason: v.spec.reason ?? 'Invalid', index: v.index };
  });

  const auditAnnotations: AuditAnnotationResult[] = policy.auditAnnotations.map((a) => {
    const out = run(a.compiled, activation);
    if ('error' in out) return { key: a.spec.key, action: onError === 'admit' ? 'exclude' : 'error', error: out.error };
    if (out.value === null || out.value === undefined) return { key: a.spec.key, action: 'exclude' };
    if (typeof out.value !== 'string')
      return {
        key: a.spec.key,
        action: 'error',
        error: `valueExpression '${a.spec.valueExpression}' resulted in unsupported return type: ${typeof out.value}. Return type must be either string or null.`,
      };
    const value = out.value.trim();
    return value ? { key: a.spec.key, action: 'publish', value } : { key: a.spec.key, action: 'exclude' };
  });
  return { decisions, auditAnnotations };
}
