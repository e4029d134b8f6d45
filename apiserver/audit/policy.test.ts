// The audit policy as tables: which level kube's checker gives a request
// (first matching rule, users, groups, verbs, resources with subresources
// and names, namespaces, non-resource URLs), omitStages and
// omitManagedFields, and the policy file's validation messages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_POLICY, loadPolicyFile, parsePolicy, policyEvaluator, type PolicyAttributes } from './policy.ts';

// kube's documentation example policy, adapted.
const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: RequestResponse
    resources: [{group: "", resources: ["pods"]}]
  - level: Metadata
    resources: [{group: "", resources: ["pods/log", "pods/status"]}]
  - level: None
    resources: [{group: "", resources: ["configmaps"], resourceNames: ["controller-leader"]}]
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
    resources: [{group: "", resources: ["endpoints", "services"]}]
  - level: None
    userGroups: ["system:authenticated"]
    nonResourceURLs: ["/api*", "/version"]
  - level: Request
    resources: [{group: "", resources: ["configmaps"]}]
    namespaces: ["kube-system"]
  - level: Metadata
    resources: [{group: "", resources: ["secrets", "configmaps"]}]
    omitManagedFields: false
  - level: Request
    resources: [{group: "apps", resources: ["*/scale"]}, {group: "batch", resources: ["jobs/*"]}]
  - level: RequestResponse
    resources: [{group: "rbac.authorization.k8s.io"}]
  - level: Metadata
    omitStages: [ResponseStarted]
    omitManagedFields: true
`;

const alice = { username: 'alice', groups: ['devs', 'system:authenticated'] };
const proxy = { username: 'system:kube-proxy', groups: ['system:authenticated'] };
const res = (resource: string, extra: Partial<NonNullable<PolicyAttributes['objectRef']>> = {}) => ({
  objectRef: { resource, apiVersion: 'v1', ...extra },
});

const cases: [string, PolicyAttributes, string][] = [
  [
    'pods: first rule',
    { user: alice, verb: 'get', path: '/api/v1/namespaces/a/pods/p', ...res('pods', { namespace: 'a', name: 'p' }) },
    'RequestResponse',
  ],
  ['pods/log is not pods', { user: alice, verb: 'get', path: '/x', ...res('pods', { subresource: 'log' }) }, 'Metadata'],
  ['pods/exec matches no pod rule', { user: alice, verb: 'create', path: '/x', ...res('pods', { subresource: 'exec' }) }, 'Metadata'],
  [
    'a named configmap',
    { user: alice, verb: 'update', path: '/x', ...res('configmaps', { namespace: 'kube-system', name: 'controller-leader' }) },
    'None',
  ],
  [
    'another configmap in kube-system',
    { user: alice, verb: 'update', path: '/x', ...res('configmaps', { namespace: 'kube-system', name: 'x' }) },
    'Request',
  ],
  ['a configmap elsewhere', { user: alice, verb: 'update', path: '/x', ...res('configmaps', { namespace: 'lab', name: 'x' }) }, 'Metadata'],
  ['kube-proxy watching services', { user: proxy, verb: 'watch', path: '/x', ...res('services') }, 'None'],
  ['kube-proxy listing services', { user: proxy, verb: 'list', path: '/x', ...res('services') }, 'Metadata'],
  ['alice watching services', { user: alice, verb: 'watch', path: '/x', ...res('services') }, 'Metadata'],
  ['/api prefix', { user: alice, verb: 'get', path: '/apis/apps/v1' }, 'None'],
  ['/version exact', { user: alice, verb: 'get', path: '/version' }, 'None'],
  ['/version/x is not /version', { user: alice, verb: 'get', path: '/version/x' }, 'Metadata'],
  [
    'non-resource rule needs the group',
    { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] }, verb: 'get', path: '/version' },
    'Metadata',
  ],
  ['no user matches no group rule', { verb: 'get', path: '/version' }, 'Metadata'],
  [
    '*/scale in apps',
    { user: alice, verb: 'update', path: '/x', ...res('deployments', { apiGroup: 'apps', subresource: 'scale' }) },
    'Request',
  ],
  ['apps deployments itself', { user: alice, verb: 'update', path: '/x', ...res('deployments', { apiGroup: 'apps' }) }, 'Metadata'],
  ['jobs/* in batch', { user: alice, verb: 'get', path: '/x', ...res('jobs', { apiGroup: 'batch', subresource: 'status' }) }, 'Request'],
  [
    'a whole group',
    { user: alice, verb: 'create', path: '/x', ...res('roles', { apiGroup: 'rbac.authorization.k8s.io' }) },
    'RequestResponse',
  ],
  ['pods in another group', { user: alice, verb: 'get', path: '/x', ...res('pods', { apiGroup: 'metrics.k8s.io' }) }, 'Metadata'],
];

const evaluate = policyEvaluator(parsePolicy(POLICY));
for (const [name, attrs, level] of cases) {
  test(`policy: ${name} -> ${level}`, () => assert.equal(evaluate(attrs).level, level));
}

test('omitStages are the policy-wide ones plus the rule own; omitManagedFields from the rule, else the policy', () => {
  const last = evaluate({ user: alice, verb: 'get', path: '/healthz' });
  assert.deepEqual([...last.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
  assert.equal(last.omitManagedFields, true);
  const secrets = evaluate({ user: alice, verb: 'get', path: '/x', ...res('secrets') });
  assert.deepEqual([...secrets.omitStages], ['RequestReceived']);
  assert.equal(secrets.omitManagedFields, false);
  // No rule matched: None, with the policy's stages.
  const none = policyEvaluator(parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata, verbs: [get]}]\n'));
  assert.equal(none({ verb: 'list', path: '/x' }).level, 'None');
});

test('without a policy file: Metadata for everything, without RequestReceived', () => {
  const d = policyEvaluator(DEFAULT_POLICY)({ verb: 'delete', path: '/x', ...res('secrets') });
  assert.equal(d.level, 'Metadata');
  assert.deepEqual([...d.omitStages], ['RequestReceived']);
});

const invalid: [string, string][] = [
  ['rules: [{}]', 'rules[0].level: Required value'],
  [
    'rules: [{level: Everything}]',
    'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"',
  ],
  [
    'rules: [{level: None, nonResourceURLs: ["api"]}]',
    `rules[0].nonResourceURLs[0]: Invalid value: "api": non-resource URL rules must begin with a '/' character`,
  ],
  [
    'rules: [{level: None, nonResourceURLs: ["/a*b"]}]',
    `rules[0].nonResourceURLs[0]: Invalid value: "/a*b": non-resource URL wildcards '*' must be the final character of the rule`,
  ],
  [
    'rules: [{level: None, nonResourceURLs: ["/x"], namespaces: [a]}]',
    'rules[0].nonResourceURLs: Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs',
  ],
  [
    'rules: [{level: None, resources: [{resourceNames: [a]}]}]',
    'rules[0].resources.resourceNames: Invalid value: []string{"a"}: using resourceNames requires at least one resource',
  ],
  [
    'rules: [{level: None, omitStages: [Sometimes]}]',
    'rules[0].omitStages[0]: Invalid value: "Sometimes": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic',
  ],
  [
    'rules: [{}, {level: X}]',
    '[rules[0].level: Required value, rules[1].level: Unsupported value: "X": supported values: "None", "Metadata", "Request", "RequestResponse"]',
  ],
  ['rules: []', 'loaded illegal policy with 0 rules'],
];
for (const [rules, message] of invalid) {
  test(`policy file refused: ${rules}`, () => {
    assert.throws(
      () => parsePolicy(`apiVersion: audit.k8s.io/v1\nkind: Policy\n${rules}\n`),
      (err: Error) => err.message === message,
    );
  });
}

test('a file of another kind, and the file named in the error', () => {
  assert.throws(() => parsePolicy('apiVersion: v1\nkind: ConfigMap\n'), {
    message: 'failed decoding: no kind "ConfigMap" is registered for version "v1"',
  });
  const dir = mkdtempSync(join(tmpdir(), 'audit-policy-'));
  const file = join(dir, 'policy.yaml');
  writeFileSync(file, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n');
  assert.throws(() => loadPolicyFile(file), { message: `loaded illegal policy with 0 rules: from file ${file}` });
  assert.throws(
    () => loadPolicyFile(join(dir, 'missing.yaml')),
    (err: Error) => /^failed to read file path ".*missing\.yaml": ENOENT/.test(err.message),
  );
  writeFileSync(file, POLICY);
  assert.equal(loadPolicyFile(file).rules.length, 10);
});
