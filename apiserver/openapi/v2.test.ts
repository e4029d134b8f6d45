// Checks the Swagger 2.0 document (/openapi/v2) and its protobuf form: the
// definitions of every served kind with their gvk, kube's v2 spellings
// (plain $ref with siblings, no defaults, int-or-string as a string format),
// PATCH operations with fieldValidation, and a gnostic Document message that
// decodes back to the same names and extensions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import YAML from 'yaml';
import { Reader, WIRE_BYTES } from '../../shared/api/protobuf/wire.ts';
import { RESOURCES } from '../../shared/api/resources.ts';
import { openapiV2Document, openapiV2ProtobufServed, openapiV2Served } from './v2.ts';

type Json = Record<string, any>;
const v2 = (): Json => openapiV2Document();

test('a Swagger 2.0 document with every served kind', () => {
  const d = v2();
  assert.equal(d.swagger, '2.0');
  assert.equal(d.info.title, 'Kubernetes');
  assert.deepEqual(d.security, [{ BearerToken: [] }]);
  for (const rt of RESOURCES) {
    for (const kind of rt.verbs.includes('list') ? [rt.kind, rt.listKind] : [rt.kind]) {
      const tagged = Object.values(d.definitions as Json).filter((s) =>
        (s['x-kubernetes-group-version-kind'] ?? []).some((g: Json) => g.group === rt.group && g.version === rt.version && g.kind === kind),
      );
      assert.equal(tagged.length, 1, `${rt.group}/${rt.version} ${kind}`);
    }
    if (!rt.verbs.includes('patch')) continue; // the create-only reviews
    const prefix = rt.group ? `/apis/${rt.group}/${rt.version}` : `/api/${rt.version}`;
    const item = d.paths[`${prefix}/${rt.namespaced ? 'namespaces/{namespace}/' : ''}${rt.plural}/{name}`];
    assert.ok(item?.patch, `${rt.kind}: no PATCH`);
    assert.deepEqual(item.patch['x-kubernetes-group-version-kind'], { group: rt.group, kind: rt.kind, version: rt.version });
    assert.ok((item.patch.parameters as Json[]).some((p) => p.name === 'fieldValidation' && p.in === 'query' && p.type === 'string'));
    assert.ok(item.patch.consumes.includes('application/strategic-merge-patch+json'));
  }
  assert.equal(openapiV2Document(), openapiV2Document());
  assert.ok(Object.isFrozen(d.definitions));
});

test('every $ref names a definition', () => {
  const d = v2();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        // JSONSchemaProps has a property named $ref: a schema, not a reference.
        if (k === '$ref' && typeof x === 'string') assert.ok(d.definitions[x.replace('#/definitions/', '')], x);
        else walk(x);
      }
    }
  };
  walk(d);
});

/** A schema without its descriptions (texts: JSONSchemaProps's property named description is a schema), to compare shapes. */
const shapeOf = <T>(v: T): T =>
  JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'description' && typeof x === 'string' ? undefined : x)));

test('v2 spellings: $ref with siblings, no defaults or oneOf, body parameters', () => {
  const d = v2();
  const defs = shapeOf(d.definitions as Json);
  assert.deepEqual(defs['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy, {
    $ref: '#/definitions/io.k8s.api.apps.v1.DeploymentStrategy',
    'x-kubernetes-patch-strategy': 'retainKeys',
  });
  assert.deepEqual(defs['io.k8s.api.core.v1.PodSpec'].properties.containers.items, { $ref: '#/definitions/io.k8s.api.core.v1.Container' });
  assert.deepEqual(defs['io.k8s.apimachinery.pkg.util.intstr.IntOrString'], { format: 'int-or-string', type: 'string' });
  assert.deepEqual(defs['io.k8s.apimachinery.pkg.api.resource.Quantity'], { type: 'string' });
  // Schema keywords only: a properties map's keys are field names (LimitRangeItem.default, JSONSchemaProps.allOf...).
  const keywords = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'properties' && x && typeof x === 'object') Object.values(x).forEach(walk);
        else {
          keywords.add(k);
          walk(x);
        }
      }
    }
  };
  walk(d.definitions);
  assert.ok(!keywords.has('allOf') && !keywords.has('oneOf'), 'allOf or oneOf in v2');
  // kube prunes defaults from v2.
  assert.ok(!keywords.has('default'), 'a default in v2');
  assert.ok(defs['io.k8s.api.core.v1.LimitRangeItem'].properties.default);
  const create = d.paths['/api/v1/namespaces/{namespace}/pods'].post;
  assert.deepEqual(create.parameters[0], {
    in: 'body',
    name: 'body',
    required: true,
    schema: { $ref: '#/definitions/io.k8s.api.core.v1.Pod' },
  });
  assert.deepEqual(create.responses['401'], { description: 'Unauthorized' });
  assert.deepEqual(create.consumes, ['*/*']);
  assert.equal(create.operationId, 'createCoreV1NamespacedPod');
  assert.deepEqual(d.paths['/api/v1/namespaces/{namespace}/pods/{name}'].parameters[0], {
    description: 'name of the Pod',
    in: 'path',
    name: 'name',
    required: true,
    type: 'string',
    uniqueItems: true,
  });
  assert.equal(openapiV2Served().json.toString('utf8'), JSON.stringify(d));
});

/** Splits a message into its fields: number -> list of values (bytes for length-delimited, numbers for varints). */
function fields(buf: Uint8Array): Map<number, (Uint8Array | number)[]> {
  const out = new Map<number, (Uint8Array | number)[]>();
  const r = new Reader(buf);
  while (!r.done()) {
    const { n, wire } = r.tag();
    const v = wire === WIRE_BYTES ? r.bytes() : r.varint().lo;
    out.set(n, [...(out.get(n) ?? []), v]);
  }
  return out;
}
const str = (b: Uint8Array | number | undefined): string => Buffer.from(b as Uint8Array).toString('utf8');
const one = (m: Map<number, (Uint8Array | number)[]>, n: number): Uint8Array => m.get(n)?.[0] as Uint8Array;

test('the protobuf form is a gnostic Document with the same content', () => {
  const d = v2();
  const served = openapiV2ProtobufServed();
  assert.equal(served.hash, openapiV2Served().hash, 'one ETag for both encodings, as kube');
  const doc = fields(served.body);
  assert.equal(str(one(doc, 1)), '2.0');
  assert.equal(str(one(fields(one(doc, 2)), 1)), 'Kubernetes');

  // definitions = 9: Definitions{additional_properties = 1: NamedSchema{name = 1, value = 2}}
  const named = (fields(one(doc, 9)).get(1) ?? []).map((b) => fields(b as Uint8Array));
  assert.deepEqual(
    named.map((m) => str(one(m, 1))),
    Object.keys(d.definitions),
  );
  const deployment = fields(
    one(
      named.find((m) => str(one(m, 1)) === 'io.k8s.api.apps.v1.Deployment')!,
      2,
    ),
  );
  assert.deepEqual((fields(one(deployment, 22)).get(1) ?? []).map(str), ['object']);
  // vendor_extension = 31: NamedAny{name, value: Any{yaml = 2}}
  const ext = (deployment.get(31) ?? []).map((b) => fields(b as Uint8Array));
  const gvk = ext.find((m) => str(one(m, 1)) === 'x-kubernetes-group-version-kind')!;
  assert.deepEqual(YAML.parse(str(one(fields(one(gvk, 2)), 2))), [{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
  // properties = 25 -> spec -> _ref = 1
  const props = (fields(one(deployment, 25)).get(1) ?? []).map((b) => fields(b as Uint8Array));
  const spec = fields(
    one(
      props.find((m) => str(one(m, 1)) === 'spec')!,
      2,
    ),
  );
  assert.equal(str(one(spec, 1)), '#/definitions/io.k8s.api.apps.v1.DeploymentSpec');

  // paths = 8: Paths{path = 2: NamedPathItem}; a PATCH (8) operation's query parameter fieldValidation.
  const paths = (fields(one(doc, 8)).get(2) ?? []).map((b) => fields(b as Uint8Array));
  assert.equal(paths.length, Object.keys(d.paths).length);
  const item = fields(
    one(
      paths.find((m) => str(one(m, 1)) === '/apis/apps/v1/namespaces/{namespace}/deployments/{name}')!,
      2,
    ),
  );
  const patch = fields(one(item, 8));
  assert.equal(str(one(patch, 5)), 'patchAppsV1NamespacedDeployment');
  // ParametersItem{parameter = 1: Parameter{body_parameter = 1 {name = 2} | non_body_parameter = 2 {query = 3 {name = 4}}}}
  const paramNames = (patch.get(8) ?? []).map((b) => {
    const param = fields(one(fields(b as Uint8Array), 1));
    if (param.has(1)) return `body:${str(one(fields(one(param, 1)), 2))}`;
    return str(one(fields(one(fields(one(param, 2)), 3)), 4));
  });
  assert.deepEqual(paramNames, ['body:body', 'dryRun', 'fieldManager', 'fieldValidation', 'force']);
});
