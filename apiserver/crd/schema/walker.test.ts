// Table tests of the structural-schema walker: kube's messages for each
// keyword, defaulting and pruning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDefaults, pruneObject, validateValue, type JSONSchemaProps } from './index.ts';

const spec = (props: Record<string, JSONSchemaProps>, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: props, ...extra } },
});

const cases: { name: string; schema: JSONSchemaProps; obj: unknown; want: string[] }[] = [
  { name: 'valid', schema: spec({ replicas: { type: 'integer' } }), obj: { spec: { replicas: 2 } }, want: [] },
  {
    name: 'type',
    schema: spec({ replicas: { type: 'integer' } }),
    obj: { spec: { replicas: 'two' } },
    want: ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
  },
  {
    name: 'integer given a float',
    schema: spec({ replicas: { type: 'integer' } }),
    obj: { spec: { replicas: 1.5 } },
    want: ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'],
  },
  {
    name: 'null not nullable',
    schema: spec({ name: { type: 'string' } }),
    obj: { spec: { name: null } },
    want: ['spec.name: Invalid value: "null": spec.name in body must be of type string: "null"'],
  },
  { name: 'null nullable', schema: spec({ name: { type: 'string', nullable: true } }), obj: { spec: { name: null } }, want: [] },
  {
    name: 'required',
    schema: spec({ name: { type: 'string' } }, { required: ['name'] }),
    obj: { spec: {} },
    want: ['spec.name: Required value'],
  },
  {
    name: 'enum',
    schema: spec({ size: { type: 'string', enum: ['small', 'large'] } }),
    obj: { spec: { size: 'huge' } },
    want: ['spec.size: Unsupported value: "huge": supported values: "small", "large"'],
  },
  {
    name: 'minimum',
    schema: spec({ replicas: { type: 'integer', minimum: 1 } }),
    obj: { spec: { replicas: 0 } },
    want: ['spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1'],
  },
  {
    name: 'exclusive maximum',
    schema: spec({ replicas: { type: 'integer', maximum: 10, exclusiveMaximum: true } }),
    obj: { spec: { replicas: 10 } },
    want: ['spec.replicas: Invalid value: 10: spec.replicas in body should be less than 10'],
  },
  {
    name: 'pattern',
    schema: spec({ cron: { type: 'string', pattern: '^\\d+$' } }),
    obj: { spec: { cron: 'x' } },
    want: [`spec.cron: Invalid value: "x": spec.cron in body should match '^\\d+$'`],
  },
  {
    name: 'maxLength',
    schema: spec({ name: { type: 'string', maxLength: 3 } }),
    obj: { spec: { name: 'abcd' } },
    want: ['spec.name: Too long: may not be more than 3 bytes'],
  },
  {
    name: 'minLength',
    schema: spec({ name: { type: 'string', minLength: 2 } }),
    obj: { spec: { name: 'a' } },
    want: ['spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long'],
  },
  {
    name: 'items and maxItems',
    schema: spec({ ports: { type: 'array', maxItems: 1, items: { type: 'integer' } } }),
    obj: { spec: { ports: [1, 'x'] } },
    want: [
      'spec.ports: Too many: 2: must have at most 1 items',
      'spec.ports[1]: Invalid value: "string": spec.ports[1] in body must be of type integer: "string"',
    ],
  },
  {
    name: 'minItems',
    schema: spec({ ports: { type: 'array', minItems: 1, items: { type: 'integer' } } }),
    obj: { spec: { ports: [] } },
    want: ['spec.ports: Invalid value: 0: spec.ports in body should have at least 1 items'],
  },
  {
    name: 'format',
    schema: spec({ at: { type: 'string', format: 'date-time' } }),
    obj: { spec: { at: 'yesterday' } },
    want: ['spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"'],
  },
  {
    name: 'int-or-string',
    schema: spec({ port: { 'x-kubernetes-int-or-string': true } }),
    obj: { spec: { port: true } },
    want: ['spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'],
  },
  { name: 'int-or-string ok', schema: spec({ port: { 'x-kubernetes-int-or-string': true } }), obj: { spec: { port: 'http' } }, want: [] },
  {
    name: 'list-type set',
    schema: spec({ tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } } }),
    obj: { spec: { tags: ['a', 'b', 'a'] } },
    want: ['spec.tags[2]: Duplicate value: "a"'],
  },
  {
    name: 'list-type map',
    schema: spec({
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' } } },
      },
    }),
    obj: { spec: { ports: [{ name: 'a' }, { name: 'a' }] } },
    want: ['spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}'],
  },
  {
    name: 'additionalProperties',
    schema: spec({ env: { type: 'object', additionalProperties: { type: 'string' } } }),
    obj: { spec: { env: { A: 1 } } },
    want: ['spec.env.A: Invalid value: "integer": spec.env.A in body must be of type string: "integer"'],
  },
  {
    name: 'embedded resource',
    schema: spec({ template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    obj: { spec: { template: {} } },
    want: ['spec.template.apiVersion: Required value: must not be empty', 'spec.template.kind: Required value: must not be empty'],
  },
];

for (const c of cases) {
  test(`validate: ${c.name}`, () => {
    assert.deepEqual(
      validateValue(c.obj, c.schema).map((e) => e.message),
      c.want,
    );
  });
}

test('a type error is a FieldValueTypeInvalid cause', () => {
  const [e] = validateValue({ spec: { replicas: 'x' } }, spec({ replicas: { type: 'integer' } }));
  assert.equal(e.type, 'FieldValueTypeInvalid');
});

test('defaults: absent fields, nested objects, nulls, list items', () => {
  const schema = spec({
    replicas: { type: 'integer', default: 1 },
    size: { type: 'string', default: 'small' },
    nested: { type: 'object', default: {}, properties: { level: { type: 'integer', default: 3 } } },
    ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } } },
  });
  const obj = { spec: { size: null, ports: [{}, { protocol: 'UDP' }] } };
  applyDefaults(obj, schema);
  assert.deepEqual(obj, { spec: { replicas: 1, size: 'small', nested: { level: 3 }, ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }] } });
});

test('defaults: a null without a default is dropped unless nullable', () => {
  const obj = { spec: { a: null, b: null } };
  applyDefaults(obj, spec({ a: { type: 'string' }, b: { type: 'string', nullable: true } }));
  assert.deepEqual(obj, { spec: { b: null } });
});

test('prune: unknown fields go, paths sorted; preserve-unknown-fields and embedded resources keep theirs', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          known: { type: 'string' },
          ports: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { data: { type: 'object' } } },
        },
      },
    },
  };
  const obj = {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'a', bogus: 1 },
    spec: {
      known: 'k',
      unknown: 1,
      ports: [{ name: 'p', extra: true }],
      free: { anything: 1 },
      embedded: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', odd: 1 }, data: {}, other: 2 },
    },
    status: {},
  };
  const pruned = pruneObject(obj, schema);
  assert.deepEqual(pruned, [
    'metadata.bogus',
    'spec.embedded.metadata.odd',
    'spec.embedded.other',
    'spec.ports[0].extra',
    'spec.unknown',
    'status',
  ]);
  assert.deepEqual(obj, {
    apiVersion: 'x/v1',
    kind: 'X',
    metadata: { name: 'a' },
    spec: {
      known: 'k',
      ports: [{ name: 'p' }],
      free: { anything: 1 },
      embedded: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} },
    },
  });
});
