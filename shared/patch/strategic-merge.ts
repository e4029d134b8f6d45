// Strategic merge patch (application/strategic-merge-patch+json, what kubectl
// apply, edit and patch send) applied as k8s.io/apimachinery's strategicpatch
// applies it on the server: maps merge recursively and null deletes a key;
// lists merge or are replaced according to the field's patchStrategy and
// patchMergeKey (see merge-keys.ts); and the directives $patch,
// $retainKeys, $setElementOrder/<field> and $deleteFromPrimitiveList/<field>
// are honoured, with kube's errors.
import { cloneJson, goKind, goValue, hasKey, isObject, setKey } from './go-format.ts';
import type { JsonObject } from './go-format.ts';
import type { MergeRule, MergeSchema } from './merge-keys.ts';
import { PatchError } from './patch-error.ts';
import {
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  DIRECTIVE_MARKER,
  RETAIN_KEYS_DIRECTIVE,
  SET_ELEMENT_ORDER_PREFIX,
  containsDirectiveMarker,
  discardNullValues,
  errBadArgType,
  errBadPatchType,
  errNoMergeKey,
  extractKey,
  removeDirectives,
  stripDirectiveKeys,
} from './strategic-directives.ts';
import {
  extractToDeleteItems,
  mergeList,
  normalizeElementOrder,
  partitionMaps,
  partitionPrimitives,
  sliceElementType,
} from './strategic-list.ts';

type Path = readonly string[];

/** The field's strategy without retainKeys (which only matters to patch generation) and its merge key. */
function ruleAt(schema: MergeSchema | undefined, path: Path): { strategy: string; mergeKey: string } {
  const rule: MergeRule | undefined = schema?.(path);
  const parts = (rule?.strategy ?? '').split(',');
  let strategy: string;
  if (parts.length === 1) strategy = parts[0] === 'retainKeys' ? '' : parts[0];
  else if (parts.length === 2 && (parts[0] === 'retainKeys' || parts[1] === 'retainKeys')) {
    strategy = parts[0] === 'retainKeys' ? parts[1] : parts[0];
  } else throw new PatchError(`unexpected patch strategy: [${parts.join(' ')}]`, 500);
  return { strategy, mergeKey: rule?.mergeKey ?? '' };
}

class Merger {
  private readonly schema: MergeSchema | undefined;

  constructor(schema: MergeSchema | undefined) {
    this.schema = schema;
  }

  mergeMap = (original: JsonObject, patch: JsonObject, path: Path): JsonObject => {
    if (hasKey(patch, DIRECTIVE_MARKER)) {
      const directive = patch[DIRECTIVE_MARKER];
      if (directive === 'replace') {
        delete patch[DIRECTIVE_MARKER];
        return patch;
      }
      if (directive === 'delete') return {};
      // kube knows only replace and delete here: "$patch: merge" in a map is an error, as in a list.
      throw errBadPatchType(directive, patch);
    }
    this.applyRetainKeys(original, patch);
    this.applySetElementOrder(original, patch, path);

    for (const rawKey of Object.keys(patch)) {
      const patchV = patch[rawKey];
      let key = rawKey;
      const isDeleteList = rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX);
      if (isDeleteList) key = extractKey(rawKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX);

      if (patchV === null) {
        delete original[key];
        continue;
      }
      const place = (): void => {
        if (isDeleteList) return;
        discardNullValues(patchV);
        const [value, keep] = removeDirectives(patchV);
        if (keep) setKey(original, key, value);
        else delete original[key];
      };
      if (!hasKey(original, key)) {
        place();
        continue;
      }
      const current = original[key];
      const kind = goKind(current);
      if (kind !== goKind(patchV)) {
        place();
        continue;
      }
      const childPath = [...path, key];
      if (kind === 'map') {
        const { strategy } = ruleAt(this.schema, childPath);
        setKey(original, key, strategy === 'replace' ? patchV : this.mergeMap(current as JsonObject, patchV as JsonObject, childPath));
      } else if (kind === 'slice') {
        const { strategy, mergeKey } = ruleAt(this.schema, childPath);
        setKey(original, key, this.mergeListField(current as unknown[], patchV as unknown[], childPath, strategy, mergeKey, isDeleteList));
      } else {
        const [value, keep] = removeDirectives(patchV);
        if (keep) setKey(original, key, value);
        else delete original[key];
      }
    }
    return original;
  };

  private mergeListField(
    original: unknown[],
    patch: unknown[],
    path: Path,
    strategy: string,
    mergeKey: string,
    isDeleteList: boolean,
  ): unknown[] {
    // Deletion lists apply whatever the field's strategy.
    if (strategy === 'merge' || isDeleteList) return mergeList(original, patch, path, mergeKey, isDeleteList, this.mergeMap);
    return patch;
  }

  /** $retainKeys: the patch may only set listed keys, and live keys not listed are cleared. */
  private applyRetainKeys(original: JsonObject, patch: JsonObject): void {
    if (!hasKey(patch, RETAIN_KEYS_DIRECTIVE)) return;
    const list = patch[RETAIN_KEYS_DIRECTIVE];
    delete patch[RETAIN_KEYS_DIRECTIVE];
    if (!Array.isArray(list)) throw new PatchError('invalid patch format of retainKeys', 400);
    const retain = new Set(list);
    for (const k of Object.keys(patch)) {
      if (patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
      if (!retain.has(k)) throw new PatchError('invalid patch format of retainKeys', 400);
    }
    for (const k of Object.keys(original)) if (!retain.has(k)) delete original[k];
  }

  /** $setElementOrder/<field>: merges <field> now and orders it as listed. */
  private applySetElementOrder(original: JsonObject, patch: JsonObject, path: Path): void {
    for (const key of Object.keys(patch)) {
      if (!key.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
      const order = patch[key];
      delete patch[key];
      if (!Array.isArray(order)) throw errBadArgType('slice', order);
      const field = extractKey(key, SET_ELEMENT_ORDER_PREFIX);
      const foundOriginal = hasKey(original, field);
      const foundPatch = hasKey(patch, field);
      const originalList = original[field];
      const patchList = patch[field];
      if (foundOriginal && !Array.isArray(originalList)) throw errBadArgType('slice', originalList);
      if (foundPatch && !Array.isArray(patchList)) throw errBadArgType('slice', patchList);
      const liveList = foundOriginal ? [...(originalList as unknown[])] : [];
      const patchItemsIn = foundPatch ? (patchList as unknown[]) : [];
      const childPath = [...path, field];
      const { strategy, mergeKey } = ruleAt(this.schema, childPath);
      validateOrder(patchItemsIn, order, mergeKey);

      let merged: unknown[];
      if (foundOriginal && !foundPatch) merged = originalList as unknown[];
      else if (!foundOriginal && foundPatch) merged = removeDirectives(patchList)[0] as unknown[];
      else if (foundOriginal && foundPatch) {
        merged = this.mergeListField(originalList as unknown[], patchList as unknown[], childPath, strategy, mergeKey, false);
      } else continue;

      const [inOrder, serverOnly] = mergeKey ? partitionMaps(merged, order, mergeKey) : partitionPrimitives(merged, order);
      const kind = sliceElementType(liveList, patchItemsIn);
      setKey(original, field, normalizeElementOrder(inOrder, serverOnly, order, liveList, mergeKey, kind));
      delete patch[field];
    }
  }
}

/** The items of the patch list must appear in the $setElementOrder list, in the same relative order. */
function validateOrder(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const items = mergeKey ? extractToDeleteItems(patchList)[0] : patchList;
  const same = (a: unknown, b: unknown): boolean => {
    if (!mergeKey) return a === b;
    if (!isObject(a)) throw errBadArgType('map', a);
    if (!isObject(b)) throw errBadArgType('map', b);
    if (!hasKey(a, mergeKey)) throw errNoMergeKey(a, mergeKey);
    if (!hasKey(b, mergeKey)) throw errNoMergeKey(b, mergeKey);
    return a[mergeKey] === b[mergeKey];
  };
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    if (containsDirectiveMarker(items[p])) {
      p++;
      continue;
    }
    if (same(items[p], order[o])) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw new PatchError(
      `The order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER_PREFIX} list:\n${goValue(order)}\n`,
      500,
    );
  }
}

/**
 * Applies a strategic merge patch to an object and returns the result;
 * neither argument is modified. `schema` gives each field's patch strategy
 * and merge key (mergeSchemaFor(kind)); without one, maps merge and lists are
 * replaced, which is what the rules of an untagged type amount to. (kube
 * itself refuses strategic merge patches on custom resources with a 415; the
 * apiserver makes that call.) With a schema, directive keys left inside newly
 * added values are dropped, as kube's decoding into the Go type drops them.
 * Throws PatchError with kube's message and status (400, 422 or 500).
 */
export function applyStrategicMergePatch<T>(original: T, patch: unknown, schema: MergeSchema | undefined): T {
  if (original !== null && !isObject(original)) throw new PatchError('invalid JSON document', 400);
  if (patch !== null && !isObject(patch)) throw new PatchError('invalid JSON document', 400);
  const doc = (original === null ? {} : cloneJson(original)) as JsonObject;
  const p = patch === null ? {} : cloneJson(patch);
  const result = new Merger(schema).mergeMap(doc, p, []);
  if (schema) stripDirectiveKeys(result);
  return result as T;
}
