// Test helpers for the kind rules: apply a kind's defaults and validation the
// way the apiserver does, and render the result as kube's 422 message.
import { invalid } from '../../../shared/api/errors.ts';
import { kindRules } from './index.ts';

/** The object after `key`'s defaults (on a copy). */
export function defaulted(key: string, obj: any): any {
  const copy = structuredClone(obj);
  kindRules[key].defaults?.(copy);
  return copy;
}

/**
 * The 422 message kube answers for `obj` (defaulted first, as on create), or
 * '' when it is valid. `old` makes it an update; it is used as given.
 */
export function invalidMessage(key: string, kind: string, group: string, obj: any, old?: any): string {
  const o = defaulted(key, obj);
  const errs = kindRules[key].validate?.(o, old) ?? [];
  return errs.length === 0 ? '' : invalid(kind, group, o.metadata?.name ?? '', errs).message;
}
