// Evaluates one condition against the cluster: a get (`object`, null when
// absent) or a list (`objects`), then the CEL expression. A request that
// fails (the apiserver is down) or an expression that cannot be evaluated
// is a false result whose message says why, never an exception: a check
// keeps polling through the fault it is judging.
import type { KubeObject } from '../../../shared/api/object.ts';
import { StatusError } from '../../../shared/api/errors.ts';
import type { KubeClient } from '../../../shared/client/kube-client.ts';
import { compileCondition, type ConditionProgram } from './cel.ts';
import { resolveResource } from './resources.ts';
import type { Condition } from './spec.ts';

export interface ConditionResult {
  ok: boolean;
  /** Why not, or what was seen ("3 objects"). */
  message: string;
}

/** A condition ready to evaluate. */
export interface CompiledCondition {
  condition: Condition;
  evaluate(client: KubeClient): Promise<ConditionResult>;
}

const firstLine = (s: string): string => s.split('\n')[0];

/** Compiles `condition`'s expression (validate.ts has already checked it compiles). */
export function prepareCondition(condition: Condition): CompiledCondition {
  const variable = condition.name ? 'object' : 'objects';
  const compiled = compileCondition(condition.expr, variable);
  if ('error' in compiled) throw new Error(compiled.error);
  const program: ConditionProgram = compiled.program;
  const rt = resolveResource(condition.resource);
  const namespace = rt.namespaced ? (condition.namespace ?? 'default') : undefined;
  return {
    condition,
    async evaluate(client) {
      let value: unknown;
      let seen: string;
      try {
        if (condition.name) {
          try {
            value = await client.get<KubeObject>(rt, namespace, condition.name);
            seen = `${rt.kind} ${condition.name}`;
          } catch (err) {
            if (!(err instanceof StatusError && err.code === 404)) throw err;
            value = null;
            seen = `no ${rt.kind} ${condition.name}`;
          }
        } else {
          const items: KubeObject[] = [];
          let cont: string | undefined;
          do {
            const page = await client.list<KubeObject>(rt, {
              namespace,
              labelSelector: condition.labelSelector,
              fieldSelector: condition.fieldSelector,
              limit: 500,
              continue: cont,
            });
            items.push(...page.items);
            cont = page.metadata?.continue || undefined;
          } while (cont);
          value = items;
          seen = `${items.length} ${rt.plural}`;
        }
      } catch (err) {
        return { ok: false, message: `cannot read ${rt.plural}: ${firstLine((err as Error).message)}` };
      }
      try {
        const ok = program.run(value);
        return { ok, message: `${ok ? 'true' : 'false'} (${seen})` };
      } catch (err) {
        return { ok: false, message: `${firstLine((err as Error).message)} (${seen})` };
      }
    },
  };
}
