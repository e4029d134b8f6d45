// Checks the committed API schema against facts of Kubernetes v1.35 that the
// rest of ksim relies on: every served kind is there, and a few protobuf
// field numbers, merge keys and map types are what kube uses on the wire.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESOURCES } from '../resources.ts';
import { allTypes, fieldAt, fieldByNumber, fieldOf, schemaSource, typeFor, typeForKind, typeForProto } from './index.ts';

test('every served kind and its list have a type with that gvk', () => {
  for (const rt of RESOURCES) {
    for (const kind of rt.verbs.includes('list') ? [rt.kind, rt.listKind] : [rt.kind]) {
      const t = typeForKind(rt.group, rt.version, kind);
      assert.ok(t, `no type for ${rt.group}/${rt.version} ${kind}`);
      assert.ok(t.gvk?.some((g) => g.group === rt.group && g.version === rt.version && g.kind === kind));
      assert.ok(t.proto, `${kind} has a protobuf message`);
    }
  }
});

test('the kinds around the served ones are there too', () => {
  const extra: [string, string, string][] = [
    ['', 'v1', 'Binding'],
    ['', 'v1', 'Status'],
    ['', 'v1', 'DeleteOptions'],
    ['', 'v1', 'WatchEvent'],
    ['autoscaling', 'v1', 'Scale'],
    ['policy', 'v1', 'Eviction'],
    ['authentication.k8s.io', 'v1', 'TokenRequest'],
    ['authentication.k8s.io', 'v1', 'SelfSubjectReview'],
    ['authorization.k8s.io', 'v1', 'SelfSubjectAccessReview'],
    ['authorization.k8s.io', 'v1', 'SelfSubjectRulesReview'],
    ['authorization.k8s.io', 'v1', 'SubjectAccessReview'],
    ['apps', 'v1', 'ControllerRevision'],
    ['discovery.k8s.io', 'v1', 'EndpointSlice'],
    ['scheduling.k8s.io', 'v1', 'PriorityClass'],
  ];
  for (const [g, v, k] of extra) assert.ok(typeForKind(g, v, k), `no type for ${g}/${v} ${k}`);
  assert.equal(typeForKind('', 'v1', 'Pod')?.name, 'io.k8s.api.core.v1.Pod');
  assert.equal(typeForKind('events.k8s.io', 'v1', 'Event')?.name, 'io.k8s.api.events.v1.Event');
});

test('Pod spec.containers merges by name and is PodSpec field 2', () => {
  const containers = fieldAt('io.k8s.api.core.v1.Pod', ['spec', 'containers']);
  assert.ok(containers);
  assert.equal(containers.mergeKey, 'name');
  assert.equal(containers.patchStrategy, 'merge');
  assert.equal(containers.listType, 'map');
  assert.deepEqual(containers.listMapKeys, ['name']);
  assert.deepEqual(containers.items, { type: 'ref', ref: 'io.k8s.api.core.v1.Container' });
  assert.deepEqual(containers.proto, {
    n: 2,
    wire: 'bytes',
    type: 'message',
    message: 'k8s.io.api.core.v1.Container',
    repeated: true,
  });
  assert.equal(fieldByNumber('io.k8s.api.core.v1.PodSpec', 2)?.name, 'containers');
});

test('Deployment spec field numbers', () => {
  const spec = 'io.k8s.api.apps.v1.DeploymentSpec';
  assert.equal(fieldOf(spec, 'replicas')?.proto?.n, 1);
  assert.equal(fieldOf(spec, 'replicas')?.proto?.wire, 'varint');
  assert.equal(fieldOf(spec, 'replicas')?.proto?.type, 'int32');
  assert.equal(fieldOf(spec, 'selector')?.proto?.n, 2);
  assert.equal(fieldOf(spec, 'template')?.proto?.n, 3);
  assert.deepEqual(typeFor(spec)?.required, ['selector', 'template']);
  const d = typeForKind('apps', 'v1', 'Deployment');
  assert.equal(d?.fields.spec.proto?.n, 2);
  assert.equal(d?.fields.kind.proto, undefined, 'kind travels in the Unknown envelope');
});

test('ObjectMeta: name is field 1, labels is a map of strings', () => {
  const om = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
  assert.deepEqual(fieldOf(om, 'name')?.proto, { n: 1, wire: 'bytes', type: 'string' });
  const labels = fieldOf(om, 'labels');
  assert.equal(labels?.type, 'object');
  assert.deepEqual(labels?.additionalProperties, { type: 'string' });
  assert.deepEqual(labels?.proto, { n: 11, wire: 'bytes', type: 'map', map: { key: 'string', value: 'string' } });
  assert.equal(fieldOf(om, 'creationTimestamp')?.ref, 'io.k8s.apimachinery.pkg.apis.meta.v1.Time');
  assert.equal(fieldOf(om, 'ownerReferences')?.mergeKey, 'uid');
});

test('Secret.data is map<string, bytes>, base64 in JSON', () => {
  const data = fieldOf('io.k8s.api.core.v1.Secret', 'data');
  assert.deepEqual(data?.additionalProperties, { type: 'string', format: 'byte' });
  assert.deepEqual(data?.proto?.map, { key: 'string', value: 'bytes' });
  assert.equal(data?.proto?.n, 2);
});

test('special scalar types', () => {
  const time = typeFor('io.k8s.apimachinery.pkg.apis.meta.v1.Time');
  assert.equal(time?.special, 'Time');
  assert.equal(time?.format, 'date-time');
  assert.deepEqual(time?.protoFields, {
    seconds: { n: 1, wire: 'varint', type: 'int64' },
    nanos: { n: 2, wire: 'varint', type: 'int32' },
  });
  const ios = typeFor('io.k8s.apimachinery.pkg.util.intstr.IntOrString');
  assert.equal(ios?.format, 'int-or-string');
  assert.deepEqual(
    Object.entries(ios?.protoFields ?? {}).map(([k, f]) => [k, f.n]),
    [
      ['type', 1],
      ['intVal', 2],
      ['strVal', 3],
    ],
  );
  assert.deepEqual(typeFor('io.k8s.apimachinery.pkg.api.resource.Quantity')?.protoFields, {
    string: { n: 1, wire: 'bytes', type: 'string' },
  });
  const unknown = typeForProto('k8s.io.apimachinery.pkg.runtime.Unknown');
  assert.equal(unknown?.special, 'Unknown');
  assert.equal(unknown?.protoFields?.typeMeta.n, 1);
  assert.equal(unknown?.protoFields?.raw.n, 2);
  for (const name of ['MicroTime', 'Duration', 'FieldsV1']) {
    assert.ok(typeFor(`io.k8s.apimachinery.pkg.apis.meta.v1.${name}`)?.special, name);
  }
  assert.equal(typeFor('io.k8s.apimachinery.pkg.runtime.RawExtension')?.special, 'RawExtension');
});

test('awkward mappings between JSON and protobuf', () => {
  // An inlined Go struct is one message field in protobuf.
  const httpGet = fieldOf('io.k8s.api.core.v1.Probe', 'httpGet');
  assert.deepEqual(httpGet?.proto && { n: httpGet.proto.n, via: httpGet.proto.via }, { n: 2, via: [1] });
  assert.equal(fieldByNumber('io.k8s.api.core.v1.Probe', 2, [1])?.name, 'httpGet');
  assert.equal(fieldByNumber('io.k8s.api.core.v1.Probe', 2)?.name, 'initialDelaySeconds');
  assert.equal(typeFor('io.k8s.api.core.v1.Volume')?.protoEmbedded?.[0]?.name, 'volumeSource');
  // The JSON name is uid, the proto name uID; the number is what counts.
  assert.equal(fieldOf('io.k8s.api.authentication.v1.BoundObjectReference', 'uid')?.proto?.n, 4);
  // JSON serviceAccount is Go DeprecatedServiceAccount.
  assert.equal(fieldOf('io.k8s.api.core.v1.PodSpec', 'serviceAccount')?.proto?.n, 9);
  // extra is map<string, ExtraValue> in proto, map of string arrays in JSON.
  const extra = fieldOf('io.k8s.api.authorization.v1.SubjectAccessReviewSpec', 'extra');
  assert.equal(extra?.additionalProperties?.type, 'array');
  assert.equal(extra?.proto?.map?.message, 'k8s.io.api.authorization.v1.ExtraValue');
  assert.equal(typeForProto('k8s.io.api.authorization.v1.ExtraValue')?.special, 'ListWrapper');
});

test('every ref and proto message resolves', () => {
  const types = allTypes();
  const check = (where: string, f: { ref?: string; items?: unknown; additionalProperties?: unknown } | undefined): void => {
    if (!f) return;
    if (f.ref) assert.ok(types[f.ref], `${where}: ${f.ref}`);
    check(where, f.items as typeof f);
    check(where, f.additionalProperties as typeof f);
  };
  for (const [name, t] of Object.entries(types)) {
    for (const [prop, f] of Object.entries(t.fields)) {
      check(`${name}.${prop}`, f);
      const m = f.proto?.message ?? f.proto?.map?.message;
      if (m) assert.ok(typeForProto(m), `${name}.${prop}: ${m}`);
    }
  }
  assert.match(schemaSource().kubernetes, /^v1\.35/);
});
