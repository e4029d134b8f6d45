// Derives apiserver/validation/go-types.json: the Go type names kube's JSON
// decoder prints in "json: cannot unmarshal X into Go struct field S.f of type
// T" where they differ from what the OpenAPI schema alone implies (named types
// such as v1.PullPolicy, types.UID, v1.ResourceList, []v1.Capability). Read
// from the Go sources of k8s.io/api and k8s.io/apimachinery at the tags the
// schema came from. Run by hand; CI never runs it (the output is committed).
//
//   node scripts/derive-go-types.mjs \
//     --api <k8s.io/api checkout dir | GITDIR@REF> \
//     --apimachinery <k8s.io/apimachinery checkout dir | GITDIR@REF> \
//     [--schema shared/api/schema/types.json] [--out apiserver/validation]
//
// A GITDIR@REF input is read with `git --git-dir=GITDIR show REF:path`, so a
// bare mirror works. The committed go-types.json came from the same commits as
// types.json:
//   --api           kubernetes/api@v0.35.0 (9afe7de0a56c582b06ca094f7309015bc84657a7)
//   --apimachinery  kubernetes/apimachinery@v0.35.0 (72d71eac265e06713c6d83d7034aac609450243f)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goImportPathOfDefinition, goPackages, jsonFields, openKubeSources, parseArgs } from './lib/go-sources.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = parseArgs(process.argv.slice(2), {
  required: ['api', 'apimachinery'],
  optional: ['schema', 'out'],
  defaults: { schema: join(root, 'shared/api/schema/types.json'), out: join(root, 'apiserver/validation') },
});
const sources = openKubeSources(args);
const packages = goPackages(sources);
const schema = JSON.parse(readFileSync(resolvePath(args.schema), 'utf8'));

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
    target = packages.load(path);
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
  const pkg = packages.load(goImportPathOfDefinition(def));
  const structName = def.split('.').pop();
  const props = jsonFields(packages, pkg, structName);
  if (!props) {
    console.error(`no Go struct for ${def}`);
    missing++;
    continue;
  }
  const fields = new Map(props.map((p) => [p.name, resolve(p.field.type, p.pkg, p.imports)]));
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
    api: sources.api.describe,
    apimachinery: sources.apimachinery.describe,
  },
  types: out,
};
const outDir = resolvePath(args.out);
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'go-types.json'), JSON.stringify(file, null, 1) + '\n');
console.error(
  `wrote ${Object.keys(out).length} types, ${Object.values(out).reduce((n, o) => n + Object.keys(o).length, 0)} fields; ${missing} missing`,
);
