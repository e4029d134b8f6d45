// Test helpers for the kind rules: apply a kind's defaults and validation the
// way the apiserver does, and render the result as kube's 422 message.
import { invalid } from '../../../shared/api/errors.ts';
import type { KubeObject } from '../object.ts';
import { kindRules } from './index.ts';

/**
 * The object after `key`'s defaults (on a copy). Tests read whatever the
 * defaults added, at any depth, hence the untyped result.
 */
export function defaulted(key: string, obj: unknown): any {
  const copy = structuredClone(obj) as KubeObject;
  kindRules[key].defaults?.(copy);
  return copy;
}

/**
 * The 422 message kube answers for `obj` (defaulted first, as on create), or
 * '' when it is valid. `old` makes it an update; it is used as given.
 */
export function invalidMessage(key: string, kind: string, group: string, obj: unknown, old?: unknown): string {
  const o = defaulted(key, obj) as KubeObject;
  const errs = kindRules[key].validate?.(o, old as KubeObject | undefined) ?? [];
  return errs.length === 0 ? '' : invalid(kind, group, o.metadata?.name ?? '', errs).message;
}
