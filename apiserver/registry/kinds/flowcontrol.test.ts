import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaulted, invalidMessage } from './testing.ts';
import { BOOTSTRAP_FLOW_SCHEMAS, BOOTSTRAP_PRIORITY_LEVELS, flowSchemaObject, priorityLevelObject } from '../../bootstrap-flowcontrol.ts';

const FS = 'flowcontrol.apiserver.k8s.io/flowschemas';
const PL = 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations';
const G = 'flowcontrol.apiserver.k8s.io';

describe('FlowSchema', () => {
  it('defaults matchingPrecedence to 1000', () => {
    assert.equal(
      defaulted(FS, { metadata: { name: 'f' }, spec: { priorityLevelConfiguration: { name: 'x' } } }).spec.matchingPrecedence,
      1000,
    );
  });
  it("every bootstrap object passes kube's validation", () => {
    const now = new Date('2026-12-01T00:00:00Z');
    for (const f of BOOTSTRAP_FLOW_SCHEMAS) assert.equal(invalidMessage(FS, 'FlowSchema', G, flowSchemaObject(f, now)), '', f.name);
    for (const p of BOOTSTRAP_PRIORITY_LEVELS)
      assert.equal(invalidMessage(PL, 'PriorityLevelConfiguration', G, priorityLevelObject(p)), '', p.name);
  });
  const rule = { subjects: [{ kind: 'User', user: { name: 'u' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] };
  const cases: [string, any, string][] = [
    [
      'precedence 1 and no level',
      { spec: { matchingPrecedence: 1, priorityLevelConfiguration: { name: '' } } },
      'FlowSchema.flowcontrol.apiserver.k8s.io "f" is invalid: [spec.matchingPrecedence: Invalid value: 1: only the schema named \'exempt\' may have matchingPrecedence 1, spec.priorityLevelConfiguration.name: Required value: must reference a priority level]',
    ],
    [
      'a rule without subjects or rules',
      { spec: { matchingPrecedence: 10001, priorityLevelConfiguration: { name: 'x' }, rules: [{}] } },
      'FlowSchema.flowcontrol.apiserver.k8s.io "f" is invalid: [spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000, spec.rules[0].subjects: Required value: subjects must contain at least one value, spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty]',
    ],
    [
      'a namespaced resource rule without namespaces, and a bad distinguisher',
      {
        spec: {
          priorityLevelConfiguration: { name: 'x' },
          distinguisherMethod: { type: 'ByColor' },
          rules: [{ ...rule, resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }],
        },
      },
      'FlowSchema.flowcontrol.apiserver.k8s.io "f" is invalid: [spec.distinguisherMethod.type: Unsupported value: "ByColor": supported values: "ByNamespace", "ByUser", spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace]',
    ],
    [
      'a user subject with a group',
      {
        spec: {
          priorityLevelConfiguration: { name: 'x' },
          rules: [{ ...rule, subjects: [{ kind: 'User', user: { name: 'u' }, group: { name: 'g' } }] }],
        },
      },
      'FlowSchema.flowcontrol.apiserver.k8s.io "f" is invalid: spec.rules[0].subjects[0].group: Forbidden: group is forbidden when subject kind is not \'Group\'',
    ],
  ];
  for (const [name, obj, want] of cases)
    it(name, () => assert.equal(invalidMessage(FS, 'FlowSchema', G, { metadata: { name: 'f' }, ...obj }), want));
});

describe('PriorityLevelConfiguration', () => {
  it('defaults shares 30 and queuing 64/8/50', () => {
    const d = defaulted(PL, {
      metadata: { name: 'p' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } },
    });
    assert.deepEqual(d.spec.limited, {
      nominalConcurrencyShares: 30,
      lendablePercent: 0,
      limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } },
    });
  });
  const M = (name: string, spec: any) => invalidMessage(PL, 'PriorityLevelConfiguration', G, { metadata: { name }, spec });
  it("kube's messages", () => {
    assert.equal(
      M('p', { type: 'Exempt' }),
      'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "p" is invalid: spec.type: Invalid value: "Exempt": type must be \'Exempt\' if and only if name is \'exempt\'',
    );
    assert.equal(
      M('p', { type: 'Limited' }),
      'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "p" is invalid: spec.limited: Required value: must not be empty when type is Limited',
    );
    assert.equal(
      M('p', { type: 'Sometimes' }),
      'PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "p" is invalid: spec.type: Unsupported value: "Sometimes": supported values: "Exempt", "Limited"',
    );
  });
});
