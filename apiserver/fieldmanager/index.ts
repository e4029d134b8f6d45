// metadata.managedFields on every write, with kube's field manager rules
// (k8s.io/apimachinery/pkg/util/managedfields/internal) on top of the SMD
// library (shared/smd):
// - the manager is the fieldManager parameter, else the User-Agent's product
//   ("kubectl/v1.35.0 (...)" is "kubectl");
// - a write that is not an apply records one Update entry per manager,
//   apiVersion and subresource, with what it changed; an update that changes
//   nothing leaves the entries and their times alone;
// - identity and server-owned metadata (apiVersion, kind, metadata.name,
//   namespace, uid, resourceVersion, creationTimestamp, generation,
//   managedFields, selfLink) are never owned;
// - at most 10 Update entries: the oldest are merged into "ancient-changes";
// - a client may send managedFields: a readable list replaces them, an empty
//   list (or one empty entry) clears them, an unreadable one is ignored (the
//   stored ones are kept); on a subresource they are always ignored;
// - an object without managedFields stays without on update; its first
//   apply gives what it holds to "before-first-apply";
// - kubectl's client-side apply annotation: an apply by "kubectl" may take
//   the fields its last-applied configuration holds without a conflict, and
//   keeps the annotation in step (the CSA to SSA migration).
// KSIM_MANAGED_FIELDS=off turns all of this off (for the create benchmark's comparison).
import type { ManagedFieldsEntry } from 'kubernetes-types/meta/v1.js';
import { StatusError, type StatusCause } from '../../shared/api/errors.ts';
import { apiVersionOf, type ResourceType } from '../../shared/api/resource-type.ts';
import { typeFor, typeForKind } from '../../shared/api/schema/index.ts';
import {
  apply as smdApply,
  changedFieldsV1Text,
  compare,
  ConflictError,
  FieldSet,
  fieldElement,
  pathText,
  schemaFor,
  toFieldSet,
  update as smdUpdate,
  type Atom,
  type Conflict,
  type Omit,
  type ManagedFields,
  type VersionedSet,
} from '../../shared/smd/index.ts';
import { timestamp } from '../registry/lifecycle.ts';
import type { KubeObject } from '../registry/object.ts';
import { isStackExhausted } from '../http/nesting.ts';
import { RESOURCE_VERSION_PLACEHOLDER, SerializedObject } from '../storage/serialized-object.ts';
import type { PreparedCreate } from '../handlers/new-object-types.ts';

/** Whether managedFields are tracked (KSIM_MANAGED_FIELDS=off turns them off, for benchmarks). */
export const MANAGED_FIELDS_ENABLED = process.env.KSIM_MANAGED_FIELDS !== 'off';

/** kube's DefaultMaxUpdateManagers. */
export const MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES = 'ancient-changes';
const BEFORE_FIRST_APPLY = 'before-first-apply';
const CURRENT_OPERATION = 'current-operation';
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** kube's FieldManagerMaxLength. */
const FIELD_MANAGER_MAX_LENGTH = 128;

/** What identifies an entry: everything but its fields and time (an applier's apiVersion neither). */
interface ManagerInfo {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion?: string;
  subresource?: string;
}

/** The identifier of a manager, as kube's BuildManagerIdentifier writes it. */
export function managerId(m: ManagerInfo): string {
  const o: Record<string, string> = { manager: m.manager, operation: m.operation };
  if (m.operation === 'Update' && m.apiVersion) o.apiVersion = m.apiVersion;
  if (m.subresource) o.subresource = m.subresource;
  return JSON.stringify(o);
}

const infoOf = (id: string): ManagerInfo => JSON.parse(id) as ManagerInfo;

/** Decoded managedFields: each manager's set, and its time. */
export interface Managed {
  fields: ManagedFields;
  times: Map<string, string | undefined>;
}

const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

/** Reads managedFields; throws an Error (kube's wording) for a list it cannot read. */
export function decodeManaged(entries: unknown): Managed {
  const out = emptyManaged();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  for (const e of entries as ManagedFieldsEntry[]) {
    if (e === null || typeof e !== 'object') throw new Error('managedFields entry must be an object');
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (e.fieldsType !== 'FieldsV1') throw new Error(`invalid FieldsType ${JSON.stringify(e.fieldsType ?? '')}`);
    const id = managerId({
      manager: e.manager ?? '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: e.subresource,
    });
    if (out.fields.has(id)) throw new Error(`duplicate entries for manager ${JSON.stringify(e.manager ?? '')}`);
    const set = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    out.fields.set(id, { set, apiVersion: e.apiVersion ?? '', applied: e.operation === 'Apply' });
    out.times.set(id, e.time);
  }
  return out;
}

/** Writes managedFields in kube's order: operation, time, manager, apiVersion, subresource. */
export function encodeManaged(m: Managed): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of m.fields) {
    const info = infoOf(id);
    const e: ManagedFieldsEntry = { manager: info.manager, operation: info.operation, apiVersion: vs.apiVersion };
    const time = m.times.get(id);
    if (time) e.time = time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = vs.set.toFieldsV1();
    if (info.subresource) e.subresource = info.subresource;
    entries.push(e);
  }
  const seconds = (t: string | undefined) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort(
    (p, q) =>
      cmp(p.operation!, q.operation!) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager ?? '', q.manager ?? '') ||
      cmp(p.apiVersion ?? '', q.apiVersion ?? '') ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
}

/** kube's managerOrUserAgent: the fieldManager parameter, else the User-Agent up to its first "/", printable characters only. */
export function managerName(query: URLSearchParams, userAgent: string | undefined): string {
  const given = query.get('fieldManager');
  if (given) return given;
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0]) {
    if (!/\P{C}/u.test(ch)) continue;
    if (out.length >= FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out;
}

/** ValidateFieldManager for a write's options (CreateOptions, UpdateOptions or PatchOptions). */
export function checkFieldManager(query: URLSearchParams, optionsKind: string): void {
  const m = query.get('fieldManager');
  if (!m) return;
  const causes: StatusCause[] = [];
  const messages: string[] = [];
  if (Buffer.byteLength(m) > FIELD_MANAGER_MAX_LENGTH) {
    const message = `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`;
    causes.push({ reason: 'FieldValueTooLong', message, field: 'fieldManager' });
    messages.push(`fieldManager: ${message}`);
  }
  if ([...m].some((ch) => !/\P{C}/u.test(ch))) {
    const message = `Invalid value: ${JSON.stringify(m)}: invalid characters`;
    causes.push({ reason: 'FieldValueInvalid', message, field: 'fieldManager' });
    messages.push(`fieldManager: ${message}`);
  }
  if (causes.length === 0) return;
  const joined = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  throw new StatusError(422, 'Invalid', `${optionsKind}.meta.k8s.io "" is invalid: ${joined}`, {
    group: 'meta.k8s.io',
    kind: optionsKind,
    causes,
  });
}

/** Who writes, and through which endpoint. */
export interface WriteContext {
  rt: ResourceType;
  manager: string;
  /** '' for the main resource, else 'status', 'scale', ... */
  subresource: string;
  now: Date;
}

const STRIP_METADATA = [
  'name',
  'namespace',
  'creationTimestamp',
  'selfLink',
  'uid',
  'clusterName',
  'generation',
  'managedFields',
  'resourceVersion',
];

/** stripmeta: what no manager owns (taken out of `set` itself). */
function strip(set: FieldSet): FieldSet {
  const out = set;
  out.members.delete('f:apiVersion');
  out.members.delete('f:kind');
  out.members.delete('f:metadata');
  const meta = out.children.get('f:metadata');
  if (meta) {
    for (const f of STRIP_METADATA) meta.members.delete(fieldElement(f));
    if (meta.empty()) out.children.delete('f:metadata');
  }
  return out;
}

/** `set` without the top-level fields `names` and all below them (taken out of `set` itself). */
function without(set: FieldSet, names: string[]): FieldSet {
  const out = set;
  for (const n of names) {
    out.members.delete(fieldElement(n));
    out.children.delete(fieldElement(n));
  }
  return out;
}

/** `set` with only the paths under `path` (and `path` itself). */
function only(set: FieldSet, path: string[]): FieldSet {
  const out = new FieldSet();
  let src: FieldSet | undefined = set;
  let dst = out;
  for (let i = 0; i < path.length - 1 && src; i++) {
    src = src.children.get(fieldElement(path[i]));
    dst = dst.child(fieldElement(path[i]));
  }
  const last = fieldElement(path[path.length - 1]);
  if (src?.members.has(last)) dst.members.add(last);
  const below = src?.children.get(last);
  if (below) dst.children.set(last, below.copy());
  return out.empty() ? new FieldSet() : out;
}

/**
 * kube's reset fields: what a manager cannot own through this endpoint. The
 * main resource of a kind with a status subresource resets status; the
 * status subresource owns status (and metadata) only; scale, the replicas.
 */
function ignoreFor(rt: ResourceType, subresource: string): ((s: FieldSet) => FieldSet) | undefined {
  if (subresource === 'status') return (s) => only(s, ['status']).union(only(s, ['metadata']));
  if (subresource === 'scale') return (s) => only(s, ['spec', 'replicas']);
  if (subresource === '' && rt.subresources.includes('status')) return (s) => without(s, ['status']);
  return undefined;
}

/** The atom of a resource's kind. */
export function atomFor(rt: ResourceType): Atom {
  return schemaFor(apiVersionOf(rt), rt.kind);
}

/**
 * The object a create starts from, as kube's empty typed object serializes:
 * metadata, spec and status are there, empty, and so (as far as the schema
 * tells: its required fields stand for Go's fields without omitempty) are
 * the struct fields below that Go always writes, empty, and others as null.
 */
function emptyObject(rt: ResourceType, atom: Atom): KubeObject {
  let obj = emptyObjects.get(rt);
  if (!obj) emptyObjects.set(rt, (obj = buildEmptyObject(rt, atom)));
  return obj;
}

/** Read only: compare never changes its operands. */
const emptyObjects = new WeakMap<ResourceType, KubeObject>();

function buildEmptyObject(rt: ResourceType, atom: Atom): KubeObject {
  const obj: Record<string, unknown> = { apiVersion: apiVersionOf(rt), kind: rt.kind, metadata: {} };
  const t = typeForKind(rt.group, rt.version, rt.kind);
  if (atom.kind === 'map') {
    for (const f of ['spec', 'status']) {
      const field = t?.fields[f];
      const a = atom.field(f);
      if (a?.kind === 'map' && !a.atomic) obj[f] = field?.type === 'ref' && field.ref ? zeroStruct(field.ref, 0) : {};
    }
  }
  return obj as unknown as KubeObject;
}

const zeroCache = new Map<string, Record<string, unknown>>();

/** The zero value of a struct type as Go writes it: its required fields, structs empty and the rest null. */
function zeroStruct(typeName: string, depth: number): Record<string, unknown> {
  const cached = zeroCache.get(typeName);
  if (cached) return structuredClone(cached);
  const out: Record<string, unknown> = {};
  const t = typeFor(typeName);
  for (const name of t?.required ?? []) {
    const f = t!.fields[name];
    if (!f) continue;
    const ref = f.type === 'ref' && f.ref ? typeFor(f.ref) : undefined;
    out[name] =
      ref && ref.type === 'object' && !ref.special && ref.mapType !== 'atomic' && depth < 4 ? zeroStruct(ref.name, depth + 1) : null;
  }
  zeroCache.set(typeName, out);
  return structuredClone(out);
}

/** `obj` without its managedFields (a shallow copy: the rest is shared). */
function withoutManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields === undefined) return obj;
  const metadata = { ...obj.metadata };
  delete metadata.managedFields;
  return { ...obj, metadata };
}

/** kube's isResetManagedFields: `[]` or `[{}]`. */
function isReset(sent: unknown): boolean {
  if (!Array.isArray(sent)) return false;
  if (sent.length === 0) return true;
  return sent.length === 1 && sent[0] !== null && typeof sent[0] === 'object' && Object.keys(sent[0] as object).length === 0;
}

function tryDecode(entries: unknown): Managed {
  try {
    return decodeManaged(entries);
  } catch {
    return emptyManaged();
  }
}

/** capmanagers: past MAX_UPDATE_MANAGERS Update entries, the oldest are merged into one "ancient-changes" entry per apiVersion. */
function capManagers(m: Managed): void {
  const updaters = [...m.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  const seconds = (id: string) => {
    const t = m.times.get(id);
    return t ? Math.floor(Date.parse(t) / 1000) : 0;
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i];
    const vs = m.fields.get(id)!;
    const time = m.times.get(id);
    const bucket = managerId({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, id);
      continue;
    }
    if (!m.fields.has(bucket)) {
      m.fields.set(bucket, m.fields.get(first)!);
      m.fields.delete(first);
      m.times.delete(first);
    }
    m.fields.set(bucket, { set: vs.set.union(m.fields.get(bucket)!.set), apiVersion: vs.apiVersion, applied: false });
    m.fields.delete(id);
    m.times.delete(id);
    length--;
    m.times.set(bucket, time);
  }
}

/** The Update-operation identifier of `w`'s manager. */
function updaterId(w: WriteContext, manager = w.manager): string {
  return managerId({ manager, operation: 'Update', apiVersion: apiVersionOf(w.rt), subresource: w.subresource });
}

/**
 * The managers after an Update by `id` from `live` to `next` (managedfieldsupdater:
 * the write's own fields join what the manager had, and only a write that took
 * fields moves its time).
 */
function updateManaged(w: WriteContext, atom: Atom, live: KubeObject, next: KubeObject, managed: Managed, id: string): Managed {
  const apiVersion = apiVersionOf(w.rt);
  const fields = smdUpdate(live, next, apiVersion, managed.fields, CURRENT_OPERATION, { atom, ignore: ignoreFor(w.rt, w.subresource) });
  const times = new Map(managed.times);
  const own = fields.get(CURRENT_OPERATION);
  fields.delete(CURRENT_OPERATION);
  const stripped = own && strip(own.set);
  if (stripped && !stripped.empty()) {
    const previous = fields.get(id);
    fields.set(id, { set: previous ? stripped.union(previous.set) : stripped, apiVersion, applied: false });
    times.set(id, timestamp(w.now));
  }
  for (const k of times.keys()) if (!fields.has(k)) times.delete(k);
  const out = { fields, times };
  capManagers(out);
  return out;
}

/**
 * Sets `next.metadata.managedFields` for a write that is not an apply (a
 * create when `live` is undefined, an update, a patch, a subresource write).
 * `next` is the object about to be stored, defaults applied.
 */
export function trackUpdate(w: WriteContext, live: KubeObject | undefined, next: KubeObject): void {
  if (!MANAGED_FIELDS_ENABLED) return;
  try {
    trackUpdateOrThrow(w, live, next);
  } catch (err) {
    // kube's UpdateNoErrors: a write whose managedFields cannot be worked out (here: nested deeper than
    // the walks can go) keeps the stored ones.
    if (!isStackExhausted(err)) throw err;
    if (live?.metadata.managedFields) next.metadata.managedFields = live.metadata.managedFields;
    else delete next.metadata.managedFields;
  }
}

function trackUpdateOrThrow(w: WriteContext, live: KubeObject | undefined, next: KubeObject): void {
  const meta = next.metadata;
  const sent: unknown = meta.managedFields;
  let managed: Managed;
  if (w.subresource) managed = tryDecode(live?.metadata.managedFields);
  else if (isReset(sent)) managed = emptyManaged();
  else {
    managed = tryDecode(sent);
    if (managed.fields.size === 0) managed = tryDecode(live?.metadata.managedFields);
  }
  delete meta.managedFields;
  // skipnonapplied: an existing object without managedFields is not tracked by updates.
  if (live && managed.fields.size === 0) return;
  const atom = atomFor(w.rt);
  // The common create: one Update entry of everything it set, in one walk of the object.
  if (!live && managed.fields.size === 0) return createEntry(w, next);
  const out = updateManaged(w, atom, live ? withoutManagedFields(live) : emptyObject(w.rt, atom), next, managed, updaterId(w));
  setManaged(next, out);
}

/** What no manager owns, as changedFieldsV1Text leaves it out (stripmeta), and status on the main resource when it has a status subresource. */
const OMIT_STRIPPED: Omit = {
  'f:apiVersion': true,
  'f:kind': true,
  'f:metadata': { '.': true, ...Object.fromEntries(STRIP_METADATA.map((f) => [`f:${f}`, true as const])) },
};
const OMIT_STRIPPED_AND_STATUS: Omit = { ...OMIT_STRIPPED, 'f:status': true };

/**
 * A create's fieldsV1 is a function of its resource, subresource and the
 * object's JSON without the fields no manager owns (stripmeta: name,
 * namespace, uid, creationTimestamp, ...): the Pods a ReplicaSet creates
 * from one template, or a benchmark's, differ only there. The walk that
 * writes it is then done once per template, and a JSON.stringify (native,
 * several times faster) finds it again. Bounded; a large object is not kept.
 */
const createdDocs = new Map<string, string>();
const MAX_CREATED_DOCS = 256;
const MAX_CREATED_KEY = 64 * 1024;
const UNOWNED_METADATA: Record<string, undefined> = Object.fromEntries(STRIP_METADATA.map((f) => [f, undefined]));

function createdFieldsKey(w: WriteContext, next: KubeObject): string | undefined {
  const owned = JSON.stringify({ ...next, metadata: { ...next.metadata, ...UNOWNED_METADATA } });
  if (owned.length > MAX_CREATED_KEY) return undefined;
  return `${apiVersionOf(w.rt)}/${w.rt.plural}/${w.subresource}\n${owned}`;
}

/**
 * A create's managedFields as JSON text, in one walk of the object: the same
 * entry updateManaged makes from kube's empty object (undefined when the
 * create owns nothing). The create workers splice it into the object's JSON.
 */
export function createEntriesText(w: WriteContext, next: KubeObject): string | undefined {
  const key = createdFieldsKey(w, next);
  let doc = key === undefined ? undefined : createdDocs.get(key);
  if (doc === undefined) {
    const atom = atomFor(w.rt);
    const omit = w.subresource === '' && w.rt.subresources.includes('status') ? OMIT_STRIPPED_AND_STATUS : OMIT_STRIPPED;
    doc = changedFieldsV1Text(emptyObject(w.rt, atom), next, atom, omit);
    if (key !== undefined) {
      if (createdDocs.size >= MAX_CREATED_DOCS) createdDocs.clear();
      createdDocs.set(key, doc);
    }
  }
  if (doc === '{}') return undefined;
  return `[${entryHead(w)},"fieldsV1":${doc}}]`;
}

let lastHead = { manager: '', apiVersion: '', stamp: '', text: '' };

/** The text of a create entry up to its fields (kept while manager, apiVersion and second stay: a run of creates shares it). */
function entryHead(w: WriteContext): string {
  const apiVersion = apiVersionOf(w.rt);
  const stamp = secondsOf(w.now);
  const h = lastHead;
  if (h.manager === w.manager && h.apiVersion === apiVersion && h.stamp === stamp) return h.text;
  const text = JSON.stringify({ manager: w.manager, operation: 'Update', apiVersion, time: stamp, fieldsType: 'FieldsV1' }).slice(0, -1);
  lastHead = { manager: w.manager, apiVersion, stamp, text };
  return text;
}

let lastSecond = NaN;
let lastStamp = '';

/** timestamp(now), kept for the second it names: creates come many a second. */
function secondsOf(now: Date): string {
  const second = Math.floor(now.getTime() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastStamp = timestamp(now);
  }
  return lastStamp;
}

function createEntry(w: WriteContext, next: KubeObject): void {
  const text = createEntriesText(w, next);
  if (text !== undefined) next.metadata.managedFields = JSON.parse(text) as ManagedFieldsEntry[];
}

function setManaged(obj: KubeObject, m: Managed): void {
  if (m.fields.size === 0) delete obj.metadata.managedFields;
  else obj.metadata.managedFields = encodeManaged(m);
}

/** kube's printManager: `"alice"`, `"alice" with subresource "status"`, `"alice" using v1`. */
function printManager(id: string): string {
  let info: ManagerInfo;
  try {
    info = infoOf(id);
  } catch {
    return JSON.stringify(id);
  }
  let s = JSON.stringify(info.manager);
  if (info.subresource) s += ` with subresource ${JSON.stringify(info.subresource)}`;
  if (info.operation === 'Update') s += ` using ${info.apiVersion ?? ''}`;
  return s;
}

/** kube's NewConflictError: a 409 naming each conflict, grouped by manager when there are several. */
export function conflictError(conflicts: Conflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => (a.manager < b.manager ? -1 : a.manager > b.manager ? 1 : 0));
  const causes: StatusCause[] = sorted.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathText(c.path),
  }));
  let message: string;
  if (sorted.length === 1)
    message = `Apply failed with 1 conflict: conflict with ${printManager(sorted[0].manager)}: ${pathText(sorted[0].path)}`;
  else {
    const lines: string[] = [];
    let current: string | undefined;
    for (const c of sorted) {
      if (c.manager !== current) {
        current = c.manager;
        lines.push(`conflicts with ${printManager(c.manager)}:`);
      }
      lines.push(`- ${pathText(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { causes });
}

/** The fields kubectl's last-applied annotation holds that still have their values on `live` (lastappliedmanager). */
function lastAppliedFields(rt: ResourceType, live: KubeObject, atom: Atom): FieldSet | undefined {
  const text = live.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
  if (!text) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (last === null || typeof last !== 'object' || (last as { apiVersion?: unknown }).apiVersion !== apiVersionOf(rt)) return undefined;
  const c = compare(last, live, atom);
  return toFieldSet(last, atom).difference(c.modified).difference(c.added).difference(c.removed);
}

/** The result of an apply to an existing object. */
export interface ApplyOutcome {
  /** The object to store (managedFields set); equal to `live` but for them when the apply changed nothing. */
  object: KubeObject;
}

/**
 * Applies `config` to the stored `live` object (or to kube's empty object
 * when `live` is undefined: the create of an apply). Throws the 409 for
 * conflicts unless `force`.
 */
export function trackApply(w: WriteContext, live: KubeObject | undefined, config: KubeObject, force: boolean): KubeObject {
  const atom = atomFor(w.rt);
  const start = live ? withoutManagedFields(live) : structuredClone(emptyObject(w.rt, atom));
  if (!MANAGED_FIELDS_ENABLED) {
    const merged = smdApply(start, config, apiVersionOf(w.rt), new Map(), w.manager, true, { atom }).object as KubeObject | undefined;
    return merged ?? structuredClone(start);
  }
  let managed: Managed;
  try {
    managed = decodeManaged(live?.metadata.managedFields);
  } catch (err) {
    throw new StatusError(500, 'InternalError', `failed to decode managed fields: ${(err as Error).message}`);
  }
  // skipnonapplied: what an untracked object already holds belongs to "before-first-apply".
  if (live && managed.fields.size === 0) {
    managed = updateManaged(w, atom, emptyObject(w.rt, atom), start, managed, updaterId(w, BEFORE_FIRST_APPLY));
  }
  const id = managerId({ manager: w.manager, operation: 'Apply', subresource: w.subresource });
  const apiVersion = apiVersionOf(w.rt);
  const opts = { atom, ignore: ignoreFor(w.rt, w.subresource) };
  let result;
  try {
    result = smdApply(start, config, apiVersion, managed.fields, id, force, opts);
  } catch (err) {
    if (!(err instanceof ConflictError)) throw err;
    // lastappliedmanager: kubectl taking over from its client-side apply conflicts only where the live object left its last configuration.
    const allowed = w.manager === 'kubectl' && live ? lastAppliedFields(w.rt, live, atom) : undefined;
    if (!allowed) throw conflictError(err.conflicts);
    const left = err.conflicts.filter((c) => !allowed.has(c.path));
    if (left.length > 0) throw conflictError(left);
    result = smdApply(start, config, apiVersion, managed.fields, id, true, opts);
  }
  const times = new Map(managed.times);
  const fields = result.managers;
  const own = fields.get(id);
  if (own) {
    const stripped = strip(own.set);
    if (stripped.empty()) fields.delete(id);
    else fields.set(id, { ...own, set: stripped } satisfies VersionedSet);
  }
  let object: KubeObject;
  if (result.object !== undefined) {
    object = result.object as KubeObject;
    times.set(id, timestamp(w.now));
  } else object = structuredClone(start);
  for (const k of times.keys()) if (!fields.has(k)) times.delete(k);
  const out = { fields, times };
  capManagers(out);
  // lastappliedupdater: kubectl's server-side apply keeps the client-side annotation in step.
  if (w.manager === 'kubectl' && live?.metadata.annotations?.[LAST_APPLIED_ANNOTATION] !== undefined) {
    const applied = structuredClone(config);
    const annotations = applied.metadata?.annotations;
    if (annotations) {
      delete annotations[LAST_APPLIED_ANNOTATION];
      if (Object.keys(annotations).length === 0) delete applied.metadata.annotations;
    }
    object.metadata.annotations = { ...object.metadata.annotations, [LAST_APPLIED_ANNOTATION]: sortedJson(applied) };
  }
  object.metadata = { ...object.metadata };
  setManaged(object, out);
  return object;
}

/** The manager name a create worker writes in its entry, for the main thread to replace: `placeholder` is the worker's resourceVersion placeholder (hex, never escaped). */
export function managerPlaceholder(placeholder: string): string {
  return `${placeholder}-manager`;
}

/** A create prepared on a worker, with the request's field manager in its entry. */
export function withManager(p: PreparedCreate, manager: string): PreparedCreate {
  if (!(p.value instanceof SerializedObject)) return p;
  const marker = `"manager":"${managerPlaceholder(RESOURCE_VERSION_PLACEHOLDER)}"`;
  const at = p.value.json.indexOf(marker);
  if (at < 0) return p;
  const json = p.value.json.slice(0, at) + `"manager":${JSON.stringify(manager)}` + p.value.json.slice(at + marker.length);
  return { ...p, value: new SerializedObject(json) };
}

/** JSON with every object's keys sorted, as Go encodes an unstructured object. */
export function sortedJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => {
    if (val === null || typeof val !== 'object' || Array.isArray(val)) return val;
    const o = val as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, o[k]]),
    );
  });
}

/** A create's managedFields the long way, through field sets (the reference the fast path is tested against). */
export function createEntriesBySets(w: WriteContext, next: KubeObject): ManagedFieldsEntry[] {
  const atom = atomFor(w.rt);
  return encodeManaged(updateManaged(w, atom, emptyObject(w.rt, atom), next, emptyManaged(), updaterId(w)));
}

/** A new object's managedFields, worked out before mutating admission: set on the object, or the text of its one entry. */
export type CreatedFields = { inPlace: true } | { inPlace: false; text?: string };

/**
 * The managedFields of a new object as it stands: as kube's create handler,
 * before mutating admission (what admission adds, a ServiceAccount's token
 * volume or a Priority, is no manager's). The common create's entry is kept
 * as text, to be written into the JSON (serializeWithCreatedFields).
 */
export function createdFields(w: WriteContext, obj: KubeObject): CreatedFields {
  const sent: unknown = obj.metadata.managedFields;
  if (!MANAGED_FIELDS_ENABLED || (sent !== undefined && !isReset(sent))) {
    trackUpdate(w, undefined, obj);
    return { inPlace: true };
  }
  delete obj.metadata.managedFields;
  try {
    return { inPlace: false, text: createEntriesText(w, obj) };
  } catch (err) {
    if (!isStackExhausted(err)) throw err;
    return { inPlace: false };
  }
}

/** `obj`'s JSON with `created` (from createdFields, before admission) as its managedFields. */
export function serializeWithCreatedFields(w: WriteContext, obj: KubeObject, created: CreatedFields): string {
  const text = created.inPlace ? undefined : created.text;
  if (text === undefined) return JSON.stringify(obj);
  const marker = `managed-fields-${w.now.getTime()}-${Math.random()}`;
  (obj.metadata as Record<string, unknown>).managedFields = marker;
  const json = JSON.stringify(obj);
  delete obj.metadata.managedFields;
  const at = json.lastIndexOf(`"managedFields":"${marker}"`);
  return json.slice(0, at) + `"managedFields":${text}` + json.slice(at + marker.length + 18);
}
