// What the schema derivation scripts (derive-schema.mjs, derive-go-types.mjs,
// derive-go-fields.mjs) share: their command lines, reading the k8s.io/api and
// k8s.io/apimachinery source trees (a checkout directory or GITDIR@REF), where
// a Go or protobuf package lives in those trees, and a small parser for the Go
// struct and named type declarations of the API packages. One parser, so the
// three derived files agree on what a Go source says.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Parses `--name value` pairs into { name: value }. Only the names listed are
 * allowed: `required` ones must be given, `optional` ones may be, `repeated`
 * ones may be given any number of times (an array); `defaults` gives the value
 * of an option left out.
 */
export function parseArgs(argv, { required = [], optional = [], repeated = [], defaults = {} }) {
  const args = { ...defaults };
  for (const k of repeated) args[k] = [];
  const known = new Set([...required, ...optional, ...repeated]);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const name = a.replace(/^--/, '');
    if (!a.startsWith('--') || !known.has(name)) throw new Error(`unknown argument ${a}`);
    if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
    const value = argv[++i];
    if (repeated.includes(name)) args[name].push(value);
    else args[name] = value;
  }
  for (const k of required) {
    if (!args[k]) throw new Error(`--${k} is required (see the comment at the top of the script)`);
  }
  return args;
}

/**
 * A source tree: a directory, or GITDIR@REF read with `git --git-dir=GITDIR`
 * (so a bare mirror works). `read(path)` is the file's text or undefined if
 * there is none; `list(dir)` names the entries of a directory; `describe` is
 * what the derived files record about the source ({ ref, commit } for git).
 */
export function openSource(spec) {
  const at = spec.lastIndexOf('@');
  if (at > 0 && !existsSync(spec)) {
    const gitDir = spec.slice(0, at);
    const ref = spec.slice(at + 1);
    const git = (...a) => execFileSync('git', ['--git-dir', gitDir, ...a], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const commit = git('rev-parse', `${ref}^{commit}`).trim();
    return {
      describe: { ref, commit },
      read(path) {
        try {
          return git('show', `${commit}:${path}`);
        } catch {
          return undefined;
        }
      },
      list: (dir) => git('ls-tree', '--name-only', `${commit}:${dir}`).split('\n').filter(Boolean),
    };
  }
  if (!existsSync(spec) || !statSync(spec).isDirectory()) throw new Error(`not a directory or GITDIR@REF: ${spec}`);
  return {
    describe: {},
    read(path) {
      const p = join(spec, path);
      return existsSync(p) ? readFileSync(p, 'utf8') : undefined;
    },
    list: (dir) => (existsSync(join(spec, dir)) ? readdirSync(join(spec, dir)) : []),
  };
}

/**
 * The source trees a script reads: k8s.io/api and k8s.io/apimachinery from
 * the --api and --apimachinery arguments, and, when given, the API packages
 * of k8s.io/apiextensions-apiserver (--apiextensions) and k8s.io/kube-aggregator
 * (--aggregator).
 */
export function openKubeSources(args) {
  const sources = { api: openSource(args.api), apimachinery: openSource(args.apimachinery) };
  if (args.apiextensions) sources['apiextensions-apiserver'] = openSource(args.apiextensions);
  if (args.aggregator) sources['kube-aggregator'] = openSource(args.aggregator);
  return sources;
}

// ---------------------------------------------------------------------------
// Where packages live. Go import paths, protobuf packages and OpenAPI
// definition names all follow the directory layout of the two repositories:
// k8s.io/api/core/v1 = k8s.io.api.core.v1 = io.k8s.api.core.v1.

/** The repositories API packages live in, by their k8s.io/ import path prefix (= source tree name). */
const SOURCE_TREES = ['api', 'apimachinery', 'apiextensions-apiserver', 'kube-aggregator'];

/** The source tree (one of SOURCE_TREES) and directory of a Go import path, or undefined outside them. */
export function locateGoPackage(importPath) {
  for (const source of SOURCE_TREES) {
    const prefix = `k8s.io/${source}/`;
    if (importPath.startsWith(prefix)) return { source, dir: importPath.slice(prefix.length) };
  }
  return undefined;
}

/**
 * The Go import path of a protobuf package: k8s.io.api.core.v1 ->
 * k8s.io/api/core/v1. go-to-protobuf writes a repository's "-" as "_"
 * (k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1).
 */
export function goImportPathOfProtoPackage(protoPackage) {
  const tree = SOURCE_TREES.find((t) => protoPackage.startsWith(`k8s.io.${t.replaceAll('-', '_')}.`));
  if (!tree) throw new Error(`no source tree known for proto package ${protoPackage}`);
  const rest = protoPackage.slice(`k8s.io.${tree}.`.length);
  return `k8s.io/${tree}/` + rest.replaceAll('.', '/');
}

/** The Go import path of an OpenAPI definition's package: io.k8s.api.core.v1.Pod -> k8s.io/api/core/v1. */
export function goImportPathOfDefinition(def) {
  const parts = def.split('.');
  parts.pop();
  return 'k8s.io/' + parts.slice(2).join('/');
}

/** The generated.proto of a protobuf package: { source, path }. */
export function protoFileOf(protoPackage) {
  const { source, dir } = locateGoPackage(goImportPathOfProtoPackage(protoPackage));
  return { source, path: `${dir}/generated.proto` };
}

// ---------------------------------------------------------------------------
// Go sources: the declarations the API packages are written with, read line by
// line (gofmt'd code: `type X struct {` ... `}` at the start of a line, one
// field a line). Not a Go parser: enough for k8s.io/api and apimachinery.

/** Files of a package that hold its hand-written declarations (not tests, not generated code). */
const isDeclarationFile = (f) =>
  f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_generated') && !f.startsWith('generated') && !f.includes('.pb.');

/** The imports of one Go file: Map(name used in the file -> import path). */
function parseImports(text) {
  const imports = new Map();
  const add = (alias, path) => imports.set(alias ?? path.split('/').pop(), path);
  for (const m of text.matchAll(/^import\s+(?:(\w+)\s+)?"([^"]+)"/gm)) add(m[1], m[2]);
  for (const block of text.matchAll(/^import\s*\(([\s\S]*?)^\)/gm)) {
    for (const m of block[1].matchAll(/^\s*(?:(\w+)\s+)?"([^"]+)"/gm)) add(m[1], m[2]);
  }
  return imports;
}

/**
 * Parses the declarations of a Go file: { imports, structs, named }. structs
 * maps a struct's name to { fields, imports, error }, each field { goName,
 * type, embedded, tag, json } (json: the json tag's value, undefined without
 * one); named maps a named non-struct type (`type PullPolicy string`) to
 * { type, imports }. A line that does not read as a field sets the struct's
 * `error`: it only matters if a script needs that struct.
 */
export function parseGoFile(text, file) {
  // Block comments hold prose that would parse as fields.
  const src = text.replace(/\/\*[\s\S]*?\*\//g, '');
  const imports = parseImports(src);
  const structs = new Map();
  const named = new Map();
  for (const m of src.matchAll(/^type (\w+) struct \{[ \t]*\n([\s\S]*?)^\}/gm)) {
    const fields = [];
    let error;
    for (const raw of m[2].split('\n')) {
      const line = raw.trim();
      if (!line || line.startsWith('//')) continue;
      const f = /^(\S+)(?:\s+(\S+))?\s+`([^`]*)`/.exec(line) ?? /^(\S+)(?:\s+(\S+))?\s*(?:\/\/.*)?$/.exec(line);
      if (!f) {
        error ??= `${file} ${m[1]}: cannot parse ${JSON.stringify(line)}`;
        continue;
      }
      const tag = f[3] ?? '';
      const embedded = f[2] === undefined;
      fields.push({
        goName: embedded ? undefined : f[1],
        type: embedded ? f[1] : f[2],
        embedded,
        tag,
        json: /json:"([^"]*)"/.exec(tag)?.[1],
      });
    }
    structs.set(m[1], { fields, imports, error });
  }
  for (const m of src.matchAll(/^type (\w+) ([*[\]\w.]+)[ \t]*(?:\/\/.*)?$/gm)) {
    if (m[2] !== 'struct') named.set(m[1], { type: m[2], imports });
  }
  return { imports, structs, named };
}

/**
 * The Go packages of the two source trees, parsed on demand and kept.
 * `load(importPath)` is { importPath, name, structs, named }; a package outside
 * the trees (the standard library) has no declarations.
 */
export function goPackages(sources) {
  const packages = new Map();
  const load = (importPath) => {
    if (packages.has(importPath)) return packages.get(importPath);
    const pkg = { importPath, name: importPath.split('/').pop(), structs: new Map(), named: new Map() };
    packages.set(importPath, pkg);
    const where = locateGoPackage(importPath);
    if (!where) return pkg;
    const src = sources[where.source];
    for (const f of src.list(where.dir).filter(isDeclarationFile)) {
      const path = `${where.dir}/${f}`;
      const text = src.read(path);
      if (text === undefined) throw new Error(`cannot read ${where.source}:${path}`);
      const parsed = parseGoFile(text, path);
      for (const [k, v] of parsed.structs) pkg.structs.set(k, v);
      for (const [k, v] of parsed.named) pkg.named.set(k, v);
    }
    return pkg;
  };
  return { load };
}

/**
 * The JSON properties of a Go struct as encoding/json sees them, in Go field
 * order: [{ name, field, pkg, imports }], fields of embedded structs without a
 * JSON name promoted in place. Undefined if the package has no such struct.
 * Throws on what encoding/json would do and this does not model (an exported
 * field without a json tag, a pointer embedding, a JSON name twice).
 */
export function jsonFields(packages, pkg, structName, seen = []) {
  const where = `${pkg.importPath}.${structName}`;
  if (seen.includes(where)) throw new Error(`embedding cycle at ${where}`);
  const struct = pkg.structs.get(structName);
  if (!struct) return undefined;
  if (struct.error) throw new Error(struct.error);
  const out = [];
  for (const f of struct.fields) {
    const name = (f.json ?? '').split(',')[0];
    if (name === '-') continue;
    if (f.embedded && !name) {
      if (f.type.startsWith('*')) throw new Error(`${where}: pointer embedding ${f.type} is not handled`);
      let [target, typeName] = [pkg, f.type];
      if (f.type.includes('.')) {
        const [alias, n] = f.type.split('.');
        const importPath = struct.imports.get(alias);
        if (!importPath || !locateGoPackage(importPath)) throw new Error(`${where}: cannot resolve embedded ${f.type}`);
        [target, typeName] = [packages.load(importPath), n];
      }
      const inner = jsonFields(packages, target, typeName, [...seen, where]);
      if (!inner) throw new Error(`${where}: no struct ${f.type}`);
      out.push(...inner);
      continue;
    }
    if (f.json === undefined) {
      if (!f.embedded && /^[A-Z]/.test(f.goName)) throw new Error(`${where}.${f.goName}: exported field without a json tag`);
      continue;
    }
    if (!name) throw new Error(`${where}.${f.goName}: json tag without a name`);
    out.push({ name, field: f, pkg, imports: struct.imports });
  }
  const names = new Set();
  for (const { name } of out) {
    if (names.has(name)) throw new Error(`${where}: JSON name ${name} twice (Go's precedence rules are not modelled)`);
    names.add(name);
  }
  return out;
}
