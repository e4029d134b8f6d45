// JSON merge patch (RFC 7396, application/merge-patch+json) as kube applies
// it with evanphx/json-patch's MergePatch: null deletes a key, objects merge
// recursively, anything else replaces, and nulls inside newly placed objects
// are pruned (but null elements of arrays are kept).
import { cloneJson, isObject, setKey } from './go-format.ts';
import type { JsonObject } from './go-format.ts';
import { PatchError } from './patch-error.ts';

/** Removes null-valued keys from objects at any depth, in place; arrays keep null elements. */
function pruneNulls(v: unknown): unknown {
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else pruneNulls(v[k]);
    }
  } else if (Array.isArray(v)) {
    for (const item of v) if (item !== null) pruneNulls(item);
  }
  return v;
}

function mergeInto(doc: JsonObject, patch: JsonObject): void {
  for (const k of Object.keys(patch)) {
    const pv = patch[k];
    if (pv === null) {
      delete doc[k];
      continue;
    }
    const cur = Object.prototype.hasOwnProperty.call(doc, k) ? doc[k] : null;
    setKey(doc, k, cur === null ? pruneNulls(pv) : mergeValue(cur, pv));
  }
}

function mergeValue(cur: unknown, patch: unknown): unknown {
  if (!isObject(cur)) return pruneNulls(patch);
  // The library hands back a non-object patch untouched, without pruning.
  if (!isObject(patch)) return patch;
  mergeInto(cur, patch);
  return cur;
}

/**
 * Applies a JSON merge patch and returns the result; neither argument is
 * modified. A null patch is rejected with kube's "Invalid JSON Patch" (400);
 * a patch or document that is not an object yields the (pruned) patch.
 */
export function applyMergePatch<T>(doc: T, patch: unknown): T {
  if (patch === null || patch === undefined) throw new PatchError('Invalid JSON Patch', 400);
  if (doc === null || doc === undefined) throw new PatchError('Invalid JSON Document', 500);
  const p = cloneJson(patch);
  if (!isObject(doc) || !isObject(p)) {
    if (!isObject(p) && !Array.isArray(p)) throw new PatchError('Invalid JSON Patch', 400);
    return pruneNulls(p) as T;
  }
  const out = cloneJson(doc) as JsonObject;
  mergeInto(out, p);
  return out as T;
}
