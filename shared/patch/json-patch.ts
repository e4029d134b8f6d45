// JSON patch (RFC 6902, application/json-patch+json) applied as kube applies
// it with gopkg.in/evanphx/json-patch.v4, quirks included: a "replace" of a
// missing object key adds it, negative array indexes count from the end, a
// "copy" from a missing key copies null, and every message is the library's.
import { cloneJson, goQuote, hasKey, isObject, jsonEqual, jsonTypeName, setKey } from './go-format.ts';
import type { JsonObject } from './go-format.ts';
import { PatchError } from './patch-error.ts';

type Container = JsonObject | unknown[];
type Op = Record<string, unknown>;

const MISSING = 'missing value';
const invalidIndex = (idx: number | bigint): Error => new Error(`Unable to access invalid index: ${idx}: invalid index referenced`);

/** Go's strconv.Atoi, with its error text. */
function atoi(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw new Error(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n < -(2n ** 63n) || n > 2n ** 63n - 1n) throw new Error(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`);
  return Number(n);
}

/** RFC 6901 unescaping of one reference token. */
const decodeKey = (k: string): string => k.replace(/~1/g, '/').replace(/~0/g, '~');

/** Reads a child; a missing object key reads as undefined, a bad array index throws. */
function get(c: Container, key: string): unknown {
  if (!Array.isArray(c)) return hasKey(c, key) ? c[key] : undefined;
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -c.length) throw invalidIndex(idx);
    idx += c.length;
  }
  if (idx >= c.length) throw invalidIndex(idx);
  return c[idx];
}

function add(c: Container, key: string, value: unknown): void {
  if (!Array.isArray(c)) return setKey(c, key, value);
  if (key === '-') {
    c.push(value);
    return;
  }
  let idx: number;
  try {
    idx = atoi(key);
  } catch (err) {
    throw new Error(`value was not a proper array index: '${key}': ${(err as Error).message}`, { cause: err });
  }
  const size = c.length + 1;
  if (idx >= size) throw invalidIndex(idx);
  if (idx < 0) {
    if (idx < -size) throw invalidIndex(idx);
    idx += size;
  }
  c.splice(idx, 0, value);
}

function set(c: Container, key: string, value: unknown): void {
  if (!Array.isArray(c)) return setKey(c, key, value);
  let idx = atoi(key);
  if (idx < 0) {
    if (idx < -c.length) throw invalidIndex(idx);
    idx += c.length;
  }
  c[idx] = value;
}

function remove(c: Container, key: string): void {
  if (!Array.isArray(c)) {
    if (!hasKey(c, key)) throw new Error(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete c[key];
    return;
  }
  let idx = atoi(key);
  if (idx >= c.length) throw invalidIndex(idx);
  if (idx < 0) {
    if (idx < -c.length) throw invalidIndex(idx);
    idx += c.length;
  }
  c.splice(idx, 1);
}

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** The container holding the pointer's last token, and that token; undefined when the path does not exist. */
function findObject(root: Container, path: string): { con: Container; key: string } | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let doc: Container = root;
  for (const part of split.slice(1, -1)) {
    let next: unknown;
    try {
      next = get(doc, decodeKey(part));
    } catch {
      return undefined;
    }
    if (!isContainer(next)) return undefined;
    doc = next;
  }
  return { con: doc, key: decodeKey(split[split.length - 1]) };
}

/** Reads a string field of an operation: its value, or the error kube reports. */
function stringField(op: Op, name: 'path' | 'from'): { value: string } | { error: string } {
  const v = op[name];
  if (v === undefined || v === null) {
    return { error: name === 'path' ? `operation missing path field: ${MISSING}` : `operation, missing from field: ${MISSING}` };
  }
  if (typeof v !== 'string') return { error: `json: cannot unmarshal ${jsonTypeName(v)} into Go value of type string` };
  return { value: v };
}

function requirePath(op: Op, onError: (err: string) => string): string {
  const p = stringField(op, 'path');
  if ('error' in p) throw new PatchError(onError(p.error));
  return p.value;
}

function requireFrom(op: Op, kind: string): string {
  const f = stringField(op, 'from');
  if ('error' in f) throw new PatchError(`${kind} operation failed to decode from: ${f.error}`);
  return f.value;
}

/** The operation's value; an absent value acts as null, as a nil node does in the library. */
const valueOf = (op: Op): unknown => (op.value === undefined ? null : cloneJson(op.value));

function wrap(prefix: string, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    throw new PatchError(`${prefix}: ${(err as Error).message}`);
  }
}

interface Doc {
  root: Container;
  /** Bytes added by copy operations so far, and the most they may add (0: no limit). */
  copied: number;
  maxCopyBytes: number;
}

/** Options of applyJsonPatch. */
export interface JsonPatchOptions {
  /**
   * The most bytes all "copy" operations together may add (the library's
   * AccumulatedCopySizeLimit; kube-apiserver sets 3 MiB, JSONPatchMaxCopyBytes).
   * Without it a few dozen copies that each double a value exhaust memory.
   */
  maxCopyBytes?: number;
}

function applyAdd(doc: Doc, op: Op): void {
  const path = requirePath(op, () => `add operation failed to decode path: ${MISSING}`);
  const found = findObject(doc.root, path);
  if (!found) throw new PatchError(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrap(`error in add for path: '${path}'`, () => add(found.con, found.key, valueOf(op)));
}

function applyRemove(doc: Doc, op: Op): void {
  const path = requirePath(op, () => `remove operation failed to decode path: ${MISSING}`);
  const found = findObject(doc.root, path);
  if (!found) throw new PatchError(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrap(`error in remove for path: '${path}'`, () => remove(found.con, found.key));
}

function applyReplace(doc: Doc, op: Op): void {
  const path = requirePath(op, (err) => `replace operation failed to decode path: ${err}`);
  if (path === '') {
    if (!isContainer(op.value)) throw new PatchError('replace operation value must be object or array: %!w(<nil>)');
    doc.root = cloneJson(op.value);
    return;
  }
  const found = findObject(doc.root, path);
  if (!found) throw new PatchError(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
  try {
    get(found.con, found.key);
  } catch {
    throw new PatchError(`replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
  }
  // The library's own typo: a failed replace is reported as "error in remove".
  wrap(`error in remove for path: '${path}'`, () => set(found.con, found.key, valueOf(op)));
}

function applyMove(doc: Doc, op: Op): void {
  const from = requireFrom(op, 'move');
  const src = findObject(doc.root, from);
  if (!src) throw new PatchError(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  let value: unknown;
  wrap(`error in move for path: '${src.key}'`, () => {
    value = get(src.con, src.key);
  });
  wrap(`error in move for path: '${src.key}'`, () => remove(src.con, src.key));
  const path = requirePath(op, (err) => `move operation failed to decode path: ${err}`);
  const dst = findObject(doc.root, path);
  if (!dst) throw new PatchError(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  wrap(`error in move for path: '${path}'`, () => add(dst.con, dst.key, value ?? null));
}

function applyCopy(doc: Doc, op: Op): void {
  const from = requireFrom(op, 'copy');
  const src = findObject(doc.root, from);
  if (!src) throw new PatchError(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  let value: unknown;
  wrap(`error in copy for from: '${from}'`, () => {
    value = get(src.con, src.key);
  });
  const path = requirePath(op, () => `copy operation failed to decode path: ${MISSING}`);
  const dst = findObject(doc.root, path);
  if (!dst) throw new PatchError(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  // The library counts the copied value's JSON encoding, before it adds anything.
  const encoded = value === undefined ? undefined : JSON.stringify(value);
  if (encoded !== undefined) {
    doc.copied += Buffer.byteLength(encoded);
    if (doc.maxCopyBytes > 0 && doc.copied > doc.maxCopyBytes) {
      throw new PatchError(
        `Unable to complete the copy, the accumulated size increase of copy is ${doc.copied}, exceeding the limit ${doc.maxCopyBytes}`,
      );
    }
  }
  wrap('error while adding value during copy', () => add(dst.con, dst.key, encoded === undefined ? null : JSON.parse(encoded)));
}

function applyTest(doc: Doc, op: Op): void {
  const path = requirePath(op, (err) => `test operation failed to decode path: ${err}`);
  const failed = new PatchError(`testing value ${path} failed: test failed`);
  const expected = op.value;
  const expectNil = expected === undefined || expected === null;
  if (path === '') {
    if (expectNil || !jsonEqual(doc.root, expected)) throw failed;
    return;
  }
  const found = findObject(doc.root, path);
  if (!found) throw new PatchError(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
  let actual: unknown;
  wrap(`error in test for path: '${path}'`, () => {
    actual = get(found.con, found.key);
  });
  // A missing key and a null value are the same nil node to the library.
  if (actual === undefined || actual === null) {
    if (expectNil) return;
    throw failed;
  }
  if (expectNil || !jsonEqual(actual, expected)) throw failed;
}

const OPERATIONS: Record<string, (doc: Doc, op: Op) => void> = {
  add: applyAdd,
  remove: applyRemove,
  replace: applyReplace,
  move: applyMove,
  copy: applyCopy,
  test: applyTest,
};

/**
 * Applies a JSON patch to a document (an object or array) and returns the
 * result; neither argument is modified. Throws PatchError: code 400 when
 * `ops` is not a list of operation objects, 422 when an operation fails.
 */
export function applyJsonPatch<T>(doc: T, ops: unknown, options: JsonPatchOptions = {}): T {
  if (!Array.isArray(ops)) {
    throw new PatchError(`json: cannot unmarshal ${jsonTypeName(ops)} into Go value of type jsonpatch.Patch`, 400);
  }
  for (const op of ops) {
    if (op !== null && !isObject(op)) {
      throw new PatchError(`json: cannot unmarshal ${jsonTypeName(op)} into Go value of type jsonpatch.Operation`, 400);
    }
  }
  if (!isContainer(doc))
    throw new PatchError(`json: cannot unmarshal ${jsonTypeName(doc)} into Go value of type jsonpatch.partialDoc`, 500);
  const state: Doc = { root: cloneJson(doc), copied: 0, maxCopyBytes: options.maxCopyBytes ?? 0 };
  for (const raw of ops as (Op | null)[]) {
    const op: Op = raw ?? {};
    const kind = typeof op.op === 'string' ? op.op : 'unknown';
    const apply = hasKey(OPERATIONS, kind) ? OPERATIONS[kind] : undefined;
    if (!apply) throw new PatchError(`Unexpected kind: ${kind}`);
    apply(state, op);
  }
  return state.root as T;
}
