// Derives apiserver/validation/go-types.json: the Go type names kube's JSON
// decoder prints in "json: cannot unmarshal X into Go struct field S.f of type
// T" where they differ from what the OpenAPI schema alone implies (named types
// such as v1.PullPolicy, types.UID, v1.ResourceList, []v1.Capability). Read
// from the Go sources of k8s.io/api and k8s.io/apimachinery at the tags the
// schema came from. Run by hand; CI never runs it (the output is committed).
//
//   node apiserver/validation/derive-go-types.mjs \
//     --api GITDIR@v0.35.0 --apimachinery GITDIR@v0.35.0
//
// GITDIR is a bare clone (read with `git --git-dir=GITDIR show REF:path`).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = Object.fromEntries(
  process.argv
    .slice(2)
    .join(' ')
    .split(/\s*--/)
    .filter(Boolean)
    .map((a) => a.split(/\s+/)),
);

/** A git source: list a directory and read files at one commit. */
function gitSource(spec) {
  const at = spec.lastIndexOf('@');
  const gitDir = spec.slice(0, at);
  const ref = spec.slice(at + 1);
  const git = (...a) => execFileSync('git', ['--git-dir', gitDir, ...a], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const commit = git('rev-parse', `${ref}^{commit}`).trim();
  return {
    commit,
    ref,
    list: (dir) => git('ls-tree', '--name-only', `${commit}:${dir}`).split('\n').filter(Boolean),
    read: (path) => git('show', `${commit}:${path}`),
  };
}

const sources = { api: gitSource(args.api), apimachinery: gitSource(args.apimachinery) };
const schema = JSON.parse(readFileSync(join(here, '../../shared/api/schema/types.json'), 'utf8'));

/** Where the Go package of an OpenAPI definition prefix lives. */
function locate(importPath) {
  if (importPath.startsWith('k8s.io/api/')) return { src: sources.api, dir: importPath.slice('k8s.io/api/'.length) };
  if (importPath.startsWith('k8s.io/apimachinery/')) {
    return { src: sources.apimachinery, dir: importPath.slice('k8s.io/apimachinery/'.length) };
  }
  return undefined;
}

function importPathOfDef(def) {
  const parts = def.split('.');
  parts.pop();
  // io.k8s.api.core.v1 -> k8s.io/api/core/v1; io.k8s.apimachinery.pkg.apis.meta.v1 -> k8s.io/apimachinery/pkg/apis/meta/v1
  return 'k8s.io/' + parts.slice(2).join('/');
}

/** Parsed packages by import path: { name, structs: Map, named: Map }. */
const packages = new Map();

function loadPackage(importPath) {
  if (packages.has(importPath)) return packages.get(importPath);
  const where = locate(importPath);
  const pkg = { importPath, name: importPath.split('/').pop(), structs: new Map(), named: new Map() };
  packages.set(importPath, pkg);
  if (!where) return pkg;
  const files = where.src
    .list(where.dir)
    .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_generated') && !f.startsWith('generated'));
  for (const f of files) parseFile(pkg, where.src.read(`${where.dir}/${f}`));
  return pkg;
}

function parseFile(pkg, text) {
  const imports = new Map();
  for (const m of text.matchAll(/^\s*(?:(\w+)\s+)?"([\w./-]+)"\s*$/gm)) {
    const alias = m[1] ?? m[2].split('/').pop();
    imports.set(alias, m[2]);
  }
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const s = /^type (\w+) struct \{\s*$/.exec(lines[i]);
    if (s) {
      const fields = [];
      for (i++; i < lines.length && lines[i] !== '}'; i++) {
        const line = lines[i].replace(/\/\/.*$/, '').trim();
        if (!line) continue;
        const f = /^(?:(\w+)\s+)?([*\[\]\w.]+(?:\[[\w.*\[\]]+\][*\[\]\w.]+)?)\s+`([^`]*)`$/.exec(line);
        if (!f) continue;
        const tag = /json:"([^"]*)"/.exec(f[3])?.[1];
        if (tag === '-') continue;
        const jsonName = tag?.split(',')[0] ?? '';
        fields.push({ goName: f[1], type: f[2], jsonName, inline: !f[1] && (tag ?? '').includes('inline') });
      }
      pkg.structs.set(s[1], { fields, imports });
      continue;
    }
    const n = /^type (\w+) ([*\[\]\w.]+(?:\[[\w.*\[\]]+\][*\[\]\w.]+)?)\s*(?:\/\/.*)?$/.exec(lines[i]);
    if (n && n[2] !== 'struct') pkg.named.set(n[1], { type: n[2], imports });
  }
}

const BUILTIN = new Set([
  'string',
  'bool',
  'int',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'float32',
  'float64',
]);

/**
 * A Go type expression resolved in a package: { str } is what reflect's
 * Type.String() prints; elem is the element (slices) or value (maps) type,
 * following named types to their underlying composite type.
 */
function resolve(expr, pkg, imports) {
  if (expr.startsWith('*')) return resolve(expr.slice(1), pkg, imports); // the decoder allocates and derefs
  if (expr.startsWith('[]')) {
    const elem = resolve(expr.slice(2), pkg, imports);
    return { str: '[]' + (expr.slice(2).startsWith('*') ? '*' : '') + elem.str, elem };
  }
  const map = /^map\[([^\]]+)\](.+)$/.exec(expr);
  if (map) {
    const key = resolve(map[1], pkg, imports);
    const value = resolve(map[2], pkg, imports);
    return { str: `map[${key.str}]${map[2].startsWith('*') ? '*' : ''}${value.str}`, elem: value };
  }
  if (expr === 'byte') return { str: 'uint8' };
  if (BUILTIN.has(expr)) return { str: expr };
  let target = pkg;
  let name = expr;
  const dot = expr.indexOf('.');
  if (dot > 0) {
    const path = imports.get(expr.slice(0, dot));
    if (!path) throw new Error(`unknown import ${expr} in ${pkg.importPath}`);
    target = loadPackage(path);
    name = expr.slice(dot + 1);
  }
  const str = `${target.name}.${name}`;
  const named = target.named.get(name);
  if (named) {
    const under = resolve(named.type, target, named.imports);
    return { str, elem: under.elem };
  }
  return { str };
}

/** JSON-visible fields of a struct, promoting fields of inlined embedded structs. */
function jsonFields(pkg, structName) {
  const st = pkg.structs.get(structName);
  if (!st) return undefined;
  const out = new Map();
  for (const f of st.fields) {
    if (f.inline) {
      const t = f.type.replace(/^\*/, '');
      const dot = t.indexOf('.');
      const target = dot > 0 ? loadPackage(st.imports.get(t.slice(0, dot))) : pkg;
      const inner = jsonFields(target, dot > 0 ? t.slice(dot + 1) : t);
      for (const [k, v] of inner ?? []) if (!out.has(k)) out.set(k, v);
      continue;
    }
    if (!f.jsonName) continue;
    out.set(f.jsonName, resolve(f.type, pkg, st.imports));
  }
  return out;
}

/** What validation/ derives without this file (see goTypeOf in decode.ts). */
function defaultName(field) {
  switch (field.type) {
    case 'integer':
      return field.format === 'int64' ? 'int64' : 'int32';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'string':
      return field.format === 'byte' ? '[]uint8' : 'string';
    case 'ref': {
      const parts = field.ref.split('.');
      return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
    }
    case 'array':
      return '[]' + defaultName(field.items);
    case 'object':
      return 'map[string]' + defaultName(field.additionalProperties);
  }
  return '?';
}

const out = {};
let missing = 0;
for (const [def, t] of Object.entries(schema.types)) {
  if (t.special || t.synthetic || !Object.keys(t.fields).length) continue;
  const pkg = loadPackage(importPathOfDef(def));
  const structName = def.split('.').pop();
  const fields = jsonFields(pkg, structName);
  if (!fields) {
    console.error(`no Go struct for ${def}`);
    missing++;
    continue;
  }
  for (const [name, field] of Object.entries(t.fields)) {
    const go = fields.get(name);
    if (!go) {
      console.error(`no Go field for ${def}.${name}`);
      missing++;
      continue;
    }
    // One name per nesting level of the schema: the field, its items / values, theirs...
    const names = [];
    const defaults = [];
    let f = field;
    let g = go;
    while (f && g) {
      names.push(g.str);
      defaults.push(defaultName(f));
      f = f.items ?? f.additionalProperties;
      g = g.elem;
    }
    if (names.some((n, i) => n !== defaults[i])) (out[def] ??= {})[name] = names;
  }
}

const file = {
  source: {
    note: 'Go type names (reflect Type.String) of API fields where they differ from the OpenAPI-implied name; one entry per nesting level (field, items/values, ...).',
    api: { ref: sources.api.ref, commit: sources.api.commit },
    apimachinery: { ref: sources.apimachinery.ref, commit: sources.apimachinery.commit },
  },
  types: out,
};
writeFileSync(join(here, 'go-types.json'), JSON.stringify(file, null, 1) + '\n');
console.error(
  `wrote ${Object.keys(out).length} types, ${Object.values(out).reduce((n, o) => n + Object.keys(o).length, 0)} fields; ${missing} missing`,
);
