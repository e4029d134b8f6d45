import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validatingAdmissionPolicyBindingPrinter, validatingAdmissionPolicyPrinter } from './admissionregistration.ts';

const now = new Date('2026-11-30T12:00:00Z');
const created = '2026-11-30T11:59:00Z';

test('ValidatingAdmissionPolicy and binding rows as kubectl prints them', () => {
  const p = (spec: object) =>
    validatingAdmissionPolicyPrinter.row({ metadata: { name: 'p', creationTimestamp: created }, spec }, { now }).cells;
  assert.deepEqual(p({ validations: [{ expression: 'true' }, { expression: 'false' }] }), ['p', 2, '<unset>', '60s']);
  assert.deepEqual(p({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }), ['p', 0, 'v1/ConfigMap', '60s']);
  const b = (paramRef?: object) =>
    validatingAdmissionPolicyBindingPrinter.row(
      { metadata: { name: 'b', creationTimestamp: created }, spec: { policyName: 'p', paramRef } },
      { now },
    ).cells;
  assert.deepEqual(b(), ['b', 'p', '<unset>', '60s']);
  assert.deepEqual(b({ name: 'limits' }), ['b', 'p', '*/limits', '60s']);
  assert.deepEqual(b({ name: 'limits', namespace: 'lab' }), ['b', 'p', 'lab/limits', '60s']);
  assert.equal(
    b({ selector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['x', 'y'] }] } })[2],
    '&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:env,Operator:In,Values:[x y],},},}',
  );
  assert.deepEqual(
    validatingAdmissionPolicyPrinter.columns.map((c) => c.name),
    ['Name', 'Validations', 'ParamKind', 'Age'],
  );
  assert.deepEqual(
    validatingAdmissionPolicyBindingPrinter.columns.map((c) => c.name),
    ['Name', 'PolicyName', 'ParamRef', 'Age'],
  );
});
