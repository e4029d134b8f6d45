// What changed between two versions of an object, field by field, and which
// revision last set each field (blame), in structured-merge-diff's terms: a
// field is a path of the object's schema (`.spec.template.spec.containers[name="web"].image`),
// so list items are named by their merge keys as managedFields names them.
import { compare, FieldSet, pathText, schemaFor, toFieldSet, type Atom, type Path, type PathElement } from '../../shared/smd/index.ts';
import type { BlamedField, FieldChange } from '../../shared/api/history-types.ts';

type Json = unknown;
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema atom of an object, from its apiVersion and kind. */
export function atomOf(obj: Json): Atom {
  const o = isMap(obj) ? obj : {};
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  return schemaFor(text(o.apiVersion), text(o.kind));
}

function matchesKey(item: unknown, key: Record<string, unknown>): boolean {
  return isMap(item) && Object.entries(key).every(([k, v]) => JSON.stringify(item[k]) === JSON.stringify(v));
}

/** The value at `path` in `obj` (undefined when there is none). */
export function valueAt(obj: Json, path: Path): unknown {
  let v: unknown = obj;
  for (const pe of path) {
    const body = pe.slice(2);
    if (pe[0] === 'f') v = isMap(v) ? v[body] : undefined;
    else if (pe[0] === 'i') v = Array.isArray(v) ? v[Number(body)] : undefined;
    else if (pe[0] === 'k') v = Array.isArray(v) ? v.find((it) => matchesKey(it, JSON.parse(body) as Record<string, unknown>)) : undefined;
    else if (pe[0] === 'v') v = Array.isArray(v) ? v.find((it) => JSON.stringify(it) === body) : undefined;
    else return undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

const startsWith = (path: Path, prefix: Path) => prefix.length < path.length && prefix.every((pe, i) => path[i] === pe);

/** The paths of `set` without those under another of its paths. */
function topmost(set: FieldSet): Path[] {
  const out: Path[] = [];
  for (const p of set.paths().sort((a, b) => a.length - b.length)) if (!out.some((q) => startsWith(p, q))) out.push(p);
  return out;
}

/** resourceVersion and managedFields change with every write: a diff and a blame leave them out. */
const SKIPPED: PathElement[][] = [
  ['f:metadata', 'f:resourceVersion'],
  ['f:metadata', 'f:managedFields'],
];
const skipped = (p: Path) => SKIPPED.some((s) => s.every((pe, i) => p[i] === pe));

/** The fields that differ from `before` to `after` (either may be undefined: a create or a delete), in path order. */
export function fieldChanges(before: Json, after: Json, atom: Atom = atomOf(after ?? before)): FieldChange[] {
  const c = compare(before ?? {}, after ?? {}, atom);
  const changes: FieldChange[] = [];
  for (const p of topmost(c.added)) if (!skipped(p)) changes.push({ path: pathText(p), op: 'add', new: valueAt(after, p) });
  for (const p of topmost(c.removed)) if (!skipped(p)) changes.push({ path: pathText(p), op: 'remove', old: valueAt(before, p) });
  for (const p of c.modified.paths())
    if (!skipped(p)) changes.push({ path: pathText(p), op: 'replace', old: valueAt(before, p), new: valueAt(after, p) });
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** One version of an object, as blame reads it. */
export interface BlameVersion {
  revision: string;
  time: string;
  writer?: BlamedField['writer'];
  obj: Json;
}

/** The leaves of `obj`: members of its field set that have nothing below them. */
function leaves(obj: Json, atom: Atom): Path[] {
  const set = toFieldSet(obj, atom);
  return set.paths().filter((p) => {
    let node: FieldSet | undefined = set;
    for (const pe of p) node = node?.children.get(pe);
    return !node || node.empty();
  });
}

/** The managers that own each path of `obj`, from its managedFields (Apply owners first, then the newest). */
function ownersOf(obj: Json): { manager: string; set: FieldSet }[] {
  const meta = isMap(obj) && isMap(obj.metadata) ? obj.metadata : {};
  const entries = Array.isArray(meta.managedFields) ? meta.managedFields : [];
  const owners: { manager: string; set: FieldSet }[] = [];
  for (const e of entries) {
    if (!isMap(e) || typeof e.manager !== 'string') continue;
    try {
      owners.push({ manager: e.manager, set: FieldSet.fromFieldsV1(e.fieldsV1 ?? {}) });
    } catch {
      // A managedFields entry that cannot be read names no owner.
    }
  }
  return owners;
}

/**
 * Which version last set each leaf field of the newest of `versions`
 * (oldest first): the newest version whose diff from its predecessor
 * added or changed the field or a field above it.
 */
export function blame(versions: readonly BlameVersion[]): BlamedField[] {
  if (versions.length === 0) return [];
  const newest = versions[versions.length - 1].obj;
  const atom = atomOf(newest);
  // For every path some version set, the index of the newest such version.
  const setBy = new Map<string, number>();
  let before: Json = undefined;
  versions.forEach((v, i) => {
    const c = compare(before ?? {}, v.obj ?? {}, atom);
    for (const p of [...c.added.paths(), ...c.modified.paths()]) setBy.set(JSON.stringify(p), i);
    before = v.obj;
  });
  const owners = ownersOf(newest);
  const out: BlamedField[] = [];
  for (const p of leaves(newest, atom)) {
    if (skipped(p)) continue;
    // The newest of the versions that set the leaf or a path above it.
    let index = 0;
    for (let n = p.length; n > 0; n--) {
      const i = setBy.get(JSON.stringify(p.slice(0, n)));
      if (i !== undefined && i > index) index = i;
    }
    const v = versions[index];
    const field: BlamedField = { path: pathText(p), value: valueAt(newest, p), revision: v.revision, time: v.time };
    if (v.writer) field.writer = v.writer;
    const owner = owners.find((o) => o.set.has(p));
    if (owner) field.manager = owner.manager;
    out.push(field);
  }
  return out;
}
