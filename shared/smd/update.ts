// Field ownership across writes, as SMD's merge.Updater keeps it: an update
// (any write that is not an apply) gives its manager what it changed and
// takes it from the others; an apply merges the configuration, refuses to
// take another manager's field unless forced, and removes what its manager
// applied last time and applies no more, unless someone else owns it.
import { FieldSet, type Path } from './fieldpath.ts';
import type { Atom } from './schema.ts';
import { compare, ensureNamedFieldsAreMembers, merge, removeItems, toFieldSet, type Comparison } from './typed.ts';

/** One manager's fields: the set, the apiVersion it was written in, and whether it came from an apply. */
export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** Each manager's fields, by manager identifier. */
export type ManagedFields = Map<string, VersionedSet>;

/** One conflict: a field another manager owns that the apply would change. */
export interface Conflict {
  manager: string;
  path: Path;
}

/** An apply refused for its conflicts (merge.Conflicts). */
export class ConflictError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(`${conflicts.length} conflict(s)`);
  }
}

/** What the updater needs besides the objects. */
export interface UpdaterOptions {
  atom: Atom;
  /** Takes from a manager's set the fields it may not own (kube's reset fields: status on the main resource); it may change the set it is given. */
  ignore?: (set: FieldSet) => FieldSet;
}

const copyManagers = (m: ManagedFields): ManagedFields => new Map(m);

/**
 * The common part of update and apply: other managers lose what the write
 * changed (`conflicts`, only allowed when `force`) and what it removed.
 */
function takeFrom(
  live: unknown,
  next: unknown,
  managers: ManagedFields,
  self: string,
  force: boolean,
  o: UpdaterOptions,
): { managers: ManagedFields; compare: Comparison } {
  const c = compare(live, next, o.atom);
  const out = copyManagers(managers);
  if (managers.size === 0 || (managers.size === 1 && managers.has(self))) return { managers: out, compare: c };
  const changed = c.modified.union(c.added);
  const conflicts = new Map<string, FieldSet>();
  for (const [manager, vs] of managers) {
    if (manager === self) continue;
    const conflict = vs.set.intersection(changed);
    if (!conflict.empty()) conflicts.set(manager, conflict);
  }
  if (!force && conflicts.size > 0) {
    const list: Conflict[] = [];
    for (const [manager, set] of conflicts) for (const path of set.paths()) list.push({ manager, path });
    throw new ConflictError(list);
  }
  for (const [manager, vs] of managers) {
    if (manager === self) continue;
    let set = vs.set;
    const conflict = conflicts.get(manager);
    if (conflict) set = set.difference(conflict);
    if (!c.removed.empty()) set = set.difference(c.removed);
    if (set.empty()) out.delete(manager);
    else if (set !== vs.set) out.set(manager, { ...vs, set });
  }
  return { managers: out, compare: c };
}

/**
 * A write that is not an apply (Updater.Update): `manager` gets what changed
 * from `live` to `next` on top of what it had, others lose it. Returns the
 * new managers; `next` is stored as it is.
 */
export function update(
  live: unknown,
  next: unknown,
  apiVersion: string,
  managers: ManagedFields,
  manager: string,
  o: UpdaterOptions,
): ManagedFields {
  const { managers: out, compare: c } = takeFrom(live, next, managers, manager, true, o);
  const prev = out.get(manager)?.set;
  // The comparison's sets are this call's own: they are built on, not copied.
  let set = prev ? prev.difference(c.removed) : c.added;
  if (prev) set.addAll(c.added);
  set.addAll(c.modified);
  if (o.ignore) set = o.ignore(set);
  if (set.empty()) out.delete(manager);
  else out.set(manager, { set, apiVersion, applied: false });
  return out;
}

/** The result of an apply: the object (undefined when it is unchanged) and the managers. */
export interface ApplyResult {
  object: unknown;
  managers: ManagedFields;
}

/**
 * Updater.Apply: merges `config` into `live`; `manager` now owns what
 * `config` sets; what it owned before and sets no more is removed unless
 * another manager owns it; fields another manager owns that the apply
 * changes are conflicts (ConflictError) unless `force`, which takes them.
 */
export function apply(
  live: unknown,
  config: unknown,
  apiVersion: string,
  managers: ManagedFields,
  manager: string,
  force: boolean,
  o: UpdaterOptions,
): ApplyResult {
  let merged = merge(live, config, o.atom);
  const last = managers.get(manager);
  let set = toFieldSet(config, o.atom);
  if (o.ignore) set = o.ignore(set);
  const withSelf = copyManagers(managers);
  withSelf.set(manager, { set, apiVersion, applied: true });
  if (last && !last.set.empty()) merged = prune(merged, withSelf, last.set, o.atom);
  const { managers: out } = takeFrom(live, merged, withSelf, manager, force, o);
  if (out.get(manager)?.set.empty()) out.delete(manager);
  return { object: isUnchanged(live, merged, o.atom) ? undefined : merged, managers: out };
}

function isUnchanged(live: unknown, merged: unknown, atom: Atom): boolean {
  const c = compare(live, merged, atom);
  return c.added.empty() && c.modified.empty() && c.removed.empty();
}

/**
 * Removes from `merged` what the applier owned last time (`last`) that no
 * manager (the applier's new set included) owns now. Named struct fields with
 * owned fields below count as owned themselves, so an emptied struct goes too.
 */
function prune(merged: unknown, managers: ManagedFields, last: FieldSet, atom: Atom): unknown {
  const owned = new FieldSet();
  for (const vs of managers.values()) owned.addAll(vs.set);
  const lastNamed = ensureNamedFieldsAreMembers(last, atom);
  const ownedNamed = ensureNamedFieldsAreMembers(owned, atom);
  const present = ensureNamedFieldsAreMembers(toFieldSet(merged, atom), atom);
  const remove = lastNamed.difference(ownedNamed).intersection(present);
  return removeItems(merged, remove, atom);
}
