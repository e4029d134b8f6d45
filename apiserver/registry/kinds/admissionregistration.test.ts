import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted, invalidMessage } from './testing.ts';

const VAP = 'admissionregistration.k8s.io/validatingadmissionpolicies';
const VAPB = 'admissionregistration.k8s.io/validatingadmissionpolicybindings';
const G = 'admissionregistration.k8s.io';

const rule = { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] };
const policy = (spec: object, name = 'demo-policy.example.com') => ({
  metadata: { name },
  spec: { matchConstraints: { resourceRules: [rule] }, validations: [{ expression: 'object.spec.replicas <= 5' }], ...spec },
});
const policyError = (spec: object) => invalidMessage(VAP, 'ValidatingAdmissionPolicy', G, policy(spec));
const bindingError = (spec: object) =>
  invalidMessage(VAPB, 'ValidatingAdmissionPolicyBinding', G, {
    metadata: { name: 'b' },
    spec: { policyName: 'p', validationActions: ['Deny'], ...spec },
  });
const prefix = 'ValidatingAdmissionPolicy.admissionregistration.k8s.io "demo-policy.example.com" is invalid: ';

test('defaults: failurePolicy Fail, matchPolicy Equivalent, empty selectors, rule scope *', () => {
  const p = defaulted(VAP, policy({}));
  assert.equal(p.spec.failurePolicy, 'Fail');
  assert.deepEqual(p.spec.matchConstraints, {
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    resourceRules: [{ ...rule, scope: '*' }],
  });
  const b = defaulted(VAPB, { metadata: { name: 'b' }, spec: { policyName: 'p', matchResources: {} } });
  assert.deepEqual(b.spec.matchResources, { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} });
  assert.equal(policyError({}), '');
});

test("a policy's field errors, with kube's messages, and CEL compile errors as 422s", () => {
  const cases: Array<[string, object, string]> = [
    [
      'bad failurePolicy',
      { failurePolicy: 'Sometimes' },
      'spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"',
    ],
    ['no matchConstraints', { matchConstraints: undefined }, 'spec.matchConstraints: Required value'],
    ['no resourceRules', { matchConstraints: {} }, 'spec.matchConstraints.resourceRules: Required value'],
    [
      'no validations',
      { validations: [] },
      '[spec.validations: Required value: validations or auditAnnotations must contain at least one item, spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item]',
    ],
    [
      'wildcard operation with others',
      { matchConstraints: { resourceRules: [{ ...rule, operations: ['*', 'CREATE'] }] } },
      `spec.matchConstraints.resourceRules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if '*' is present, must not specify other operations`,
    ],
    [
      'unknown operation',
      { matchConstraints: { resourceRules: [{ ...rule, operations: ['PATCH'] }] } },
      'spec.matchConstraints.resourceRules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
    ],
    [
      'no expression',
      { validations: [{ expression: ' ' }] },
      'spec.validations[0].expression: Required value: expression is not specified',
    ],
    [
      'not bool',
      { validations: [{ expression: 'object.spec.replicas' }] },
      'spec.validations[0].expression: Invalid value: "object.spec.replicas": must evaluate to bool but got dyn',
    ],
    [
      'type error',
      { validations: [{ expression: "1 < 'a'" }] },
      `spec.validations[0].expression: Invalid value: "1 < 'a'": compilation failed: ERROR: <input>:1:1:`,
    ],
    [
      'params without paramKind',
      { validations: [{ expression: 'object.spec.replicas <= params.max' }] },
      'spec.validations[0].expression: Invalid value: "object.spec.replicas <= params.max": compilation failed: ERROR: <input>:1:25:',
    ],
    [
      'messageExpression not a string',
      { validations: [{ expression: 'true', messageExpression: 'object.spec.replicas' }] },
      'spec.validations[0].messageExpression: Invalid value: "object.spec.replicas": must evaluate to string but got dyn',
    ],
    [
      'message with a line break',
      { validations: [{ expression: 'true', message: 'a\nb' }] },
      'spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks',
    ],
    [
      'reason',
      { validations: [{ expression: 'true', reason: 'Conflict' }] },
      'spec.validations[0].reason: Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"',
    ],
    [
      'variable name',
      { variables: [{ name: 'in', expression: '1' }] },
      'spec.variables[0].name: Invalid value: "in": name is not a valid CEL identifier',
    ],
    ['matchCondition name', { matchConditions: [{ name: '', expression: 'true' }] }, 'spec.matchConditions[0].name: Required value'],
    ['paramKind', { paramKind: { apiVersion: 'v1' } }, 'spec.paramKind.kind: Required value'],
    [
      'audit annotation key',
      { auditAnnotations: [{ key: 'a b', valueExpression: "'x'" }] },
      `spec.auditAnnotations[0].key: Invalid value: "demo-policy.example.com/a b": name part must consist of alphanumeric characters`,
    ],
  ];
  for (const [name, spec, want] of cases) {
    const got = policyError(spec);
    assert.ok(got.startsWith(prefix + want), `${name}: ${got}`);
  }
});

test('variables are typed for the expressions after them; params with a paramKind; null audit values', () => {
  assert.equal(
    policyError({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      variables: [{ name: 'isProd', expression: "object.metadata.labels.env == 'prod'" }],
      validations: [{ expression: 'variables.isProd', messageExpression: "'max is ' + params.data.max" }],
      auditAnnotations: [{ key: 'big', valueExpression: "object.spec.replicas > 50 ? 'big: ' + string(object.spec.replicas) : null" }],
    }),
    '',
  );
  assert.match(
    policyError({ validations: [{ expression: 'variables.nope' }] }),
    /spec\.validations\[0\]\.expression: Invalid value: "variables.nope": compilation failed/,
  );
});

test("a binding's field errors", () => {
  const cases: Array<[string, object, string]> = [
    ['no actions', { validationActions: [] }, 'spec.validationActions: Required value: at least one validation action is required'],
    [
      'Deny and Warn',
      { validationActions: ['Deny', 'Warn'] },
      'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
    ],
    [
      'unknown action',
      { validationActions: ['Log'] },
      'spec.validationActions[0]: Unsupported value: "Log": supported values: "Audit", "Deny", "Warn"',
    ],
    ['no policyName', { policyName: '' }, 'spec.policyName: Required value'],
    [
      'paramRef without name or selector',
      { paramRef: { parameterNotFoundAction: 'Deny' } },
      'spec.paramRef: Required value: one of name or selector must be specified',
    ],
    ['paramRef action', { paramRef: { name: 'x' } }, 'spec.paramRef.parameterNotFoundAction: Required value'],
    [
      'matchResources (kube spells the path this way)',
      { matchResources: { matchPolicy: 'Fuzzy' } },
      'spec.matchResouces.matchPolicy: Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"',
    ],
  ];
  for (const [name, spec, want] of cases) {
    const got = bindingError(spec);
    assert.equal(got, `ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io "b" is invalid: ${want}`, name);
  }
  assert.equal(bindingError({ paramRef: { name: 'limits', parameterNotFoundAction: 'Allow' } }), '');
});
