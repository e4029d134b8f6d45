// The list half of strategic merge patch: merging a patch list into a live
// list by merge key (or as a set of primitives), the $patch directives of
// list items, $deleteFromPrimitiveList, and the ordering rules (patch order
// first, then live order) that kube's strategicpatch applies.
import { goKind, goValue, hasKey, isObject } from './go-format.ts';
import type { JsonObject } from './go-format.ts';
import { goSliceStable } from './go-sort.ts';
import { DIRECTIVE_MARKER, errBadArgType, errBadPatchType, errNoMergeKey } from './strategic-directives.ts';
import { PatchError } from './patch-error.ts';

/** Go kind of a list's elements. */
export type ElementKind = ReturnType<typeof goKind>;

/** Merges two maps at a field path; supplied by the map half of the engine. */
export type MapMerger = (original: JsonObject, patch: JsonObject, path: readonly string[]) => JsonObject;

/** The common element kind of the lists; kube refuses lists of lists and mixed lists. */
export function sliceElementType(...lists: readonly unknown[][]): ElementKind {
  let prev: ElementKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const kind = goKind(v);
      if (prev === undefined) {
        prev = kind;
        if (kind === 'slice') throw new PatchError('lists of lists are not supported', 422);
      } else if (prev !== kind) {
        throw new PatchError(`list element types are not identical: ${goValue(lists)}`, 500);
      }
    }
  }
  if (prev === undefined) throw new PatchError('no elements in any of the given slices', 500);
  return prev;
}

/** The index of the first map in `list` whose mergeKey equals `value`; -1 when absent. */
function findByKey(list: readonly unknown[], key: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isObject(item)) throw new PatchError(`value for key ${i} is not a map`, 500);
    if (hasKey(item, key) && item[key] === value) return i;
  }
  return -1;
}

/** Position of `v` in `list`, matching maps by merge key and anything else by value. */
function indexIn(list: readonly unknown[], v: unknown, mergeKey: string, kind: ElementKind): number {
  const val = (item: unknown): unknown => {
    if (kind !== 'map') return item;
    return isObject(item) && hasKey(item, mergeKey) ? item[mergeKey] : null;
  };
  const want = val(v);
  return list.findIndex((item) => val(item) === want);
}

function requireMergeKeys(mergeKey: string, ...lists: readonly unknown[][]): void {
  for (const list of lists) {
    for (const item of list) {
      if (!isObject(item)) throw errBadArgType('map', item);
      if (!hasKey(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
    }
  }
}

/** Splits items into those without and those with "$patch: delete". */
export function extractToDeleteItems(list: readonly unknown[]): [unknown[], unknown[]] {
  const keep: unknown[] = [];
  const remove: unknown[] = [];
  for (const v of list) {
    if (!isObject(v)) throw errBadArgType('map', v);
    if (hasKey(v, DIRECTIVE_MARKER) && v[DIRECTIVE_MARKER] === 'delete') remove.push(v);
    else keep.push(v);
  }
  return [keep, remove];
}

/** Sorts `toSort` by position in `order` (kube's comparator, kept as is), deletion items last. */
function normalizeSliceOrder(toSort: unknown[], order: readonly unknown[], mergeKey: string, kind: ElementKind): unknown[] {
  let items = toSort;
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    requireMergeKeys(mergeKey, items, order as unknown[]);
    [items, toDelete] = extractToDeleteItems(items);
  }
  goSliceStable(items, (a, b) => {
    const ia = indexIn(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexIn(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  });
  return [...items, ...toDelete];
}

/**
 * Interleaves server-only items (left) into patch items (right): a server
 * item goes first only when both are in the live list and it came earlier.
 */
function mergeSortedSlice(
  left: unknown[],
  right: unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: ElementKind,
): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Orders patch items by the patch, server-only items by the live list, then interleaves them. */
export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: ElementKind,
): unknown[] {
  const patchSorted = normalizeSliceOrder(patchItems, patchOrder, mergeKey, kind);
  const serverSorted = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(serverSorted, patchSorted, serverOrder, mergeKey, kind);
}

/** Splits primitives into those present in `by` and the rest. */
export function partitionPrimitives(list: readonly unknown[], by: readonly unknown[]): [unknown[], unknown[]] {
  const present = new Set(by);
  return [list.filter((v) => present.has(v)), list.filter((v) => !present.has(v))];
}

/** Splits maps into those whose merge key value appears in `by` and the rest. */
export function partitionMaps(list: readonly unknown[], by: readonly unknown[], mergeKey: string): [unknown[], unknown[]] {
  const inBy: unknown[] = [];
  const rest: unknown[] = [];
  for (const v of list) {
    if (!isObject(v)) throw errBadArgType('map', v);
    if (!hasKey(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (findByKey(by, mergeKey, v[mergeKey]) >= 0 ? inBy : rest).push(v);
  }
  return [inBy, rest];
}

/** kube's in-place de-duplication; it reorders, which the later ordering step undoes. */
function deduplicateScalars(s: unknown[]): unknown[] {
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length];
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}

/** Applies the $patch items of a patch list; returns the live list left and the plain patch items. */
function applySpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  let replace = false;
  const live = [...original];
  for (const v of patch as JsonObject[]) {
    if (!hasKey(v, DIRECTIVE_MARKER)) {
      plain.push(v);
      continue;
    }
    const directive = v[DIRECTIVE_MARKER];
    if (directive === 'delete') {
      if (!hasKey(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
      for (let idx = findByKey(live, mergeKey, v[mergeKey]); idx >= 0; idx = findByKey(live, mergeKey, v[mergeKey])) {
        live.splice(idx, 1);
      }
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw new PatchError('merging lists cannot yet be specified in the patch', 500);
    } else {
      throw errBadPatchType(directive, v);
    }
  }
  return replace ? [plain, []] : [live, plain];
}

/**
 * Merges a patch list into a live list (kube's mergeSlice). Lists of maps
 * merge by `mergeKey`; lists of primitives are unioned, or, for a
 * $deleteFromPrimitiveList list, subtracted.
 */
export function mergeList(
  original: unknown[],
  patch: unknown[],
  path: readonly string[],
  mergeKey: string,
  isDeleteList: boolean,
  mergeMap: MapMerger,
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  let live = original;
  let items = patch;
  let merged: unknown[];
  if (kind !== 'map') {
    if (isDeleteList) {
      const drop = new Set(patch);
      return original.filter((v) => !drop.has(v));
    }
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    // kube names the element's Go kind; every keyless merge list of the built-in types is []string.
    if (!mergeKey) throw new PatchError('cannot merge lists without merge key for string', 500);
    [live, items] = applySpecialElements(original, patch, mergeKey);
    merged = [...live];
    for (const v of items as JsonObject[]) {
      if (!hasKey(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
      const idx = findByKey(merged, mergeKey, v[mergeKey]);
      if (idx >= 0) merged[idx] = mergeMap(merged[idx] as JsonObject, v, path);
      else merged.push(v);
    }
  }
  const [patchItems, serverOnly] = mergeKey ? partitionMaps(merged, items, mergeKey) : partitionPrimitives(merged, items);
  return normalizeElementOrder(patchItems, serverOnly, items, live, mergeKey, kind);
}
