import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findResource } from '../../../shared/api/resources.ts';
import { StatusError } from '../../../shared/api/errors.ts';
import { Store } from '../../storage/store.ts';
import { MemoryBackend } from '../../storage/memory-backend.ts';
import type { StoredObject } from '../../storage/types.ts';
import type { AdmissionAttributes, Operation } from '../types.ts';
import { ALWAYS_ALLOW } from '../../auth/always-allow.ts';
import { validatingAdmissionPolicy, VALIDATION_FAILURE_ANNOTATION } from './plugin.ts';

const deployments = findResource('apps', 'v1', 'deployments')!;
const namespaces = findResource('', 'v1', 'namespaces')!;
const G = '/registry/admissionregistration.k8s.io';

interface Seen {
  warnings: string[];
  annotations: Record<string, string>;
}

function attrs(op: Operation, name: string, seen: Seen, namespace = 'lab'): AdmissionAttributes {
  return {
    operation: op,
    user: { username: 'alice', groups: ['system:authenticated'] },
    namespace,
    name,
    subresource: '',
    dryRun: false,
    warn: (m) => seen.warnings.push(m),
    annotate: (k, v) => (seen.annotations[k] = v),
  };
}

const deploy = (name: string, replicas: number, labels: Record<string, string> = {}): StoredObject =>
  ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'lab', labels }, spec: { replicas } }) as StoredObject;

const policy = (name: string, spec: object, generation = 1) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name, uid: `uid-${name}`, generation },
  spec: {
    failurePolicy: 'Fail',
    matchConstraints: {
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      resourceRules: [
        { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'], scope: '*' },
      ],
    },
    ...spec,
  },
});

const binding = (name: string, policyName: string, spec: object = {}) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName, validationActions: ['Deny'], ...spec },
});

async function withStore(objects: Array<[string, object]>, fn: (store: Store) => Promise<void> | void): Promise<void> {
  const store = await Store.open(new MemoryBackend());
  try {
    await store.txn('/registry/core/namespaces/lab', () => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'lab', labels: { environment: 'test' } },
    }));
    await store.txn('/registry/core/namespaces/other', () => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } }));
    for (const [key, obj] of objects) await store.txn(key, () => obj);
    await fn(store);
  } finally {
    await store.close();
  }
}

function refusal(fn: () => void): StatusError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return err;
  }
  assert.fail('not refused');
}

const replicasPolicy = policy('demo-policy.example.com', { validations: [{ expression: 'object.spec.replicas <= 5' }] });

test('request: who asks, for what, as kube fills it', () =>
  withStore(
    [
      [
        `${G}/validatingadmissionpolicies/who`,
        policy('who', {
          validations: [
            {
              expression:
                "request.userInfo.username != 'alice' || (request.operation == 'CREATE' && request.kind.kind == 'Deployment' && request.resource.resource == 'deployments' && request.namespace == 'lab' && request.name == 'web' && request.subResource == '' && !request.dryRun)",
            },
            { expression: "!('system:authenticated' in request.userInfo.groups)", message: 'authenticated' },
          ],
        }),
      ],
      [`${G}/validatingadmissionpolicybindings/who`, binding('who', 'who')],
    ],
    (store) => {
      const p = validatingAdmissionPolicy(store);
      const err = refusal(() =>
        p.validate!('CREATE', deployments, deploy('web', 1), undefined, attrs('CREATE', 'web', { warnings: [], annotations: {} })),
      );
      assert.match(err.message, /denied request: authenticated$/);
    },
  ));

test("Deny refuses with kube's message, 422 Invalid; a binding's namespaceSelector limits it", () =>
  withStore(
    [
      [`${G}/validatingadmissionpolicies/demo-policy.example.com`, replicasPolicy],
      [
        `${G}/validatingadmissionpolicybindings/demo-binding-test.example.com`,
        binding('demo-binding-test.example.com', 'demo-policy.example.com', {
          matchResources: { namespaceSelector: { matchLabels: { environment: 'test' } } },
        }),
      ],
    ],
    (store) => {
      const p = validatingAdmissionPolicy(store);
      const seen: Seen = { warnings: [], annotations: {} };
      const err = refusal(() => p.validate!('CREATE', deployments, deploy('nginx', 6), undefined, attrs('CREATE', 'nginx', seen)));
      assert.equal(err.code, 422);
      assert.equal(err.reason, 'Invalid');
      assert.equal(
        err.message,
        `deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`,
      );
      // Within bounds: admitted.
      p.validate!('CREATE', deployments, deploy('nginx', 5), undefined, attrs('CREATE', 'nginx', seen));
      // A namespace without the label is not selected by the binding.
      p.validate!('CREATE', deployments, deploy('nginx', 6), undefined, attrs('CREATE', 'nginx', seen, 'other'));
      // DELETE is not among the policy's operations.
      p.admitDelete!(deployments, deploy('nginx', 6), attrs('DELETE', 'nginx', seen));
      assert.deepEqual(seen.warnings, []);
    },
  ));

test('Warn and Audit, message, messageExpression and reason', () =>
  withStore(
    [
      [
        `${G}/validatingadmissionpolicies/p`,
        policy('p', {
          validations: [
            {
              expression: 'object.spec.replicas <= 5',
              messageExpression: "'replicas must be at most 5, got ' + string(object.spec.replicas)",
            },
            {
              expression: "has(object.metadata.labels) && 'team' in object.metadata.labels",
              message: 'a team label is required',
              reason: 'Forbidden',
            },
          ],
          auditAnnotations: [
            { key: 'high-replicas', valueExpression: "object.spec.replicas > 3 ? 'replicas: ' + string(object.spec.replicas) : null" },
          ],
        }),
      ],
      [`${G}/validatingadmissionpolicybindings/warn`, binding('warn', 'p', { validationActions: ['Warn', 'Audit'] })],
    ],
    async (store) => {
      const p = validatingAdmissionPolicy(store);
      const seen: Seen = { warnings: [], annotations: {} };
      p.validate!('CREATE', deployments, deploy('web', 7), undefined, attrs('CREATE', 'web', seen));
      assert.deepEqual(seen.warnings, [
        "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'warn': replicas must be at most 5, got 7",
        "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'warn': a team label is required",
      ]);
      // The first failure is the annotation's (kube never overwrites an admission annotation).
      assert.deepEqual(JSON.parse(seen.annotations[VALIDATION_FAILURE_ANNOTATION]), [
        {
          message: 'replicas must be at most 5, got 7',
          policy: 'p',
          binding: 'warn',
          expressionIndex: 0,
          validationActions: ['Warn', 'Audit'],
        },
      ]);
      assert.equal(seen.annotations['p/high-replicas'], 'replicas: 7');
      // Now as Deny: the reason Forbidden gives 403.
      await store.txn(`${G}/validatingadmissionpolicybindings/warn`, () => binding('warn', 'p'));
      const err = refusal(() =>
        p.validate!('CREATE', deployments, deploy('web', 2), undefined, attrs('CREATE', 'web', { warnings: [], annotations: {} })),
      );
      assert.equal(err.code, 403);
      assert.equal(err.reason, 'Forbidden');
      assert.match(err.message, /denied request: a team label is required$/);
    },
  ));

test('params from a ConfigMap: by name, missing with Deny and Allow, and an unknown paramKind', () =>
  withStore(
    [
      [
        `${G}/validatingadmissionpolicies/max`,
        policy('max', {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          validations: [
            {
              expression: 'object.spec.replicas <= int(params.data.maxReplicas)',
              messageExpression: "'at most ' + params.data.maxReplicas",
            },
          ],
        }),
      ],
      [
        `${G}/validatingadmissionpolicies/bad-kind`,
        policy('bad-kind', { paramKind: { apiVersion: 'example.com/v1', kind: 'Limit' }, validations: [{ expression: 'true' }] }),
      ],
      [
        `${G}/validatingadmissionpolicybindings/max`,
        binding('max', 'max', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }),
      ],
      [
        '/registry/core/configmaps/lab/limits',
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'lab' }, data: { maxReplicas: '3' } },
      ],
    ],
    async (store) => {
      const p = validatingAdmissionPolicy(store);
      const seen: Seen = { warnings: [], annotations: {} };
      const a = () => attrs('CREATE', 'web', seen);
      assert.match(
        refusal(() => p.validate!('CREATE', deployments, deploy('web', 4), undefined, a())).message,
        /denied request: at most 3$/,
      );
      p.validate!('CREATE', deployments, deploy('web', 3), undefined, a());
      await store.txn('/registry/core/configmaps/lab/limits', () => null);
      assert.match(
        refusal(() => p.validate!('CREATE', deployments, deploy('web', 1), undefined, a())).message,
        /ValidatingAdmissionPolicy 'max' with binding 'max' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction$/,
      );
      await store.txn(`${G}/validatingadmissionpolicybindings/max`, () =>
        binding('max', 'max', { paramRef: { name: 'limits', parameterNotFoundAction: 'Allow' } }),
      );
      p.validate!('CREATE', deployments, deploy('web', 9), undefined, a());
      await store.txn(`${G}/validatingadmissionpolicybindings/bad`, () => binding('bad', 'bad-kind'));
      assert.match(
        refusal(() => p.validate!('CREATE', deployments, deploy('web', 1), undefined, a())).message,
        /ValidatingAdmissionPolicy 'bad-kind' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com\/v1, Kind=Limit'$/,
      );
    },
  ));

test('evaluation errors follow failurePolicy; variables are lazy; matchConditions gate; oldObject on update; a Namespace is matched by its own labels', () =>
  withStore(
    [
      [
        `${G}/validatingadmissionpolicies/strict`,
        policy('strict', {
          variables: [
            { name: 'team', expression: 'object.metadata.labels.team' },
            { name: 'isProd', expression: "variables.team == 'prod'" },
          ],
          matchConditions: [{ name: 'not-system', expression: "!object.metadata.name.startsWith('system-')" }],
          validations: [
            { expression: '!variables.isProd || object.spec.replicas >= 2' },
            { expression: 'oldObject == null || object.spec.replicas >= oldObject.spec.replicas' },
          ],
        }),
      ],
      [`${G}/validatingadmissionpolicybindings/strict`, binding('strict', 'strict')],
      [
        `${G}/validatingadmissionpolicies/ns`,
        {
          ...policy('ns', { validations: [{ expression: "object.metadata.name.endsWith('-ns')" }] }),
          spec: {
            failurePolicy: 'Fail',
            validations: [{ expression: "object.metadata.name.endsWith('-ns')" }],
            matchConstraints: {
              matchPolicy: 'Equivalent',
              namespaceSelector: { matchLabels: { checked: 'yes' } },
              objectSelector: {},
              resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['namespaces'], scope: '*' }],
            },
          },
        },
      ],
      [`${G}/validatingadmissionpolicybindings/ns`, binding('ns', 'ns')],
    ],
    async (store) => {
      const p = validatingAdmissionPolicy(store);
      const seen: Seen = { warnings: [], annotations: {} };
      const a = (op: Operation = 'CREATE') => attrs(op, 'web', seen);
      assert.match(
        refusal(() => p.validate!('CREATE', deployments, deploy('web', 1), undefined, a())).message,
        /denied request: expression '!variables.isProd \|\| object.spec.replicas >= 2' resulted in error: no such key: team$/,
      );
      p.validate!('CREATE', deployments, deploy('web', 1, { team: 'dev' }), undefined, a());
      assert.match(
        refusal(() => p.validate!('CREATE', deployments, deploy('web', 1, { team: 'prod' }), undefined, a())).message,
        /failed expression: !variables.isProd/,
      );
      // The match condition leaves system- deployments alone, errors and all.
      p.validate!('CREATE', deployments, deploy('system-web', 1), undefined, attrs('CREATE', 'system-web', seen));
      // Scaling down is refused against the old object.
      assert.match(
        refusal(() => p.validate!('UPDATE', deployments, deploy('web', 2, { team: 'dev' }), deploy('web', 3, { team: 'dev' }), a('UPDATE')))
          .message,
        /failed expression: oldObject == null/,
      );
      // failurePolicy Ignore admits an evaluation error.
      const strict = policy(
        'strict',
        { ...(policy('strict', {}).spec as object), failurePolicy: 'Ignore', validations: [{ expression: 'object.spec.nope > 1' }] },
        2,
      );
      await store.txn(`${G}/validatingadmissionpolicies/strict`, () => strict);
      p.validate!('CREATE', deployments, deploy('web', 1), undefined, a());
      // A Namespace: its own labels, its own name as the namespace.
      const ns = (name: string, labels: Record<string, string>) =>
        ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }) as StoredObject;
      p.validate!('CREATE', namespaces, ns('team-a', {}), undefined, attrs('CREATE', 'team-a', seen, ''));
      assert.match(
        refusal(() => p.validate!('CREATE', namespaces, ns('team-a', { checked: 'yes' }), undefined, attrs('CREATE', 'team-a', seen, '')))
          .message,
        /^namespaces "team-a" is forbidden: ValidatingAdmissionPolicy 'ns' with binding 'ns' denied request: failed expression/,
      );
      p.validate!('CREATE', namespaces, ns('team-ns', { checked: 'yes' }), undefined, attrs('CREATE', 'team-ns', seen, ''));
    },
  ));

test('a create is kept off the workers only when a bound policy may match its resource', () =>
  withStore([[`${G}/validatingadmissionpolicies/demo-policy.example.com`, replicasPolicy]], async (store) => {
    const p = validatingAdmissionPolicy(store);
    const seen: Seen = { warnings: [], annotations: {} };
    assert.equal(p.wanted!(deployments, attrs('CREATE', 'web', seen)), false, 'no binding');
    await store.txn(`${G}/validatingadmissionpolicybindings/b`, () => binding('b', 'demo-policy.example.com'));
    assert.equal(p.wanted!(deployments, attrs('CREATE', 'web', seen)), true);
    assert.equal(p.wanted!(findResource('', 'v1', 'configmaps')!, attrs('CREATE', 'web', seen)), false);
  }));

test("the authorizer variable asks the apiserver's authorizer (AlwaysAllow allows what RBAC over the store would not)", () =>
  withStore(
    [
      [
        `${G}/validatingadmissionpolicies/can-delete`,
        policy('can-delete', {
          validations: [
            {
              expression: "authorizer.group('apps').resource('deployments').namespace('lab').check('delete').allowed()",
              message: 'may not delete deployments',
            },
          ],
        }),
      ],
      [`${G}/validatingadmissionpolicybindings/can-delete`, binding('can-delete', 'can-delete')],
    ],
    (store) => {
      const run = (p: ReturnType<typeof validatingAdmissionPolicy>) =>
        p.validate!('CREATE', deployments, deploy('web', 1), undefined, attrs('CREATE', 'web', { warnings: [], annotations: {} }));
      // No authorizer given: kube's Node,RBAC chain over the store, where alice has no role.
      assert.match(refusal(() => run(validatingAdmissionPolicy(store))).message, /denied request: may not delete deployments$/);
      run(validatingAdmissionPolicy(store, { authorizer: ALWAYS_ALLOW }));
    },
  ));
