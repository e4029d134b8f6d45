// Derives shared/api/protobuf/go-fields.json: for every protobuf message in
// shared/api/schema/types.json, the JSON properties of its Go struct in Go
// field order, with what Go's encoding/json needs to know to write them: is
// the field a pointer, and does its tag say omitempty / omitzero. The schema
// alone cannot say this, and protobuf cannot either (go-to-protobuf writes
// every non-pointer field, zero or not), yet it decides whether a decoded
// `replicas: 0` survives and whether `uid: ""` appears. Fields of embedded
// (inlined) structs are listed in place, as encoding/json promotes them.
// Run by hand; the output is committed.
//
//   node shared/api/protobuf/derive-go-fields.mjs \
//     --api <k8s.io/api checkout | GITDIR@REF> \
//     --apimachinery <k8s.io/apimachinery checkout | GITDIR@REF>
//
// The committed go-fields.json came from the same commits as types.json:
//   --api           /work/.mirror/kubernetes+api/repo@v0.35.0 (9afe7de0a56c582b06ca094f7309015bc84657a7)
//   --apimachinery  /work/.mirror/kubernetes+apimachinery/repo@v0.35.0 (72d71eac265e06713c6d83d7034aac609450243f)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) args[argv[i].replace(/^--/, '')] = argv[i + 1];
  for (const k of ['api', 'apimachinery']) if (!args[k]) throw new Error(`--${k} is required`);
  return args;
}

/** A directory, or GITDIR@REF read with git: { read(path), list(dir), describe }. */
function openSource(spec) {
  const at = spec.lastIndexOf('@');
  if (at > 0 && !existsSync(spec)) {
    const gitDir = spec.slice(0, at);
    const ref = spec.slice(at + 1);
    const git = (...a) => execFileSync('git', ['--git-dir', gitDir, ...a], { encoding: 'utf8', maxBuffer: 64 << 20 });
    const commit = git('rev-parse', `${ref}^{commit}`).trim();
    return {
      describe: { ref, commit },
      read: (path) => git('show', `${commit}:${path}`),
      list: (dir) => git('ls-tree', '--name-only', `${commit}:${dir}`).split('\n').filter(Boolean),
    };
  }
  if (!existsSync(spec) || !statSync(spec).isDirectory()) throw new Error(`not a directory or GITDIR@REF: ${spec}`);
  return {
    describe: {},
    read: (path) => readFileSync(join(spec, path), 'utf8'),
    list: (dir) => (existsSync(join(spec, dir)) ? readdirSync(join(spec, dir)) : []),
  };
}

const args = parseArgs(process.argv.slice(2));
const sources = { api: openSource(args.api), apimachinery: openSource(args.apimachinery) };

/** Proto package -> [source, dir, Go import path]. */
function packageDir(protoPackage) {
  if (protoPackage.startsWith('k8s.io.api.')) {
    const dir = protoPackage.slice('k8s.io.api.'.length).replaceAll('.', '/');
    return ['api', dir, `k8s.io/api/${dir}`];
  }
  if (protoPackage.startsWith('k8s.io.apimachinery.')) {
    const dir = protoPackage.slice('k8s.io.apimachinery.'.length).replaceAll('.', '/');
    return ['apimachinery', dir, `k8s.io/apimachinery/${dir}`];
  }
  throw new Error(`unknown proto package ${protoPackage}`);
}

function importPathDir(importPath) {
  if (importPath.startsWith('k8s.io/api/')) return ['api', importPath.slice('k8s.io/api/'.length)];
  if (importPath.startsWith('k8s.io/apimachinery/')) return ['apimachinery', importPath.slice('k8s.io/apimachinery/'.length)];
  return undefined;
}

/** Go package (source:dir) -> Map(struct name -> { fields, imports }). */
const packages = new Map();

function loadPackage(source, dir) {
  const key = `${source}:${dir}`;
  if (packages.has(key)) return packages.get(key);
  const structs = new Map();
  packages.set(key, structs);
  for (const file of sources[source].list(dir)) {
    if (!file.endsWith('.go') || file.endsWith('_test.go') || file.startsWith('zz_generated') || file.includes('.pb.')) continue;
    // Block comments hold prose that would parse as fields.
    const text = sources[source].read(`${dir}/${file}`).replace(/\/\*[\s\S]*?\*\//g, '');
    const imports = new Map();
    for (const m of text.matchAll(/^\s*(?:(\w+)\s+)?"(k8s\.io\/[^"]+)"/gm)) {
      imports.set(m[1] ?? m[2].split('/').pop(), m[2]);
    }
    for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
      const fields = [];
      let error;
      for (const raw of m[2].split('\n')) {
        const line = raw.replace(/^\s+/, '');
        if (!line || line.startsWith('//')) continue;
        const f = /^(\S+)(?:\s+(\S+))?\s+`([^`]*)`/.exec(line) ?? /^(\S+)(?:\s+(\S+))?\s*(?:\/\/.*)?$/.exec(line);
        if (!f) {
          // Only an error if this struct is one the schema needs.
          error ??= `${dir}/${file} ${m[1]}: cannot parse ${JSON.stringify(line)}`;
          continue;
        }
        const tag = f[3] ?? '';
        const json = /json:"([^"]*)"/.exec(tag)?.[1];
        const embedded = f[2] === undefined;
        fields.push({ goName: f[1], type: embedded ? f[1] : f[2], embedded, json, tag });
      }
      structs.set(m[1], { fields, imports, error });
    }
  }
  return structs;
}

/**
 * The JSON properties of a Go struct in field order: [jsonName, flags],
 * flags made of p (pointer), o (omitempty), z (omitzero).
 */
function jsonFields(source, dir, name, seen = []) {
  if (seen.includes(`${dir}.${name}`)) throw new Error(`embedding cycle at ${dir}.${name}`);
  const struct = loadPackage(source, dir).get(name);
  if (!struct) return undefined;
  if (struct.error) throw new Error(struct.error);
  const out = [];
  for (const f of struct.fields) {
    const opts = (f.json ?? '').split(',');
    if (opts[0] === '-') continue;
    if (f.embedded && !opts[0]) {
      if (f.type.startsWith('*')) throw new Error(`${dir}.${name}: pointer embedding ${f.type} is not handled`);
      let [src, d, n] = [source, dir, f.type];
      if (f.type.includes('.')) {
        const [alias, typeName] = f.type.split('.');
        const loc = importPathDir(struct.imports.get(alias) ?? '');
        if (!loc) throw new Error(`${dir}.${name}: cannot resolve embedded ${f.type}`);
        [src, d, n] = [...loc, typeName];
      }
      const inner = jsonFields(src, d, n, [...seen, `${dir}.${name}`]);
      if (!inner) throw new Error(`${dir}.${name}: no struct ${f.type}`);
      out.push(...inner);
      continue;
    }
    if (f.json === undefined) {
      if (/^[A-Z]/.test(f.goName) && !f.embedded) throw new Error(`${dir}.${name}.${f.goName}: exported field without a json tag`);
      continue;
    }
    let flags = '';
    if (f.type.startsWith('*')) flags += 'p';
    if (opts.includes('omitempty')) flags += 'o';
    if (opts.includes('omitzero')) flags += 'z';
    out.push([opts[0], flags]);
  }
  return out;
}

const schema = JSON.parse(readFileSync(join(here, '../schema/types.json'), 'utf8'));
const messages = {};
const missing = [];
for (const [defName, t] of Object.entries(schema.types)) {
  if (!t.proto || t.special) continue;
  const dot = t.proto.lastIndexOf('.');
  const [source, dir] = packageDir(t.proto.slice(0, dot));
  const fields = jsonFields(source, dir, t.proto.slice(dot + 1));
  if (!fields) {
    missing.push(t.proto);
    continue;
  }
  const names = new Set(fields.map(([n]) => n));
  for (const jsonName of Object.keys(t.fields)) {
    if (!names.has(jsonName)) throw new Error(`${defName}: schema field ${jsonName} is not in the Go struct`);
  }
  messages[t.proto] = Object.fromEntries(fields);
}
if (missing.length) console.error(`no Go struct for: ${missing.join(', ')}`);

const out = {
  source: {
    api: sources.api.describe,
    apimachinery: sources.apimachinery.describe,
    note: 'Go struct JSON fields by protobuf message, in Go field order. Flags: p = pointer, o = omitempty, z = omitzero.',
  },
  messages,
};
const lines = Object.entries(messages).map(([m, f]) => `    ${JSON.stringify(m)}: ${JSON.stringify(f)}`);
writeFileSync(
  join(here, 'go-fields.json'),
  `{\n  "source": ${JSON.stringify(out.source)},\n  "messages": {\n${lines.join(',\n')}\n  }\n}\n`,
);
console.error(`wrote ${Object.keys(messages).length} messages`);
