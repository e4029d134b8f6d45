// End-to-end REST semantics of the apiserver over plain HTTP: CRUD, selectors,
// optimistic concurrency, patches, finalizers, subresources and Status errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, startApiserver, type Apiserver, type ApiClient } from './helpers/index.ts';

let server: Apiserver;
let c: ApiClient;

before(async () => {
  server = await startApiserver();
  c = api(server);
});
after(() => server?.stop());

const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = { k: 'v' }) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, labels },
  data,
});

const deployment = (name: string, replicas = 1) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

describe('bootstrap', () => {
  test('the four system namespaces exist from the first start', async () => {
    const res = await c.request('GET', '/api/v1/namespaces');
    assert.equal(res.status, 200);
    assert.equal(res.body.kind, 'NamespaceList');
    const names = res.body.items.map((n: any) => n.metadata.name);
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(names.includes(ns), ns);
    assert.equal(res.body.items[0].status.phase, 'Active');
  });

  test('health, version and metrics endpoints answer', async () => {
    for (const p of ['/livez', '/readyz', '/healthz']) assert.equal((await c.request('GET', p)).status, 200, p);
    const v = await c.request('GET', '/version');
    assert.equal(v.body.major, '1');
    assert.match(v.body.gitVersion, /^v1\.35\./);
    const m = await c.request('GET', '/metrics');
    assert.match(m.body, /apiserver_request_total/);
    assert.match(m.body, /apiserver_storage_size_bytes/);
  });
});

describe('create, get, list', () => {
  test('create fills uid, creationTimestamp, resourceVersion and generation', async () => {
    const res = await c.request('POST', '/apis/apps/v1/namespaces/default/deployments', deployment('web'));
    assert.equal(res.status, 201);
    const m = res.body.metadata;
    assert.match(m.uid, /^[0-9a-f-]{36}$/);
    assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(m.resourceVersion, /^\d+$/);
    assert.equal(m.generation, 1);
    assert.equal(m.namespace, 'default');
    const got = await c.request('GET', '/apis/apps/v1/namespaces/default/deployments/web');
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, res.body);
  });

  test('generateName gets a five-character suffix', async () => {
    const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'gen-' }, data: {} });
    assert.equal(res.status, 201);
    assert.match(res.body.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  test('a second create of the same name is 409 AlreadyExists', async () => {
    await c.request('POST', '/api/v1/namespaces/default/configmaps', cm('dup'));
    const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', cm('dup'));
    assert.equal(res.status, 409);
    assert.equal(res.body.reason, 'AlreadyExists');
    assert.equal(res.body.message, 'configmaps "dup" already exists');
  });

  test('list filters by label selector and field selector, in one namespace or all', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'sel' } });
    await c.request('POST', '/api/v1/namespaces/sel/configmaps', cm('a', { tier: 'web', env: 'prod' }));
    await c.request('POST', '/api/v1/namespaces/sel/configmaps', cm('b', { tier: 'db', env: 'prod' }));
    await c.request('POST', '/api/v1/namespaces/sel/configmaps', cm('c', { tier: 'web' }));
    const names = async (q: string, ns = 'namespaces/sel/') => {
      const res = await c.request('GET', `/api/v1/${ns}configmaps?${q}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.items.map((i: any) => i.metadata.name).sort();
    };
    assert.deepEqual(await names('labelSelector=tier%3Dweb'), ['a', 'c']);
    assert.deepEqual(await names('labelSelector=tier%20in%20(web,db),env'), ['a', 'b']);
    assert.deepEqual(await names('labelSelector=!env'), ['c']);
    assert.deepEqual(await names('labelSelector=env!%3Dprod'), ['c']);
    assert.deepEqual(await names('labelSelector=tier%20notin%20(web)'), ['b']);
    assert.deepEqual(await names('fieldSelector=metadata.name%3Db'), ['b']);
    assert.deepEqual(await names('fieldSelector=metadata.name!%3Db,metadata.namespace%3Dsel', ''), ['a', 'c']);
    const bad = await c.request('GET', '/api/v1/configmaps?fieldSelector=spec.nodeName%3Dx');
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /field label not supported: spec.nodeName/);
    const badLabel = await c.request('GET', '/api/v1/configmaps?labelSelector=a%20in%20(');
    assert.equal(badLabel.status, 400);
  });

  test('pods support spec.nodeName and status.phase field selectors', async () => {
    const pod = (name: string, nodeName?: string) => ({
      metadata: { name },
      spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }] },
    });
    await c.request('POST', '/api/v1/namespaces/default/pods', pod('p1', 'node-1'));
    await c.request('POST', '/api/v1/namespaces/default/pods', pod('p2'));
    const res = await c.request('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1');
    assert.deepEqual(
      res.body.items.map((p: any) => p.metadata.name),
      ['p1'],
    );
    const pending = await c.request('GET', '/api/v1/namespaces/default/pods?fieldSelector=status.phase%3DPending,spec.nodeName%3D');
    assert.deepEqual(
      pending.body.items.map((p: any) => p.metadata.name),
      ['p2'],
    );
  });
});

describe('updates and patches', () => {
  test('PUT with a stale resourceVersion is 409 Conflict; a current one succeeds', async () => {
    const created = (await c.request('POST', '/api/v1/namespaces/default/configmaps', cm('occ'))).body;
    const first = await c.request('PUT', '/api/v1/namespaces/default/configmaps/occ', { ...created, data: { k: 'v2' } });
    assert.equal(first.status, 200);
    assert.notEqual(first.body.metadata.resourceVersion, created.metadata.resourceVersion);
    const stale = await c.request('PUT', '/api/v1/namespaces/default/configmaps/occ', { ...created, data: { k: 'v3' } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    assert.equal(
      stale.body.message,
      'Operation cannot be fulfilled on configmaps "occ": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  test('an update that changes nothing keeps the resourceVersion', async () => {
    const created = (await c.request('POST', '/api/v1/namespaces/default/configmaps', cm('same'))).body;
    const again = await c.request('PUT', '/api/v1/namespaces/default/configmaps/same', created);
    assert.equal(again.status, 200);
    assert.equal(again.body.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  test('merge patch and JSON patch; a patch carrying a stale resourceVersion is 409', async () => {
    const created = (await c.request('POST', '/api/v1/namespaces/default/configmaps', cm('pt', {}, { a: '1', b: '2' }))).body;
    const merge = await c.request(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/pt',
      { data: { a: null, c: '3' } },
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(merge.status, 200);
    assert.deepEqual(merge.body.data, { b: '2', c: '3' });
    const json = await c.request(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/pt',
      [
        { op: 'add', path: '/metadata/labels', value: { x: 'y' } },
        { op: 'replace', path: '/data/b', value: '20' },
      ],
      {
        'content-type': 'application/json-patch+json',
      },
    );
    assert.equal(json.status, 200);
    assert.equal(json.body.metadata.labels.x, 'y');
    assert.equal(json.body.data.b, '20');
    const stale = await c.request(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/pt',
      { metadata: { resourceVersion: created.metadata.resourceVersion }, data: { d: '4' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(stale.status, 409);
    const failedTest = await c.request(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/pt',
      [{ op: 'test', path: '/data/b', value: 'nope' }],
      { 'content-type': 'application/json-patch+json' },
    );
    assert.ok(failedTest.status >= 400 && failedTest.status < 500);
    assert.equal(failedTest.body.kind, 'Status');
  });

  test('strategic merge patch merges containers by name and honours $patch: delete', async () => {
    const d = deployment('smp');
    d.spec.template.spec.containers.push({ name: 'side', image: 'busybox' });
    await c.request('POST', '/apis/apps/v1/namespaces/default/deployments', d);
    const smp = { 'content-type': 'application/strategic-merge-patch+json' };
    const path = '/apis/apps/v1/namespaces/default/deployments/smp';
    const res = await c.request('PATCH', path, { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } } }, smp);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.spec.template.spec.containers.map((x: any) => `${x.name}=${x.image}`),
      ['c=nginx:1.27', 'side=busybox'],
    );
    const del = await c.request('PATCH', path, { spec: { template: { spec: { containers: [{ name: 'side', $patch: 'delete' }] } } } }, smp);
    assert.deepEqual(
      del.body.spec.template.spec.containers.map((x: any) => x.name),
      ['c'],
    );
  });

  test('generation moves only when spec changes; the status subresource ignores spec and the main resource ignores status', async () => {
    const d = (await c.request('POST', '/apis/apps/v1/namespaces/default/deployments', deployment('gen'))).body;
    const path = '/apis/apps/v1/namespaces/default/deployments/gen';
    const mp = { 'content-type': 'application/merge-patch+json' };
    const labels = await c.request('PATCH', path, { metadata: { labels: { extra: 'x' } } }, mp);
    assert.equal(labels.body.metadata.generation, 1);
    const spec = await c.request('PATCH', path, { spec: { replicas: 3 }, status: { replicas: 99 } }, mp);
    assert.equal(spec.body.metadata.generation, 2);
    assert.equal(spec.body.status?.replicas, undefined);
    const status = await c.request(
      'PATCH',
      `${path}/status`,
      { spec: { replicas: 7 }, status: { replicas: 2, observedGeneration: 2 } },
      mp,
    );
    assert.equal(status.status, 200);
    assert.equal(status.body.status.replicas, 2);
    assert.equal(status.body.spec.replicas, 3);
    assert.equal(status.body.metadata.generation, 2);
    assert.equal(d.metadata.uid, status.body.metadata.uid);
  });

  test('the scale subresource reads and writes replicas as an autoscaling/v1 Scale', async () => {
    await c.request('POST', '/apis/apps/v1/namespaces/default/deployments', deployment('sc', 2));
    const path = '/apis/apps/v1/namespaces/default/deployments/sc/scale';
    const scale = await c.request('GET', path);
    assert.equal(scale.status, 200);
    assert.equal(scale.body.kind, 'Scale');
    assert.equal(scale.body.apiVersion, 'autoscaling/v1');
    assert.equal(scale.body.spec.replicas, 2);
    assert.equal(scale.body.status.selector, 'app=sc');
    const patched = await c.request('PATCH', path, { spec: { replicas: 5 } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(patched.body.spec.replicas, 5);
    const put = await c.request('PUT', path, { ...patched.body, spec: { replicas: 4 } });
    assert.equal(put.status, 200);
    const d = await c.request('GET', '/apis/apps/v1/namespaces/default/deployments/sc');
    assert.equal(d.body.spec.replicas, 4);
    assert.equal(d.body.metadata.generation, 3);
    const negative = await c.request('PATCH', path, { spec: { replicas: -1 } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(negative.status, 422);
    assert.match(negative.body.message, /spec\.replicas/);
  });
});

describe('pods/binding', () => {
  test('binding assigns a Pod to a node once, with PodScheduled=True', async () => {
    await c.request('POST', '/api/v1/namespaces/default/pods', {
      metadata: { name: 'tobind' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    });
    const path = '/api/v1/namespaces/default/pods/tobind/binding';
    // A dry run checks and stores nothing (found by the fuzz test).
    const dry = await c.request('POST', `${path}?dryRun=All`, { metadata: { name: 'tobind' }, target: { kind: 'Node', name: 'node-9' } });
    assert.equal(dry.status, 201);
    assert.equal((await c.request('GET', '/api/v1/namespaces/default/pods/tobind')).body.spec.nodeName, undefined);
    const res = await c.request('POST', path, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'tobind' },
      target: { kind: 'Node', name: 'node-2' },
    });
    assert.equal(res.status, 201);
    const pod = (await c.request('GET', '/api/v1/namespaces/default/pods/tobind')).body;
    assert.equal(pod.spec.nodeName, 'node-2');
    assert.equal(pod.status.conditions.find((x: any) => x.type === 'PodScheduled').status, 'True');
    const again = await c.request('POST', path, { metadata: { name: 'tobind' }, target: { kind: 'Node', name: 'node-3' } });
    assert.equal(again.status, 409);
    assert.match(again.body.message, /is already assigned to node "node-2"/);
  });
});

describe('pods/eviction', () => {
  test('an eviction a PodDisruptionBudget forbids is 429; an allowed one spends the budget and deletes gracefully', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'evict' } });
    const ready = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    const pod = {
      metadata: { name: 'guarded', labels: { app: 'g' } },
      spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] },
    };
    const created = (await c.request('POST', '/api/v1/namespaces/evict/pods', pod)).body;
    await c.request('PUT', '/api/v1/namespaces/evict/pods/guarded/status', { ...created, status: ready });
    const pdb = (
      await c.request('POST', '/apis/policy/v1/namespaces/evict/poddisruptionbudgets', {
        metadata: { name: 'g-pdb' },
        spec: { minAvailable: 1, selector: { matchLabels: { app: 'g' } } },
      })
    ).body;
    const setAllowed = (n: number) =>
      c.request(
        'PATCH',
        '/apis/policy/v1/namespaces/evict/poddisruptionbudgets/g-pdb/status',
        {
          status: {
            disruptionsAllowed: n,
            currentHealthy: 1,
            desiredHealthy: 1 - n,
            expectedPods: 1,
            observedGeneration: pdb.metadata.generation,
          },
        },
        { 'content-type': 'application/merge-patch+json' },
      );
    await setAllowed(0);
    const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'guarded', namespace: 'evict' } };
    const refused = await c.request('POST', '/api/v1/namespaces/evict/pods/guarded/eviction', eviction);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.reason, 'TooManyRequests');
    assert.equal(refused.body.message, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.match(refused.body.details.causes[0].message, /The disruption budget g-pdb needs 1 healthy pods and has 1 currently/);
    await setAllowed(1);
    // A dry run checks the budget and stores nothing, on the query or in the Eviction's deleteOptions (found by the fuzz test).
    for (const [query, body] of [
      ['?dryRun=All', eviction],
      ['', { ...eviction, deleteOptions: { dryRun: ['All'] } }],
    ] as const) {
      const dry = await c.request('POST', `/api/v1/namespaces/evict/pods/guarded/eviction${query}`, body);
      assert.equal(dry.status, 201, JSON.stringify(dry.body));
      assert.equal((await c.request('GET', '/api/v1/namespaces/evict/pods/guarded')).body.metadata.deletionTimestamp, undefined);
      const untouched = (await c.request('GET', '/apis/policy/v1/namespaces/evict/poddisruptionbudgets/g-pdb')).body;
      assert.equal(untouched.status.disruptionsAllowed, 1);
    }
    const allowed = await c.request('POST', '/api/v1/namespaces/evict/pods/guarded/eviction', eviction);
    assert.equal(allowed.status, 201);
    const after = (await c.request('GET', '/api/v1/namespaces/evict/pods/guarded')).body;
    assert.ok(after.metadata.deletionTimestamp, 'deleted gracefully');
    const budget = (await c.request('GET', '/apis/policy/v1/namespaces/evict/poddisruptionbudgets/g-pdb')).body;
    assert.equal(budget.status.disruptionsAllowed, 0);
    assert.ok(budget.status.disruptedPods.guarded);
  });
});

describe('subresource verbs', () => {
  test('a verb a subresource does not serve is 405, as kube lists the verbs (found by the fuzz test)', async () => {
    await c.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'verbs' } });
    for (const [method, path, verb] of [
      ['GET', '/api/v1/namespaces/default/serviceaccounts/verbs/token', 'get'],
      ['DELETE', '/api/v1/namespaces/default/pods/p/status', 'delete'],
      ['PUT', '/api/v1/namespaces/default/pods/p/log', 'update'],
    ] as const) {
      const res = await c.request(method, path, method === 'PUT' ? {} : undefined);
      assert.equal(res.status, 405, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.reason, 'MethodNotAllowed');
      assert.equal(res.body.details.causes[0].message, `${verb} is not supported`);
    }
    // Streams without an upgrade are kube's 400, whatever the verb.
    for (const method of ['GET', 'POST'] as const) {
      const res = await c.request(method, '/api/v1/namespaces/default/pods/p/exec?command=ls');
      assert.equal(res.status, 400);
      assert.equal(res.body.message, 'Upgrade request required');
    }
  });
});

describe('delete', () => {
  test('finalizers hold an object with a deletionTimestamp until they are removed', async () => {
    const path = '/api/v1/namespaces/default/configmaps/held';
    await c.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const del = await c.request('DELETE', path);
    assert.equal(del.status, 202);
    assert.ok(del.body.metadata.deletionTimestamp);
    const still = await c.request('GET', path);
    assert.equal(still.status, 200);
    assert.ok(still.body.metadata.deletionTimestamp);
    const addMore = await c.request(
      'PATCH',
      path,
      { metadata: { finalizers: ['example.com/hold', 'example.com/other'] } },
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(addMore.status, 422);
    const release = await c.request('PATCH', path, { metadata: { finalizers: null } }, { 'content-type': 'application/merge-patch+json' });
    assert.equal(release.status, 200);
    assert.equal((await c.request('GET', path)).status, 404);
  });

  test('preconditions and propagation policy; a missing object is 404 with kube message', async () => {
    const created = (await c.request('POST', '/api/v1/namespaces/default/configmaps', cm('pre'))).body;
    const wrong = await c.request('DELETE', '/api/v1/namespaces/default/configmaps/pre', { preconditions: { uid: 'nope' } });
    assert.equal(wrong.status, 409);
    assert.match(wrong.body.message, /Precondition failed: UID in precondition: nope/);
    const ok = await c.request('DELETE', '/api/v1/namespaces/default/configmaps/pre', { preconditions: { uid: created.metadata.uid } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.status, 'Success');
    assert.equal(ok.body.details.name, 'pre');
    const gone = await c.request('DELETE', '/api/v1/namespaces/default/configmaps/pre');
    assert.equal(gone.status, 404);
    assert.equal(gone.body.message, 'configmaps "pre" not found');
    await c.request('POST', '/api/v1/namespaces/default/configmaps', cm('orph'));
    const orphan = await c.request('DELETE', '/api/v1/namespaces/default/configmaps/orph', { propagationPolicy: 'Orphan' });
    assert.equal(orphan.status, 202);
    assert.deepEqual(orphan.body.metadata.finalizers, ['orphan']);
  });

  test('a scheduled Pod is deleted gracefully; grace period 0 removes it at once', async () => {
    const pod = {
      metadata: { name: 'graceful' },
      spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'busybox' }] },
    };
    await c.request('POST', '/api/v1/namespaces/default/pods', pod);
    const path = '/api/v1/namespaces/default/pods/graceful';
    const first = await c.request('DELETE', path);
    assert.equal(first.status, 202);
    assert.equal(first.body.metadata.deletionGracePeriodSeconds, 30);
    const forced = await c.request('DELETE', path, { gracePeriodSeconds: 0 });
    assert.equal(forced.status, 200);
    assert.equal((await c.request('GET', path)).status, 404);
  });

  test('deletecollection removes what the selector matches', async () => {
    await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'dc' } });
    for (const n of ['x1', 'x2', 'y1']) await c.request('POST', '/api/v1/namespaces/dc/configmaps', cm(n, { group: n[0] }));
    const res = await c.request('DELETE', '/api/v1/namespaces/dc/configmaps?labelSelector=group%3Dx');
    assert.equal(res.status, 200);
    const left = await c.request('GET', '/api/v1/namespaces/dc/configmaps');
    assert.deepEqual(
      left.body.items.map((i: any) => i.metadata.name),
      ['y1'],
    );
  });
});

describe('errors are metav1.Status', () => {
  test('malformed JSON is 400', async () => {
    const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', '{"metadata": {', { 'content-type': 'application/json' });
    assert.equal(res.status, 400);
    assert.equal(res.body.kind, 'Status');
    assert.equal(res.body.reason, 'BadRequest');
  });

  test('a 4 MiB body is 413', async () => {
    const big = { metadata: { name: 'big' }, data: { blob: 'x'.repeat(4 * 1024 * 1024) } };
    const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', big);
    assert.equal(res.status, 413);
    assert.equal(res.body.reason, 'RequestEntityTooLarge');
    assert.equal((await c.request('GET', '/api/v1/namespaces/default/configmaps/big')).status, 404);
  });

  test('an invalid name is 422 naming metadata.name', async () => {
    const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', cm('Bad_Name'));
    assert.equal(res.status, 422);
    assert.equal(res.body.reason, 'Invalid');
    assert.match(
      res.body.message,
      /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    assert.equal(res.body.details.causes[0].field, 'metadata.name');
  });

  test('a missing namespace is 404 namespaces "x" not found', async () => {
    const res = await c.request('POST', '/api/v1/namespaces/nowhere/configmaps', cm('a'));
    assert.equal(res.status, 404);
    assert.equal(res.body.message, 'namespaces "nowhere" not found');
  });

  test("in kube's order: a body that does not decode is 400 before a missing namespace, an invalid object 404 after it", async () => {
    const malformed = await c.request('POST', '/api/v1/namespaces/nowhere/configmaps', '{"metadata":', {
      'content-type': 'application/json',
    });
    assert.equal(malformed.status, 400);
    const invalidCm = await c.request('POST', '/api/v1/namespaces/nowhere/configmaps', cm('Bad_Name'));
    assert.equal(invalidCm.status, 404);
    assert.equal(invalidCm.body.message, 'namespaces "nowhere" not found');
    const invalidPod = await c.request('POST', '/api/v1/namespaces/nowhere/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'Bad_Name' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    assert.equal(invalidPod.status, 404, 'Pods are prepared on the create worker: the same order');
  });

  test('unknown paths are 404, unsupported methods 405, unsupported content types 415', async () => {
    assert.equal((await c.request('GET', '/api/v1/widgets')).status, 404);
    assert.equal((await c.request('PUT', '/api/v1/namespaces/default/configmaps', {})).status, 405);
    const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', 'x', { 'content-type': 'text/plain' });
    assert.equal(res.status, 415);
    assert.equal(res.body.reason, 'UnsupportedMediaType');
  });

  test('YAML bodies are accepted and YAML responses served', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n';
    const res = await c.request('POST', '/api/v1/namespaces/default/configmaps', yaml, { 'content-type': 'application/yaml' });
    assert.equal(res.status, 201);
    const got = await c.request('GET', '/api/v1/namespaces/default/configmaps/from-yaml', undefined, { accept: 'application/yaml' });
    assert.match(got.body, /name: from-yaml/);
  });
});
