// ValidatingAdmissionPolicy end to end on `ksim up`, with the real kubectl:
// kube's documented example (a policy `object.spec.replicas <= 5` on
// Deployments, bound to the namespaces labelled environment=test:
// `kubectl create deploy --replicas=6` refused with kube's message), a Warn
// binding answering a kubectl warning and an Audit one writing the
// validation_failure audit annotation, a policy whose limit comes from a
// ConfigMap param, a policy that does not compile refused with a 422, and
// the printed columns.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCluster, type Cluster, ok } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 0, speed: 10 });
});
after(() => c?.stop());

const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "demo-policy.example.com"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= 5"
`;

const binding = (name: string, actions: string[], env: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "${name}"
spec:
  policyName: "demo-policy.example.com"
  validationActions: [${actions.join(', ')}]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: ${env}
`;

test("kube's example: Deny in a labelled namespace, Warn and Audit in another, nothing elsewhere", async () => {
  ok(await c.k(['create', 'namespace', 'test']));
  ok(await c.k(['label', 'namespace', 'test', 'environment=test']));
  ok(await c.k(['create', 'namespace', 'staging']));
  ok(await c.k(['label', 'namespace', 'staging', 'environment=staging']));
  ok(await c.k(['apply', '-f', '-'], policy));
  ok(await c.k(['apply', '-f', '-'], binding('demo-binding-test.example.com', ['Deny'], 'test')));
  ok(await c.k(['apply', '-f', '-'], binding('demo-binding-staging.example.com', ['Warn', 'Audit'], 'staging')));

  const denied = await c.k(['create', 'deploy', 'nginx', '--image=nginx', '--replicas=6', '-n', 'test']);
  assert.notEqual(denied.code, 0);
  assert.equal(
    denied.stderr.trim(),
    `error: failed to create deployment: deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`,
  );
  ok(await c.k(['create', 'deploy', 'nginx', '--image=nginx', '--replicas=5', '-n', 'test']));
  // A patch past the limit is an UPDATE: refused too.
  const scaled = await c.k(['patch', 'deploy', 'nginx', '-n', 'test', '-p', '{"spec":{"replicas":7}}']);
  assert.match(
    scaled.stderr,
    /ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request/,
  );

  const warned = await c.k(['create', 'deploy', 'nginx', '--image=nginx', '--replicas=6', '-n', 'staging']);
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(
    warned.stderr,
    /Warning: Validation failed for ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-staging.example.com': failed expression: object.spec.replicas <= 5/,
  );
  // The audit log is written behind the response: wait for the event.
  let event: { annotations: Record<string, string> } | undefined;
  for (const end = Date.now() + 10_000; !event && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    const audit = await readFile(join(c.dataDir, 'audit.log'), 'utf8');
    event = audit
      .split('\n')
      .filter((l) => l.endsWith('}'))
      .map((l) => JSON.parse(l))
      .find(
        (e) =>
          e.verb === 'create' &&
          e.stage === 'ResponseComplete' &&
          e.objectRef?.namespace === 'staging' &&
          e.objectRef?.resource === 'deployments',
      );
  }
  assert.ok(event, 'audit event of the staging create');
  assert.deepEqual(JSON.parse(event.annotations['validation.policy.admission.k8s.io/validation_failure']), [
    {
      message: 'failed expression: object.spec.replicas <= 5',
      policy: 'demo-policy.example.com',
      binding: 'demo-binding-staging.example.com',
      expressionIndex: 0,
      validationActions: ['Warn', 'Audit'],
    },
  ]);

  // No binding selects the default namespace.
  ok(await c.k(['create', 'deploy', 'nginx', '--image=nginx', '--replicas=6']));
  assert.match(
    ok(await c.k(['get', 'validatingadmissionpolicies'])),
    /^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\ndemo-policy\.example\.com\s+1\s+<unset>\s+\d+s/,
  );
  assert.match(
    ok(await c.k(['get', 'validatingadmissionpolicybindings'])),
    /^NAME\s+POLICYNAME\s+PARAMREF\s+AGE\ndemo-binding-staging\.example\.com\s+demo-policy\.example\.com\s+<unset>/,
  );
});

test('a ConfigMap param sets the limit; a missing param with parameterNotFoundAction Deny refuses', async () => {
  ok(await c.k(['create', 'namespace', 'params']));
  ok(await c.k(['create', 'configmap', 'replica-limit', '-n', 'params', '--from-literal=maxReplicas=3']));
  ok(
    await c.k(
      ['apply', '-f', '-'],
      `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
    namespaceSelector:
      matchLabels: {kubernetes.io/metadata.name: params}
  validations:
  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"
    messageExpression: "'replicas must be no greater than ' + params.data.maxReplicas"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit}
spec:
  policyName: replica-limit
  validationActions: [Deny]
  paramRef: {name: replica-limit, parameterNotFoundAction: Deny}
`,
    ),
  );
  const denied = await c.k(['create', 'deploy', 'web', '--image=nginx', '--replicas=4', '-n', 'params']);
  assert.equal(
    denied.stderr.trim(),
    `error: failed to create deployment: deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit' denied request: replicas must be no greater than 3`,
  );
  ok(await c.k(['create', 'deploy', 'web', '--image=nginx', '--replicas=3', '-n', 'params']));
  assert.match(
    ok(await c.k(['get', 'validatingadmissionpolicybinding', 'replica-limit'])),
    /replica-limit\s+replica-limit\s+\*\/replica-limit/,
  );
  ok(await c.k(['delete', 'configmap', 'replica-limit', '-n', 'params']));
  const missing = await c.k(['create', 'deploy', 'other', '--image=nginx', '--replicas=1', '-n', 'params']);
  assert.match(
    missing.stderr,
    /ValidatingAdmissionPolicy 'replica-limit' with binding 'replica-limit' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction/,
  );
});

test('a policy that does not compile is refused with a 422 naming the field', async () => {
  const bad = policy
    .replace('demo-policy.example.com', 'bad.example.com')
    .replace('object.spec.replicas <= 5', 'object.spec.replicas <= params.max');
  const r = await c.k(['apply', '-f', '-'], bad);
  assert.notEqual(r.code, 0);
  assert.match(
    r.stderr,
    /The ValidatingAdmissionPolicy "bad.example.com" is invalid: spec.validations\[0\].expression: Invalid value: "object.spec.replicas <= params.max": compilation failed: ERROR: <input>:1:25: undeclared reference to 'params'/,
  );
  const noActions = await c.k(
    ['apply', '-f', '-'],
    `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: empty}
spec: {policyName: demo-policy.example.com}
`,
  );
  assert.match(noActions.stderr, /spec.validationActions: Required value: at least one validation action is required/);
});

// The controller acts as kube's validatingadmissionpolicy-status-controller ServiceAccount (its bootstrap role and binding).
test("the status controller writes observedGeneration and the type checking of a policy's expressions", async () => {
  ok(
    await c.k(
      ['apply', '-f', '-'],
      policy.replace('demo-policy.example.com', 'typo.example.com').replace('object.spec.replicas <= 5', 'object.spec.replicass <= 5'),
    ),
  );
  const deadline = Date.now() + 10_000;
  let status: { observedGeneration?: number; typeChecking?: { expressionWarnings?: { fieldRef: string; warning: string }[] } } = {};
  while (Date.now() < deadline) {
    status = JSON.parse(ok(await c.k(['get', 'validatingadmissionpolicy', 'typo.example.com', '-o', 'jsonpath={.status}'])) || '{}');
    if (status.observedGeneration === 1) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.deepEqual(status, {
    observedGeneration: 1,
    typeChecking: {
      expressionWarnings: [
        {
          fieldRef: 'spec.validations[0].expression',
          warning:
            "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass <= 5\n | ...........^\n",
        },
      ],
    },
  });
  const demo = JSON.parse(ok(await c.k(['get', 'validatingadmissionpolicy', 'demo-policy.example.com', '-o', 'jsonpath={.status}'])));
  assert.deepEqual(demo, { observedGeneration: 1, typeChecking: {} });
});
