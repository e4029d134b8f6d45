// An object read through its atom (see schema.ts), as SMD's typed package
// does: the set of fields it sets, the comparison of two versions (added,
// modified, removed), the merge of an applied configuration into it, and the
// removal of a set of fields from it.
import { deepEqual } from '../util/deep-equal.ts';
import { DEDUCED, SCALAR, type Atom, type ListAtom, type MapAtom } from './schema.ts';
import { compareElements, fieldElement, FieldSet, indexElement, valueElement, type PathElement } from './fieldpath.ts';

type Json = unknown;
type JsonMap = Record<string, unknown>;

const isMap = (v: Json): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A keyed list item without one of its key fields: SMD uses the key's default where the schema has one (a port's protocol). */
const KEY_DEFAULTS: Record<string, unknown> = { protocol: 'TCP' };

/** An error SMD reports for a value its schema does not allow (duplicate keys, a keyless item). */
export class TypedError extends Error {}

/** The atom a value is walked with: a deduced atom takes the value's own shape. */
function shapeOf(atom: Atom, v: Json): Atom {
  if (atom.kind !== 'deduced') return atom;
  if (isMap(v)) return DEDUCED_MAP;
  if (Array.isArray(v)) return DEDUCED_LIST;
  return SCALAR;
}

const DEDUCED_MAP: MapAtom = { kind: 'map', atomic: false, field: () => undefined, elem: () => DEDUCED };
const DEDUCED_LIST: ListAtom = { kind: 'list', rel: 'atomic', keys: [], item: () => DEDUCED };

/** The element of a list item, or a TypedError for an item the list type cannot name. */
function itemElement(list: ListAtom, item: Json, i: number): PathElement {
  if (list.rel === 'set') {
    if (isMap(item) || Array.isArray(item)) throw new TypedError('expected a scalar in a set list');
    return valueElement(item);
  }
  if (list.rel === 'map') {
    if (!isMap(item)) throw new TypedError('expected an object in a keyed list');
    if (list.keys.length === 1) {
      const k = list.keys[0];
      const v = Object.hasOwn(item, k) ? item[k] : KEY_DEFAULTS[k];
      if (v === undefined) throw new TypedError(`associative list with keys has an element that omits key field "${k}"`);
      return `k:{${JSON.stringify(k)}:${JSON.stringify(v)}}`;
    }
    let text = '';
    for (const k of sortedKeys(list)) {
      const v = Object.hasOwn(item, k) ? item[k] : KEY_DEFAULTS[k];
      if (v === undefined) throw new TypedError(`associative list with keys has an element that omits key field "${k}"`);
      text += `${text ? ',' : ''}${JSON.stringify(k)}:${JSON.stringify(v)}`;
    }
    // keyElement's spelling, written here with the key names sorted once per list type.
    return `k:{${text}}`;
  }
  return indexElement(i);
}

const sortedKeyNames = new WeakMap<ListAtom, readonly string[]>();

/** A keyed list's key names, sorted (as keyElement writes them). */
function sortedKeys(list: ListAtom): readonly string[] {
  let keys = sortedKeyNames.get(list);
  if (!keys) sortedKeyNames.set(list, (keys = [...list.keys].sort()));
  return keys;
}

/** A list's items by element, in order; undefined when they cannot all be named or two share an element. */
function itemsOf(list: ListAtom, items: Json[]): Map<PathElement, Json> | undefined {
  const out = new Map<PathElement, Json>();
  for (let i = 0; i < items.length; i++) {
    let pe: PathElement;
    try {
      pe = itemElement(list, items[i], i);
    } catch {
      return undefined;
    }
    if (out.has(pe)) return undefined;
    out.set(pe, items[i]);
  }
  return out;
}

/** The atom of a map's key `k`. */
const valueAtom = (m: MapAtom, k: string): Atom => m.field(k) ?? m.elem();

/** The set of fields `obj` sets (typed.ToFieldSet). */
export function toFieldSet(obj: Json, atom: Atom): FieldSet {
  const set = new FieldSet();
  walkSet(obj, atom, set, undefined, undefined);
  return set;
}

function walkSet(v: Json, atom: Atom, into: FieldSet, parent: FieldSet | undefined, self: PathElement | undefined): void {
  const a = shapeOf(atom, v);
  if (a.kind === 'map' && isMap(v)) {
    if (a.atomic) return setLeaf(parent, self);
    for (const k of Object.keys(v)) {
      const child = v[k];
      if (child === undefined) continue;
      const pe = fieldElement(k);
      const sub = into.child(pe);
      walkSet(child, valueAtom(a, k), sub, into, pe);
      // An empty or null value, and a key no struct declares, is a member itself.
      if (child === null || (isMap(child) && Object.keys(child).length === 0) || !a.field(k)) into.members.add(pe);
      if (sub.empty()) into.children.delete(pe);
    }
    return;
  }
  if (a.kind === 'list' && Array.isArray(v)) {
    const items = a.rel === 'atomic' ? undefined : itemsOf(a, v);
    if (!items) return setLeaf(parent, self);
    for (const [pe, item] of items) {
      const sub = into.child(pe);
      walkSet(item, a.item(), sub, into, pe);
      into.members.add(pe);
      if (sub.empty()) into.children.delete(pe);
    }
    return;
  }
  setLeaf(parent, self);
}

function setLeaf(parent: FieldSet | undefined, self: PathElement | undefined): void {
  if (parent && self !== undefined) parent.members.add(self);
}

/** What changed from one version of an object to another (typed.Comparison). */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** Compares `lhs` (before) with `rhs` (after). */
export function compare(lhs: Json, rhs: Json, atom: Atom): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(lhs, rhs, atom, [], c);
  return c;
}

/** Nothing, null, or an empty map or list: SMD compares two such values as leaves (null and {} differ). */
function isEmptyish(v: Json): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v !== 'object') return false;
  for (const _ in v) return false;
  return true;
}

const mapLike = (v: Json): boolean => v === undefined || v === null || isMap(v);
const listLike = (v: Json): boolean => v === undefined || v === null || Array.isArray(v);

/** A leaf: added, removed or modified as a whole. */
function compareLeaf(l: Json, r: Json, path: PathElement[], c: Comparison): void {
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
  else if (!deepEqual(l, r)) c.modified.insert(path);
}

/** A node that appeared or went (not one that was or became null) is added or removed itself, as well as its children. */
function compareNode(l: Json, r: Json, path: PathElement[], c: Comparison): void {
  if (l === undefined) c.added.insert(path);
  else if (r === undefined) c.removed.insert(path);
}

function walkCompare(l: Json, r: Json, atom: Atom, path: PathElement[], c: Comparison): void {
  const la = l === undefined || l === null ? undefined : shapeOf(atom, l);
  const ra = r === undefined || r === null ? undefined : shapeOf(atom, r);
  const a = ra ?? la ?? shapeOf(atom, l ?? r);
  const sameShape = la === undefined || ra === undefined || la.kind === ra.kind;
  if (!sameShape || (isEmptyish(l) && isEmptyish(r))) return compareLeaf(l, r, path, c);
  if (a.kind === 'map' && !a.atomic && mapLike(l) && mapLike(r)) {
    const lm = (l ?? {}) as JsonMap;
    const rm = (r ?? {}) as JsonMap;
    for (const k in rm) {
      const rv = rm[k];
      const lv = lm[k];
      if (rv === undefined && lv === undefined) continue;
      path.push(fieldElement(k));
      walkCompare(lv, rv, valueAtom(a, k), path, c);
      path.pop();
    }
    for (const k in lm) {
      if (rm[k] !== undefined || lm[k] === undefined) continue;
      path.push(fieldElement(k));
      walkCompare(lm[k], undefined, valueAtom(a, k), path, c);
      path.pop();
    }
    return compareNode(l, r, path, c);
  }
  if (a.kind === 'list' && a.rel !== 'atomic' && listLike(l) && listLike(r)) {
    const li = Array.isArray(l) ? itemsOf(a, l) : EMPTY_ITEMS;
    const ri = Array.isArray(r) ? itemsOf(a, r) : EMPTY_ITEMS;
    if (li && ri) {
      const item = a.item();
      for (const [pe, rv] of ri) {
        path.push(pe);
        walkCompare(li.get(pe), rv, item, path, c);
        path.pop();
      }
      for (const [pe, lv] of li) {
        if (ri.has(pe)) continue;
        path.push(pe);
        walkCompare(lv, undefined, item, path, c);
        path.pop();
      }
      return compareNode(l, r, path, c);
    }
  }
  compareLeaf(l, r, path, c);
}

const EMPTY_ITEMS: ReadonlyMap<PathElement, Json> = new Map();

/** Merges the applied `rhs` into `lhs` (typed.Merge): rhs wins at every leaf, maps and keyed lists merge. */
export function merge(lhs: Json, rhs: Json, atom: Atom): Json {
  if (lhs === undefined) return structuredClone(rhs);
  if (rhs === undefined) return lhs;
  const la = shapeOf(atom, lhs);
  const ra = shapeOf(atom, rhs);
  if (la.kind !== ra.kind) return structuredClone(rhs);
  if (ra.kind === 'map' && !ra.atomic && isMap(lhs) && isMap(rhs)) {
    const out: JsonMap = { ...lhs };
    for (const k of Object.keys(rhs)) {
      if (rhs[k] === undefined) continue;
      out[k] = merge(lhs[k], rhs[k], valueAtom(ra, k));
    }
    return out;
  }
  if (ra.kind === 'list' && ra.rel !== 'atomic' && Array.isArray(lhs) && Array.isArray(rhs)) {
    const li = itemsOf(ra, lhs);
    const ri = itemsOf(ra, rhs);
    if (!ri) throw new TypedError(duplicateMessage(ra, rhs));
    if (li) return mergeItems(li, ri, ra);
  }
  return structuredClone(rhs);
}

function duplicateMessage(list: ListAtom, items: Json[]): string {
  const seen = new Set<PathElement>();
  for (let i = 0; i < items.length; i++) {
    let pe: PathElement;
    try {
      pe = itemElement(list, items[i], i);
    } catch (err) {
      return (err as Error).message;
    }
    if (seen.has(pe)) return `duplicate entries for key ${pe.slice(2)}`;
    seen.add(pe);
  }
  return 'invalid list';
}

/**
 * The merged items of a keyed or set list, in SMD's order: the live items in
 * their order, each merged with its applied version, and applied items the
 * live list lacks where they come in the applied list.
 */
function mergeItems(li: Map<PathElement, Json>, ri: Map<PathElement, Json>, list: ListAtom): Json[] {
  const lk = [...li.keys()];
  const rk = [...ri.keys()];
  const out: Json[] = [];
  const done = new Set<PathElement>();
  const emit = (pe: PathElement) => {
    if (done.has(pe)) return;
    done.add(pe);
    out.push(merge(li.get(pe), ri.get(pe), list.item()));
  };
  let l = 0;
  let r = 0;
  while (l < lk.length || r < rk.length) {
    if (l < lk.length && done.has(lk[l])) l++;
    else if (r < rk.length && done.has(rk[r])) r++;
    else if (l < lk.length && r < rk.length && lk[l] === rk[r]) {
      emit(lk[l]);
      l++;
      r++;
    } else if (l < lk.length && !ri.has(lk[l])) emit(lk[l++]);
    else if (r < rk.length) emit(rk[r++]);
    else emit(lk[l++]);
  }
  return out;
}

/** `v` without the members of `set` (typed.RemoveItems); the value is copied where it changes. */
export function removeItems(v: Json, set: FieldSet, atom: Atom): Json {
  if (set.empty()) return v;
  const a = shapeOf(atom, v);
  if (a.kind === 'map' && isMap(v)) {
    const out: JsonMap = {};
    for (const k of Object.keys(v)) {
      const pe = fieldElement(k);
      if (set.members.has(pe)) continue;
      const sub = set.children.get(pe);
      out[k] = sub ? removeItems(v[k], sub, valueAtom(a, k)) : v[k];
    }
    return out;
  }
  if (a.kind === 'list' && Array.isArray(v) && a.rel !== 'atomic') {
    const items = itemsOf(a, v);
    if (!items) return v;
    const out: Json[] = [];
    for (const [pe, item] of items) {
      if (set.members.has(pe)) continue;
      const sub = set.children.get(pe);
      out.push(sub ? removeItems(item, sub, a.item()) : item);
    }
    return out;
  }
  return v;
}

/**
 * `set` with every declared struct field that has members below it made a
 * member too (Set.EnsureNamedFieldsAreMembers): removing what a manager stops
 * applying then removes a struct field itself, not just what it held.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, atom: Atom): FieldSet {
  const out = new FieldSet();
  for (const m of set.members) out.members.add(m);
  for (const [pe, c] of set.children) {
    let childAtom: Atom = DEDUCED;
    if (atom.kind === 'map') {
      if (pe.startsWith('f:')) {
        const name = pe.slice(2);
        if (atom.field(name)) out.members.add(pe);
        childAtom = valueAtom(atom, name);
      }
    } else if (atom.kind === 'list') childAtom = atom.item();
    out.children.set(pe, ensureNamedFieldsAreMembers(c, childAtom));
  }
  return out;
}

/** Paths left out of a FieldsV1 text: `true` leaves the element out, an object goes on below it ("." for the member mark). */
export interface Omit {
  [pe: string]: true | Omit;
}

/**
 * changedFieldsV1 as JSON text, written as it walks (no objects to build and
 * serialize again): what a create's manager owns, on every create. `omit`
 * leaves paths out (a kube field manager's stripped metadata).
 */
export function changedFieldsV1Text(lhs: Json, rhs: Json, atom: Atom, omit?: Omit): string {
  const a = shapeOf(atom, rhs);
  if (!(a.kind === 'map' && !a.atomic && isMap(rhs))) return '{}';
  return mapText(isMap(lhs) ? lhs : undefined, rhs, a, omit, false) ?? '{}';
}

/** What the text walk needs of one key of a map: its element, quoted, and its atom. */
interface KeyPlan {
  pe: PathElement;
  quoted: string;
  atom: Atom;
}

/** Per map atom, its keys' plans (a map's own keys too, up to a bound: labels and data keys vary without end). */
const plans = new WeakMap<MapAtom, Map<string, KeyPlan>>();
const MAX_PLANNED_KEYS = 512;

function keyPlan(a: MapAtom, k: string): KeyPlan {
  let plan = plans.get(a);
  if (!plan) plans.set(a, (plan = new Map()));
  let kp = plan.get(k);
  if (!kp) {
    const pe = fieldElement(k);
    kp = { pe, quoted: quoted(pe), atom: valueAtom(a, k) };
    if (plan.size < MAX_PLANNED_KEYS) plan.set(k, kp);
  }
  return kp;
}

/** The text of a map node's entries ("." first when `member`), undefined when there are none and it is no member. */
function mapText(l: JsonMap | undefined, r: JsonMap, a: MapAtom, omit: Omit | undefined, member: boolean): string | undefined {
  const keys = Object.keys(r);
  if (keys.length > 1) keys.sort();
  let out = member && omit?.['.'] !== true ? '".":{}' : '';
  for (const k of keys) {
    const v = r[k];
    if (v === undefined) continue;
    const kp = keyPlan(a, k);
    const o = omit?.[kp.pe];
    if (o === true) continue;
    const t = l === undefined ? addedText(v, kp.atom, o) : changedText(l[k], v, kp.atom, o);
    if (t !== undefined) out += out ? `,${kp.quoted}:${t}` : `${kp.quoted}:${t}`;
  }
  if (!out) return member && omit?.['.'] !== true ? '{}' : undefined;
  return `{${out}}`;
}

/** A path element as a JSON string. */
function quoted(pe: PathElement): string {
  for (let i = 0; i < pe.length; i++) {
    const c = pe.charCodeAt(i);
    // A quote, a backslash, a control character or a surrogate: JSON.stringify writes it.
    if (c === 34 || c === 92 || c < 32 || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(pe);
  }
  return `"${pe}"`;
}

/** The text of a node that is new: a member, with its children's entries. */
function addedText(r: Json, atom: Atom, omit: Omit | undefined): string | undefined {
  if (typeof r !== 'object' || r === null) return '{}';
  const a = atom.kind === 'deduced' ? shapeOf(atom, r) : atom;
  if (a.kind === 'map' && !a.atomic && !Array.isArray(r)) return mapText(undefined, r as JsonMap, a, omit, true);
  if (a.kind === 'list' && a.rel !== 'atomic' && Array.isArray(r) && r.length > 0) {
    const items = itemsOf(a, r);
    if (!items) return '{}';
    const pes = [...items.keys()];
    if (pes.length > 1) pes.sort(compareElements);
    const item = a.item();
    let out = '".":{}';
    for (const p of pes) out += `,${JSON.stringify(p)}:${addedText(items.get(p), item, undefined) ?? '{}'}`;
    return `{${out}}`;
  }
  return '{}';
}

/** The text of a node that was there before (`l`, perhaps null): its changed entries, or undefined. */
function changedText(l: Json, r: Json, atom: Atom, omit: Omit | undefined): string | undefined {
  if (l === undefined) return addedText(r, atom, omit);
  if (r === null || typeof r !== 'object' || (isEmptyish(l) && isEmptyish(r))) return leafText(l, r);
  const a = atom.kind === 'deduced' ? shapeOf(atom, r) : atom;
  if (l !== null && atom.kind === 'deduced' && shapeOf(atom, l).kind !== a.kind) return leafText(l, r);
  if (a.kind === 'map' && !a.atomic && isMap(r) && mapLike(l)) return mapText(isMap(l) ? l : undefined, r, a, omit, false);
  if (a.kind === 'list' && a.rel !== 'atomic' && Array.isArray(r) && listLike(l)) {
    const li = Array.isArray(l) ? itemsOf(a, l) : EMPTY_ITEMS;
    const ri = itemsOf(a, r);
    if (li && ri) {
      const pes = [...ri.keys()];
      if (pes.length > 1) pes.sort(compareElements);
      const item = a.item();
      let out = '';
      for (const p of pes) {
        const t = changedText(li.get(p), ri.get(p), item, undefined);
        if (t !== undefined) out += `${out ? ',' : ''}${JSON.stringify(p)}:${t}`;
      }
      return out ? `{${out}}` : undefined;
    }
  }
  return leafText(l, r);
}

/** A leaf that was there: changed or not. */
function leafText(l: Json, r: Json): string | undefined {
  return deepEqual(l, r) ? undefined : '{}';
}
