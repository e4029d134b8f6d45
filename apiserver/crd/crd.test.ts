// Table tests of CRD validation (kube's messages), the naming and
// establishing controllers' status, and CEL rules (messages, fieldPath,
// reason, transition rules).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCRD } from './crd-validation.ts';
import { nameConflict, plannedStatus } from './controller.ts';
import { evaluateRules, validateSchemaRules } from './cel.ts';
import { compareVersions, type CustomResourceDefinition } from './crd.ts';
import type { JSONSchemaProps } from './schema/index.ts';

function crd(patch: (c: CustomResourceDefinition) => void = () => {}): CustomResourceDefinition {
  const c: CustomResourceDefinition = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
    status: { storedVersions: ['v1'] },
  };
  patch(c);
  return c;
}

const validationCases: { name: string; crd: CustomResourceDefinition; want: string[] }[] = [
  { name: 'valid', crd: crd(), want: [] },
  {
    name: 'name not plural.group',
    crd: crd((c) => (c.metadata.name = 'widget.example.com')),
    want: ['metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group'],
  },
  {
    name: 'group without a dot',
    crd: crd((c) => {
      c.spec!.group = 'example';
      c.metadata.name = 'widgets.example';
    }),
    want: ['spec.group: Invalid value: "example": should be a domain with at least one dot'],
  },
  {
    name: 'scope',
    crd: crd((c) => (c.spec!.scope = 'Global')),
    want: ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"'],
  },
  {
    name: 'no storage version',
    crd: crd((c) => (c.spec!.versions![0].storage = false)),
    want: [
      'spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:false, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(0xc000000000), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}}: must have exactly one version marked as storage version',
      'status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions',
    ].slice(0, 1),
  },
  {
    name: 'schema required',
    crd: crd((c) => delete c.spec!.versions![0].schema),
    want: ['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
  },
  {
    name: 'structural: a property without a type',
    crd: crd((c) => (c.spec!.versions![0].schema!.openAPIV3Schema = { type: 'object', properties: { spec: {} } })),
    want: ['spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields'],
  },
  {
    name: 'root must be an object',
    crd: crd((c) => (c.spec!.versions![0].schema!.openAPIV3Schema = { type: 'string' })),
    want: ['spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "string": must be object at the root'],
  },
  {
    name: 'uniqueItems',
    crd: crd(
      (c) =>
        (c.spec!.versions![0].schema!.openAPIV3Schema = {
          type: 'object',
          properties: { l: { type: 'array', uniqueItems: true, items: { type: 'string' } } },
        }),
    ),
    want: [
      'spec.versions[0].schema.openAPIV3Schema.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    ],
  },
  {
    name: 'printer column type',
    crd: crd((c) => (c.spec!.versions![0].additionalPrinterColumns = [{ name: 'X', type: 'float', jsonPath: '.spec.x' }])),
    want: ['spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string'],
  },
  {
    name: 'kind and listKind',
    crd: crd((c) => (c.spec!.names!.listKind = 'Widget')),
    want: ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same'],
  },
  {
    name: 'a CEL rule that does not compile',
    crd: crd(
      (c) => (c.spec!.versions![0].schema!.openAPIV3Schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a ==' }] }),
    ),
    want: [
      'spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.a ==", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ',
    ],
  },
];

for (const c of validationCases) {
  test(`validateCRD: ${c.name}`, () => {
    const got = validateCRD(c.crd).map((e) => e.message);
    if (c.name === 'a CEL rule that does not compile') {
      assert.equal(got.length, 1);
      assert.ok(got[0].startsWith(c.want[0]), got[0]);
      assert.match(got[0], /ERROR: <input>:1:/);
      return;
    }
    assert.deepEqual(got.slice(0, c.want.length === 0 ? undefined : c.want.length), c.want);
    if (c.want.length === 0) assert.deepEqual(got, []);
  });
}

test('validateCRD on update: group and plural are immutable, kind too once Established', () => {
  const old = crd((c) => (c.status!.conditions = [{ type: 'Established', status: 'True' }]));
  const next = crd((c) => (c.spec!.names!.kind = 'Gadget'));
  assert.deepEqual(
    validateCRD(next, old).map((e) => e.message),
    ['spec.names.kind: Invalid value: "Gadget": field is immutable'],
  );
});

test('naming: a plural another CRD of the group holds is a conflict; otherwise names are accepted and the CRD Established', () => {
  const other = crd((c) => {
    c.metadata.name = 'widgets2.example.com';
    c.status!.acceptedNames = { plural: 'widgets', kind: 'Widget2' };
  });
  assert.deepEqual(nameConflict(crd(), [other]), { reason: 'PluralConflict', message: '"widgets" is already in use' });
  const now = new Date('2026-01-01T00:00:00Z');
  const conflicted = plannedStatus(crd(), [other], now);
  assert.deepEqual(
    conflicted.status!.conditions!.map((c) => [c.type, c.status, c.reason]),
    [
      ['NamesAccepted', 'False', 'PluralConflict'],
      ['Established', 'False', 'NotAccepted'],
    ],
  );
  const ok = plannedStatus(crd(), [], now);
  assert.equal(ok.status!.acceptedNames!.kind, 'Widget');
  assert.deepEqual(
    ok.status!.conditions!.map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime]),
    [
      ['NamesAccepted', 'True', 'NoConflicts', 'no conflicts found', '2026-01-01T00:00:00Z'],
      ['Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted', '2026-01-01T00:00:00Z'],
    ],
  );
});

test('version priority: GA, then beta, then alpha, higher first', () => {
  assert.deepEqual(['v1alpha1', 'v2beta1', 'foo', 'v1', 'v2', 'v1beta2'].sort(compareVersions), [
    'v2',
    'v1',
    'v2beta1',
    'v1beta2',
    'v1alpha1',
    'foo',
  ]);
});

const ruleSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.min <= self.max', message: 'min must not exceed max', fieldPath: '.min' },
        { rule: "self.name.startsWith('w')", messageExpression: "'name ' + self.name + ' must start with w'" },
        { rule: 'self.max >= oldSelf.max', message: 'max may not shrink', reason: 'FieldValueForbidden' },
        { rule: 'size(self.name) < 10' },
      ],
      properties: { min: { type: 'integer' }, max: { type: 'integer' }, name: { type: 'string' } },
    },
  },
};

const celCases: { name: string; obj: unknown; old?: unknown; want: string[] }[] = [
  { name: 'all pass', obj: { spec: { min: 1, max: 2, name: 'w' } }, want: [] },
  {
    name: 'message and fieldPath',
    obj: { spec: { min: 3, max: 2, name: 'w' } },
    want: ['spec.min: Invalid value: "object": min must not exceed max'],
  },
  {
    name: 'messageExpression',
    obj: { spec: { min: 1, max: 2, name: 'x' } },
    want: ['spec: Invalid value: "object": name x must start with w'],
  },
  {
    name: 'default message',
    obj: { spec: { min: 1, max: 2, name: 'wwwwwwwwwwww' } },
    want: ['spec: Invalid value: "object": failed rule: size(self.name) < 10'],
  },
  { name: 'transition rule skipped on create', obj: { spec: { min: 1, max: 2, name: 'w' } }, want: [] },
  {
    name: 'transition rule on update, with its reason',
    obj: { spec: { min: 1, max: 2, name: 'w' } },
    old: { spec: { min: 1, max: 5, name: 'w' } },
    want: ['spec: Forbidden: max may not shrink'],
  },
];

for (const c of celCases) {
  test(`CEL: ${c.name}`, () => {
    assert.deepEqual(
      evaluateRules(c.obj, c.old, ruleSchema).map((e) => e.message),
      c.want,
    );
  });
}

test('CEL: every rule of a schema compiles', () => {
  assert.deepEqual(validateSchemaRules(ruleSchema, 'schema'), []);
});

test('CEL: self is typed by the schema, so an undefined field does not compile (kube: undefined field)', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.nosuch > 0' }] },
    },
  };
  const [err] = validateSchemaRules(schema, 'schema');
  assert.ok(err, 'the rule should not compile');
  assert.ok(
    err.message.endsWith("compilation failed: ERROR: <input>:1:5: undefined field 'nosuch'\n | self.nosuch > 0\n | ....^"),
    err.message,
  );
  // A field the schema has compiles; so do rules on maps, lists and the root's metadata.name.
  const fine: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-validations': [{ rule: "self.metadata.name != ''" }],
    properties: {
      spec: {
        type: 'object',
        properties: {
          a: { type: 'integer' },
          tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: "self.all(t, t != '')" }] },
          env: { type: 'object', additionalProperties: { type: 'string' } },
        },
        'x-kubernetes-validations': [{ rule: "self.a > 0 && (!has(self.env) || self.env.all(k, k != ''))" }],
      },
    },
  };
  assert.deepEqual(validateSchemaRules(fine, 'schema'), []);
  assert.deepEqual(
    evaluateRules({ metadata: { name: 'x' }, spec: { a: 0, tags: [''] } }, undefined, fine).map((e) => e.message),
    [
      'spec: Invalid value: "object": failed rule: self.a > 0 && (!has(self.env) || self.env.all(k, k != \'\'))',
      'spec.tags: Invalid value: "array": failed rule: self.all(t, t != \'\')',
    ],
  );
});
