import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ValidatingAdmissionPolicy } from 'kubernetes-types/admissionregistration/v1.js';
import { planStatus } from './plan.ts';

const policy = (expression: string, generation = 1, status?: object, resources = ['deployments']): ValidatingAdmissionPolicy =>
  ({
    metadata: { name: 'p', generation },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources }] },
      validations: [{ expression }],
    },
    status,
  }) as unknown as ValidatingAdmissionPolicy;

test('status: observedGeneration and type checking against the matched kinds', () => {
  const cases: Array<[string, ValidatingAdmissionPolicy, unknown]> = [
    ['well typed', policy('object.spec.replicas <= 5'), { observedGeneration: 1, typeChecking: {} }],
    ['current', policy('object.spec.replicas <= 5', 2, { observedGeneration: 2, typeChecking: {} }), undefined],
    [
      'undefined field',
      policy('object.spec.replicass <= 5', 3, { observedGeneration: 2 }),
      {
        observedGeneration: 3,
        typeChecking: {
          expressionWarnings: [
            {
              fieldRef: 'spec.validations[0].expression',
              warning:
                "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass <= 5\n | ...........^\n",
            },
          ],
        },
      },
    ],
    [
      'wildcard rules are not checked',
      policy('object.spec.replicass <= 5', 1, undefined, ['*']),
      { observedGeneration: 1, typeChecking: {} },
    ],
  ];
  for (const [name, p, want] of cases) assert.deepEqual(planStatus(p), want, name);
});
