// The $-directives of strategic merge patch and the small helpers around
// them that both the map and the list half of the engine use, including
// kube's error texts (k8s.io/apimachinery/pkg/util/mergepatch).
import { goTypeName, goValue, hasKey, isObject, setKey } from './go-format.ts';
import type { JsonObject } from './go-format.ts';
import { PatchError } from './patch-error.ts';

export const DIRECTIVE_MARKER = '$patch';
export const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

/** mergepatch.ErrNoMergeKey. */
export function errNoMergeKey(m: unknown, key: string): PatchError {
  return new PatchError(`map: ${goValue(m)} does not contain declared merge key: ${key}`, 500);
}

/** mergepatch.ErrBadArgType, naming the Go type that was expected ('map' or 'slice'). */
export function errBadArgType(expected: 'map' | 'slice', actual: unknown): PatchError {
  return new PatchError(`expected a ${goTypeName(expected === 'map' ? {} : [])}, but received a ${goTypeName(actual)}`, 500);
}

/** mergepatch.ErrBadPatchType. */
export function errBadPatchType(directive: unknown, m: JsonObject): PatchError {
  return new PatchError(`unknown patch type: ${goValue(directive)} in map: ${goValue(m)}`, 500);
}

/** The field name after "<prefix>/", or kube's 400 error for a malformed directive key. */
export function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX) throw new PatchError('invalid patch format of primitive list', 400);
    throw new PatchError('invalid patch format of setElementOrder list', 400);
  }
  return key.slice(slash + 1);
}

/** True when the value is a map carrying a $patch directive. */
export function containsDirectiveMarker(v: unknown): boolean {
  return isObject(v) && hasKey(v, DIRECTIVE_MARKER);
}

/**
 * Drops every map holding a $patch directive (and list items that are such
 * maps), in place. Returns the value to keep and whether to keep it at all.
 */
export function removeDirectives(v: unknown): [unknown, boolean] {
  if (isObject(v)) {
    if (hasKey(v, DIRECTIVE_MARKER)) return [null, false];
    for (const k of Object.keys(v)) {
      const [nv, keep] = removeDirectives(v[k]);
      if (keep) setKey(v, k, nv);
      else delete v[k];
    }
    return [v, true];
  }
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const item of v) {
      const [nv, keep] = removeDirectives(item);
      if (keep) out.push(nv);
    }
    return [out, true];
  }
  return [v, true];
}

/** Deletes null-valued keys at any depth, in place. */
export function discardNullValues(v: unknown): void {
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNullValues(v[k]);
    }
  } else if (Array.isArray(v)) {
    for (const item of v) discardNullValues(item);
  }
}

const isDirectiveKey = (k: string): boolean =>
  k === DIRECTIVE_MARKER ||
  k === RETAIN_KEYS_DIRECTIVE ||
  k.startsWith(`${SET_ELEMENT_ORDER_PREFIX}/`) ||
  k.startsWith(`${DELETE_FROM_PRIMITIVE_LIST_PREFIX}/`);

/**
 * Removes directive keys that kube's merge leaves inside newly added values
 * (an appended list item, a "$patch: replace" map). kube loses them when it
 * decodes the result into the Go type; ksim keeps plain JSON, so it drops
 * them here. No built-in field name starts with '$'.
 */
export function stripDirectiveKeys(v: unknown): void {
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (isDirectiveKey(k)) delete v[k];
      else stripDirectiveKeys(v[k]);
    }
  } else if (Array.isArray(v)) {
    for (const item of v) stripDirectiveKeys(item);
  }
}
