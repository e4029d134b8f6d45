// Request traces (history.ksim.io/v1alpha1 requests) on a real apiserver:
// one request's path, step by step, for a create RBAC denies, one that is
// stored, one admission refuses and one validation refuses; the write's
// history record names its request; only a caller who may list requests
// reads them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { api, startApiserver, tlsFor, type Apiserver, type ApiClient, type ApiResponse } from './helpers/index.ts';

let server: Apiserver;
let c: ApiClient;
const R = '/apis/history.ksim.io/v1alpha1/requests';
const CM = '/api/v1/namespaces/traced/configmaps';

before(async () => {
  server = await startApiserver();
  c = api(server);
  assert.equal((await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'traced' } })).status, 201);
});
after(() => server?.stop());

interface Step {
  stage: string;
  outcome: string;
  detail?: string;
  plugin?: string;
  phase?: string;
  revision?: string;
  watchers?: number;
  ms?: number;
}

async function traceOf(res: ApiResponse): Promise<{ steps: Step[]; [k: string]: unknown }> {
  const id = res.headers['audit-id'];
  assert.ok(id, 'the answer names its audit ID');
  const got = await c.request('GET', `${R}/${id}`);
  assert.equal(got.status, 200, JSON.stringify(got.body));
  assert.equal(got.body.kind, 'RequestTrace');
  assert.equal(got.body.apiVersion, 'history.ksim.io/v1alpha1');
  assert.equal(got.body.auditID, id);
  return got.body;
}

const stages = (steps: Step[]) => steps.map((s) => s.stage).filter((s, i, all) => all[i - 1] !== s);

test('a create RBAC denies: authentication, impersonation, the deny with its reason, 403', async () => {
  const res = await c.request('POST', CM, { metadata: { name: 'nope' } }, { 'impersonate-user': 'dave' });
  assert.equal(res.status, 403);
  const t = await traceOf(res);
  assert.deepEqual(stages(t.steps), ['authentication', 'impersonation', 'authorization', 'response'], JSON.stringify(t.steps));
  assert.equal(t.user, 'dave');
  assert.equal(t.verb, 'create');
  assert.equal(t.resource, 'configmaps');
  assert.equal(t.namespace, 'traced');
  assert.equal(t.code, 403);
  const [authn, imp, authz, response] = t.steps;
  assert.equal(authn.outcome, 'ok');
  assert.match(authn.detail!, /^x509: kubernetes-admin \(groups /);
  assert.match(imp.detail!, /^as dave/);
  assert.equal(authz.outcome, 'deny');
  assert.equal(typeof authz.ms, 'number');
  assert.equal(response.outcome, '403');
});

// A ResourceQuota in the namespace keeps its creates on the main thread (a create worker runs the
// object-only plugins off it, untraced), and refuses the second ConfigMap.
const QCM = '/api/v1/namespaces/quota/configmaps';

test('a create that is stored: allow, each admission plugin, validation, the revision, 201; its history names the request', async () => {
  assert.equal((await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'quota' } })).status, 201);
  const quota = await c.request('POST', '/api/v1/namespaces/quota/resourcequotas', {
    metadata: { name: 'one-configmap' },
    spec: { hard: { configmaps: '1' } },
  });
  assert.equal(quota.status, 201, JSON.stringify(quota.body));
  // Two watches of the namespace's ConfigMaps, one with a selector the object matches: the write is handed to both.
  const watches = [c.watch(QCM), c.watch(`${QCM}?labelSelector=app%3Dtraced`)];
  for (const w of watches) assert.equal((await w.ready).status, 200);
  const res = await c.request(
    'POST',
    QCM,
    { metadata: { name: 'kept', labels: { app: 'traced' } }, data: { a: 'b' } },
    { 'user-agent': 'trace-test/1.0' },
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const t = await traceOf(res);
  assert.deepEqual(
    stages(t.steps),
    ['authentication', 'authorization', 'admission', 'validation', 'storage', 'watch', 'response'],
    JSON.stringify(t.steps),
  );
  assert.equal(t.userAgent, 'trace-test/1.0');
  const notified = t.steps.find((s) => s.stage === 'watch')!;
  // The apiserver's own informers may watch ConfigMaps too.
  assert.ok(notified.watchers! >= 2, JSON.stringify(notified));
  for (const w of watches) {
    let ev = await w.next();
    while (ev && ev.object.metadata.name !== 'kept') ev = await w.next();
    assert.equal(ev?.type, 'ADDED');
    w.close();
  }
  const authz = t.steps.find((s) => s.stage === 'authorization')!;
  assert.equal(authz.outcome, 'allow');
  assert.match(authz.detail!, /^RBAC: allowed by ClusterRoleBinding/);
  const plugins = t.steps.filter((s) => s.stage === 'admission');
  assert.ok(
    plugins.some((s) => s.plugin === 'ResourceQuota' && s.outcome === 'allowed'),
    JSON.stringify(plugins),
  );
  assert.ok(plugins.every((s) => (s.phase === 'mutating' || s.phase === 'validating') && typeof s.ms === 'number'));
  const storage = t.steps.find((s) => s.stage === 'storage')!;
  assert.equal(storage.revision, res.body.metadata.resourceVersion);
  assert.equal(typeof storage.ms, 'number');
  assert.equal(t.code, 201);
  const history = await c.request('GET', '/apis/history.ksim.io/v1alpha1/namespaces/quota/configmaps/kept');
  assert.equal(history.status, 200);
  assert.equal(history.body.items[0].writer.requestID, res.headers['audit-id']);
});

test('a create admission refuses: the plugin that denied it and its message, nothing stored', async () => {
  const res = await c.request('POST', QCM, { metadata: { name: 'second' } });
  assert.equal(res.status, 403, JSON.stringify(res.body));
  const t = await traceOf(res);
  const denied = t.steps.filter((s) => s.stage === 'admission' && s.outcome === 'denied');
  assert.equal(denied.length, 1, JSON.stringify(t.steps));
  assert.equal(denied[0].plugin, 'ResourceQuota');
  assert.equal(denied[0].detail, res.body.message);
  assert.ok(!t.steps.some((s) => s.stage === 'storage'));
  assert.equal(t.code, 403);
});

test('a create validation refuses: the validation error, nothing stored', async () => {
  const res = await c.request('POST', CM, { metadata: { name: 'Bad_Name' } });
  assert.equal(res.status, 422);
  const t = await traceOf(res);
  const validation = t.steps.filter((s) => s.stage === 'validation');
  assert.deepEqual(validation, [{ stage: 'validation', outcome: 'error', detail: res.body.message }], JSON.stringify(t.steps));
  assert.ok(!t.steps.some((s) => s.stage === 'storage'));
  assert.equal(t.code, 422);
});

test('the list: newest first, filtered by user and resource, without the trace reads themselves', async () => {
  const list = await c.request('GET', `${R}?resource=configmaps&limit=10`);
  assert.equal(list.status, 200);
  assert.equal(list.body.kind, 'RequestTraceList');
  const names = list.body.items.map((i: { name?: string; path: string }) => i.name ?? i.path);
  assert.ok(
    list.body.items.every((i: { resource: string }) => i.resource === 'configmaps'),
    JSON.stringify(names),
  );
  assert.ok(!list.body.items.some((i: { path: string }) => i.path.startsWith(R)));
  const times = list.body.items.map((i: { time: string }) => i.time);
  assert.deepEqual([...times].sort().reverse(), times);
  const dave = await c.request('GET', `${R}?user=dave`);
  assert.deepEqual(
    dave.body.items.map((i: { code: number }) => i.code),
    [403],
  );
});

test('reading traces needs list on requests.history.ksim.io; an unknown ID is a 404 Status', async () => {
  const some = (await c.request('GET', `${R}?limit=1`)).body.items[0].auditID;
  for (const path of [R, `${R}/${some}`]) {
    const denied = await c.request('GET', path, undefined, { 'impersonate-user': 'erin' });
    assert.equal(denied.status, 403, path);
    assert.match(denied.body.message, /cannot (list|get) resource "requests" in API group "history.ksim.io"/);
  }
  await c.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: 'request-reader' },
    rules: [{ apiGroups: ['history.ksim.io'], resources: ['requests'], verbs: ['get', 'list'] }],
  });
  await c.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'erin-requests' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'request-reader' },
    subjects: [{ kind: 'User', name: 'erin', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  assert.equal((await c.request('GET', `${R}/${some}`, undefined, { 'impersonate-user': 'erin' })).status, 200);
  const missing = await c.request('GET', `${R}/no-such-id`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.kind, 'Status');
  assert.equal(missing.body.message, 'requests.history.ksim.io "no-such-id" not found');
});

/** Opens a WebSocket watch of `path`; resolves with the handshake's answer (101 or a refusal) and its Audit-Id. */
function openWebSocket(path: string, headers: Record<string, string> = {}): Promise<{ code: number; auditID?: string; ws: WebSocket }> {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}${path}`, { ...tlsFor(server).tls, headers });
  return new Promise((resolve, reject) => {
    ws.once('upgrade', (res) => resolve({ code: 101, auditID: res.headers['audit-id'] as string | undefined, ws }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ code: res.statusCode ?? 0, auditID: res.headers['audit-id'] as string | undefined, ws });
      res.resume();
    });
    ws.once('error', reject);
  });
}

test('a WebSocket watch is traced: its 101 names the audit ID, and so does a refused one', async () => {
  const open = await openWebSocket(`${CM}?watch=true`);
  assert.equal(open.code, 101);
  assert.ok(open.auditID, 'the 101 carries Audit-Id');
  const t = await traceOf({ headers: { 'audit-id': open.auditID } } as unknown as ApiResponse);
  assert.deepEqual(stages(t.steps), ['authentication', 'authorization', 'response'], JSON.stringify(t.steps));
  assert.equal(t.verb, 'watch');
  assert.equal(t.code, 101);
  open.ws.close();

  const refused = await openWebSocket(`${CM}?watch=true`, { 'impersonate-user': 'dave' });
  assert.equal(refused.code, 403);
  assert.ok(refused.auditID, 'the refusal carries Audit-Id');
  const denied = await traceOf({ headers: { 'audit-id': refused.auditID } } as unknown as ApiResponse);
  assert.deepEqual(stages(denied.steps), ['authentication', 'impersonation', 'authorization', 'response'], JSON.stringify(denied.steps));
  assert.equal(denied.code, 403);
});
