// The audit log of a real apiserver driven by the real kubectl: with a
// policy file, a ConfigMap create is recorded at RequestResponse in both
// stages with its objects, other requests at Metadata with the caller, the
// authorization decision and its reason; an impersonated, refused request
// names both users and kube's 403 Status; the client's Audit-ID comes back.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, kubectl, ok, startApiserver, tempDir, until, type Apiserver } from '../../test/helpers/index.ts';
import type { AuditEvent } from './types.ts';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: None
    nonResourceURLs: ["/readyz", "/livez", "/healthz", "/openapi*", "/api", "/apis*", "/version"]
  - level: RequestResponse
    resources: [{group: "", resources: ["configmaps"]}]
    namespaces: ["audit-lab"]
  - level: Metadata
    omitStages: [RequestReceived]
`;

let server: Apiserver;
let logPath: string;

before(async () => {
  const dir = await tempDir('audit-e2e');
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  logPath = join(dir, 'audit.log');
  server = await startApiserver({ extraArgs: ['--audit-policy-file', join(dir, 'policy.yaml'), '--audit-log-path', logPath] });
});
after(() => server?.stop());

const k = (args: string[], input?: string) => kubectl(args, { kubeconfig: server.kubeconfig, input });
const events = (): AuditEvent[] =>
  readFileSync(logPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEvent);
/** The events matching `pred`, once there are at least `count` (the log is written asynchronously). */
const find = (what: string, pred: (e: AuditEvent) => boolean, count = 1) =>
  until(() => {
    const got = events().filter(pred);
    return got.length >= count && got;
  }, what);

test('a ConfigMap create at RequestResponse, a namespace create at Metadata', async () => {
  // `create -f` sends JSON; `kubectl create namespace` would send protobuf (see the todo test below).
  ok(await k(['create', '--validate=false', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata: {name: audit-lab}\n'));
  ok(
    await k(
      ['create', '--validate=false', '-n', 'audit-lab', '-f', '-'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: lab}\n',
    ),
  );
  const cm = await find('the configmap events', (e) => e.objectRef?.resource === 'configmaps' && e.verb === 'create', 2);
  assert.deepEqual(
    cm.map((e) => e.stage),
    ['RequestReceived', 'ResponseComplete'],
  );
  const [received, done] = cm;
  assert.equal(received.auditID, done.auditID);
  assert.equal(done.level, 'RequestResponse');
  assert.equal(done.user.username, 'kubernetes-admin');
  assert.deepEqual(done.objectRef, { resource: 'configmaps', namespace: 'audit-lab', name: 'settings', apiVersion: 'v1' });
  assert.equal(done.responseStatus?.code, 201);
  assert.deepEqual((done.requestObject as { data: unknown }).data, { mode: 'lab' });
  assert.match((done.responseObject as { metadata: { uid: string } }).metadata.uid, /^[0-9a-f-]{36}$/);
  assert.equal(done.annotations?.['authorization.k8s.io/decision'], 'allow');
  assert.match(done.annotations?.['authorization.k8s.io/reason'] ?? '', /^RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins"/);
  assert.match(done.userAgent ?? '', /^kubectl\//);
  assert.match(done.stageTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

  const [ns] = await find('the namespace event', (e) => e.objectRef?.resource === 'namespaces' && e.verb === 'create');
  assert.equal(ns.level, 'Metadata');
  assert.equal(ns.stage, 'ResponseComplete');
  assert.equal(ns.objectRef?.name, 'audit-lab');
  assert.equal(ns.requestObject, undefined);
  assert.equal(events().filter((e) => e.requestURI === '/readyz').length, 0, 'level None writes nothing');
});

test('an impersonated request that RBAC refuses: both users, forbid, the 403 Status', async () => {
  const r = await k(['get', 'secrets', '-n', 'audit-lab', '--as', 'bob']);
  assert.notEqual(r.code, 0);
  const [ev] = await find('the refused list', (e) => e.impersonatedUser?.username === 'bob');
  assert.equal(ev.user.username, 'kubernetes-admin');
  assert.equal(ev.annotations?.['authorization.k8s.io/decision'], 'forbid');
  assert.equal(ev.responseStatus?.code, 403);
  assert.equal(ev.responseStatus?.reason, 'Forbidden');
  assert.equal(
    ev.responseStatus?.message,
    'secrets is forbidden: User "bob" cannot list resource "secrets" in API group "" in the namespace "audit-lab"',
  );
});

test("the client's Audit-ID names the event and comes back in the answer", async () => {
  const res = await api(server).request('GET', '/api/v1/namespaces/audit-lab/configmaps/settings', undefined, {
    'Audit-ID': 'lab-request-1',
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers['audit-id'], 'lab-request-1');
  const mine = await find('the event of lab-request-1', (e) => e.auditID === 'lab-request-1' && e.stage === 'ResponseComplete');
  assert.equal(mine[0].verb, 'get');
});

test(
  'a protobuf create (kubectl create configmap) names its object and records its body',
  { todo: 'the apiserver hands only JSON bodies to the audit record: a protobuf one should be given once decoded' },
  async () => {
    ok(await k(['create', 'configmap', 'typed', '-n', 'audit-lab', '--from-literal=mode=typed']));
    const [ev] = await find(
      'the typed create',
      (e) =>
        e.objectRef?.resource === 'configmaps' && e.verb === 'create' && e.stage === 'ResponseComplete' && e.objectRef?.name !== 'settings',
    );
    assert.equal(ev.objectRef?.name, 'typed');
    assert.deepEqual((ev.requestObject as { data: unknown }).data, { mode: 'typed' });
  },
);
