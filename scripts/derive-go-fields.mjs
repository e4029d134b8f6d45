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
//   node scripts/derive-go-fields.mjs \
//     --api <k8s.io/api checkout dir | GITDIR@REF> \
//     --apimachinery <k8s.io/apimachinery checkout dir | GITDIR@REF> \
//     [--schema shared/api/schema/types.json] [--out shared/api/protobuf]
//
// The committed go-fields.json came from the same commits as types.json:
//   --api           /work/.mirror/kubernetes+api/repo@v0.35.0 (9afe7de0a56c582b06ca094f7309015bc84657a7)
//   --apimachinery  /work/.mirror/kubernetes+apimachinery/repo@v0.35.0 (72d71eac265e06713c6d83d7034aac609450243f)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goImportPathOfProtoPackage, goPackages, jsonFields, openKubeSources, parseArgs } from './lib/go-sources.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = parseArgs(process.argv.slice(2), {
  required: ['api', 'apimachinery'],
  optional: ['schema', 'out'],
  defaults: { schema: join(root, 'shared/api/schema/types.json'), out: join(root, 'shared/api/protobuf') },
});
const sources = openKubeSources(args);
const packages = goPackages(sources);

/**
 * The JSON properties of a Go struct in field order: [jsonName, flags],
 * flags made of p (pointer), o (omitempty), z (omitzero).
 */
function flaggedFields(pkg, name) {
  const props = jsonFields(packages, pkg, name);
  return props?.map(({ name, field }) => {
    const opts = field.json.split(',');
    let flags = '';
    if (field.type.startsWith('*')) flags += 'p';
    if (opts.includes('omitempty')) flags += 'o';
    if (opts.includes('omitzero')) flags += 'z';
    return [name, flags];
  });
}

const schema = JSON.parse(readFileSync(resolve(args.schema), 'utf8'));
const messages = {};
const missing = [];
for (const [defName, t] of Object.entries(schema.types)) {
  if (!t.proto || t.special) continue;
  const dot = t.proto.lastIndexOf('.');
  const pkg = packages.load(goImportPathOfProtoPackage(t.proto.slice(0, dot)));
  const fields = flaggedFields(pkg, t.proto.slice(dot + 1));
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
const outDir = resolve(args.out);
mkdirSync(outDir, { recursive: true });
writeFileSync(
  join(outDir, 'go-fields.json'),
  `{\n  "source": ${JSON.stringify(out.source)},\n  "messages": {\n${lines.join(',\n')}\n  }\n}\n`,
);
console.error(`wrote ${Object.keys(messages).length} messages`);
