// Field paths and sets of them, as structured-merge-diff's fieldpath package
// models them. A path element is kept in its FieldsV1 spelling, which is
// canonical and so doubles as a map key: `f:name` (a struct field or a map
// key), `k:{"name":"web"}` (an item of a keyed list, its key fields sorted),
// `v:"a"` (an item of a set list, by value), `i:3` (an item by position).

/** One step of a path, in its FieldsV1 spelling. */
export type PathElement = string;

/** A path from the root of an object. */
export type Path = readonly PathElement[];

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const valueElement = (value: unknown): PathElement => `v:${JSON.stringify(value)}`;
export const indexElement = (i: number): PathElement => `i:${i}`;

/** A keyed list item's element: the key fields sorted by name. */
export function keyElement(key: Record<string, unknown>): PathElement {
  const names = Object.keys(key).sort();
  return `k:{${names.map((n) => `${JSON.stringify(n)}:${JSON.stringify(key[n])}`).join(',')}}`;
}

const RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** The order SMD sorts elements in: fields, then keys, then values, then indexes. */
export function compareElements(a: PathElement, b: PathElement): number {
  const ra = RANK[a[0]] ?? 4;
  const rb = RANK[b[0]] ?? 4;
  if (ra !== rb) return ra - rb;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Go's %v of a scalar as value.ToString prints it (strings quoted). */
function valueText(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** An element as SMD prints it in messages: `.name`, `[name="web"]`, `[="a"]`, `[3]`. */
export function elementText(pe: PathElement): string {
  const body = pe.slice(2);
  switch (pe[0]) {
    case 'f':
      return `.${body}`;
    case 'k': {
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.keys(key)
        .map((k) => `${k}=${valueText(key[k])}`)
        .join(',')}]`;
    }
    case 'v':
      return `[=${valueText(JSON.parse(body))}]`;
    case 'i':
      return `[${body}]`;
    default:
      return '{{invalid path element}}';
  }
}

/** A path as SMD prints it: `.spec.containers[name="web"].image`. */
export function pathText(path: Path): string {
  return path.map(elementText).join('');
}

/** An error reading a FieldsV1 document. */
export class FieldsV1Error extends Error {}

/** A set of paths, as a tree: the elements that end a member path here, and the subtrees below. */
export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  /** A set of these paths. */
  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds `path` (the empty path is not a member of anything and is ignored). */
  insert(path: Path): this {
    if (path.length === 0) return this;
    if (path.length === 1) {
      this.members.add(path[0]);
      return this;
    }
    let node = this.child(path[0]);
    for (let i = 1; i < path.length - 1; i++) node = node.child(path[i]);
    node.members.add(path[path.length - 1]);
    return this;
  }

  /** The subtree below `pe`, created when missing. */
  child(pe: PathElement): FieldSet {
    let c = this.children.get(pe);
    if (!c) {
      c = new FieldSet();
      this.children.set(pe, c);
    }
    return c;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    if (path.length === 1) return this.members.has(path[0]);
    let node = this.children.get(path[0]);
    for (let i = 1; i < path.length - 1 && node; i++) node = node.children.get(path[i]);
    return node?.members.has(path[path.length - 1]) ?? false;
  }

  empty(): boolean {
    if (this.members.size > 0) return false;
    for (const c of this.children.values()) if (!c.empty()) return false;
    return true;
  }

  union(o: FieldSet): FieldSet {
    const out = this.copy();
    out.addAll(o);
    return out;
  }

  /** Adds every path of `o` to this set. */
  addAll(o: FieldSet): void {
    for (const m of o.members) this.members.add(m);
    for (const [pe, c] of o.children) this.child(pe).addAll(c);
  }

  difference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      const d = oc ? c.difference(oc) : c.copy();
      if (!d.empty()) out.children.set(pe, d);
    }
    return out;
  }

  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (o.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const oc = o.children.get(pe);
      if (!oc) continue;
      const i = c.intersection(oc);
      if (!i.empty()) out.children.set(pe, i);
    }
    return out;
  }

  copy(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.copy());
    return out;
  }

  equals(o: FieldSet): boolean {
    return this.difference(o).empty() && o.difference(this).empty();
  }

  /** Every member path, in SMD's order: a level's members (sorted), then its subtrees (sorted). */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (node: FieldSet, prefix: PathElement[]) => {
      for (const m of [...node.members].sort(compareElements)) out.push([...prefix, m]);
      for (const pe of [...node.children.keys()].sort(compareElements)) walk(node.children.get(pe)!, [...prefix, pe]);
    };
    walk(this, []);
    return out;
  }

  /** The FieldsV1 document: each element a key, `"."` marking a path that is a member and also has members below. */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let keys: PathElement[];
    if (this.children.size === 0) keys = [...this.members];
    else {
      keys = [...this.children.keys()];
      for (const m of this.members) if (!this.children.has(m)) keys.push(m);
    }
    if (keys.length > 1) keys.sort(compareElements);
    for (const pe of keys) {
      const c = this.children.get(pe);
      // Sets keep no empty subtrees (insert makes none; difference and intersection drop them).
      const below = c !== undefined && (c.members.size > 0 || c.children.size > 0);
      if (!below) {
        if (this.members.has(pe)) out[pe] = {};
      } else if (this.members.has(pe)) out[pe] = Object.assign({ '.': {} }, c.toFieldsV1());
      else out[pe] = c.toFieldsV1();
    }
    return out;
  }

  /** Reads a FieldsV1 document; throws FieldsV1Error for one SMD would not read. */
  static fromFieldsV1(doc: unknown): FieldSet {
    const out = new FieldSet();
    const read = (node: unknown, into: FieldSet, parent: FieldSet | undefined, self: PathElement | undefined) => {
      if (node === null || typeof node !== 'object' || Array.isArray(node)) throw new FieldsV1Error('expected an object');
      const entries = Object.entries(node as Record<string, unknown>);
      if (entries.length === 0 && parent && self !== undefined) {
        parent.members.add(self);
        return;
      }
      for (const [k, v] of entries) {
        if (k === '.') {
          if (!parent || self === undefined) throw new FieldsV1Error('"." at the top level');
          parent.members.add(self);
          continue;
        }
        checkElement(k);
        read(v, into.child(k), into, k);
      }
    };
    read(doc, out, undefined, undefined);
    return prune(out);
  }
}

function checkElement(k: string): void {
  const kind = k.slice(0, 2);
  const body = k.slice(2);
  try {
    if (kind === 'f:') return;
    if (kind === 'k:') {
      const v: unknown = JSON.parse(body);
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) return;
    } else if (kind === 'v:') {
      JSON.parse(body);
      return;
    } else if (kind === 'i:' && /^-?\d+$/.test(body)) return;
  } catch {
    // Reported below.
  }
  throw new FieldsV1Error(`parsing JSON: ${JSON.stringify(k)} is not a path element`);
}

/** Drops empty subtrees (a FieldsV1 leaf reads as a member, not as a child). */
function prune(s: FieldSet): FieldSet {
  for (const [pe, c] of s.children) {
    prune(c);
    if (c.empty()) s.children.delete(pe);
  }
  return s;
}
