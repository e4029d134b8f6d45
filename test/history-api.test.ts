// The history API (history.ksim.io/v1alpha1) on a real apiserver: every
// revision with its writer, an object at an old revision (also deleted),
// diffs, blame, the cluster-wide change list (also waited on), causes sent
// by a component and the trace built from them, RBAC, and kube-style errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeCause } from '../shared/api/write-cause.ts';
import { api, connectRaw, kubectl, startApiserver, type Apiserver, type ApiClient } from './helpers/index.ts';

let server: Apiserver;
let c: ApiClient;
const H = '/apis/history.ksim.io/v1alpha1';
const CM = '/api/v1/namespaces/hist/configmaps';
const revs: string[] = [];

before(async () => {
  server = await startApiserver();
  c = api(server);
  await c.request('POST', '/api/v1/namespaces', { metadata: { name: 'hist' } });
  const created = await c.request(
    'POST',
    `${CM}?fieldManager=alice`,
    { metadata: { name: 'colors' }, data: { color: 'red' } },
    { 'user-agent': 'kubectl/v1.35.0 (linux/amd64)' },
  );
  assert.equal(created.status, 201);
  revs.push(created.body.metadata.resourceVersion);
  const patched = await c.request(
    'PATCH',
    `${CM}/colors`,
    { data: { color: 'blue', size: 'L' } },
    {
      'content-type': 'application/merge-patch+json',
      'user-agent': 'kubectl-patch/v1.35.0 (linux/amd64)',
    },
  );
  assert.equal(patched.status, 200);
  revs.push(patched.body.metadata.resourceVersion);
  // A component's write, with its cause: triggered by the patch.
  const caused = await c.request(
    'PATCH',
    `${CM}/colors`,
    { metadata: { labels: { checked: 'yes' } } },
    {
      'content-type': 'application/merge-patch+json',
      'user-agent': 'kube-controller-manager/v1.35.0',
      'x-ksim-cause': encodeCause({ controller: 'colorcheck', key: 'hist/colors', triggers: [revs[1]] })!,
    },
  );
  assert.equal(caused.status, 200);
  revs.push(caused.body.metadata.resourceVersion);
  const deleted = await c.request('DELETE', `${CM}/colors`);
  assert.equal(deleted.status, 200);
});
after(() => server?.stop());

describe('one object', () => {
  test('every revision, with who wrote it', async () => {
    const res = await c.request('GET', `${H}/namespaces/hist/configmaps/colors`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.kind, 'RevisionList');
    assert.deepEqual(res.body.object, { group: '', resource: 'configmaps', kind: 'ConfigMap', namespace: 'hist', name: 'colors' });
    const items = res.body.items;
    assert.deepEqual(
      items.map((i: any) => i.type),
      ['ADDED', 'MODIFIED', 'MODIFIED', 'DELETED'],
    );
    assert.deepEqual(
      items.slice(0, 3).map((i: any) => i.revision),
      revs,
    );
    assert.equal(items[0].writer.user, 'kubernetes-admin');
    assert.equal(items[0].writer.verb, 'create');
    assert.equal(items[0].writer.fieldManager, 'alice');
    assert.match(items[0].writer.userAgent, /^kubectl\/v1\.35/);
    assert.equal(items[1].writer.verb, 'patch');
    assert.equal(items[1].writer.fieldManager, 'kubectl-patch');
    assert.deepEqual(items[2].writer.cause, { controller: 'colorcheck', key: 'hist/colors', triggers: [revs[1]] });
    assert.equal(items[3].writer.verb, 'delete');
    assert.match(items[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Paged.
    const page = await c.request('GET', `${H}/namespaces/hist/configmaps/colors?limit=2`);
    assert.equal(page.body.items.length, 2);
    const rest = await c.request('GET', `${H}/namespaces/hist/configmaps/colors?limit=2&continue=${page.body.metadata.continue}`);
    assert.deepEqual(
      rest.body.items.map((i: any) => i.type),
      ['MODIFIED', 'DELETED'],
    );
  });

  test('the object as it was, after it was deleted', async () => {
    const res = await c.request('GET', `${H}/namespaces/hist/configmaps/colors/object?revision=${revs[0]}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { color: 'red' });
    const later = await c.request('GET', `${H}/namespaces/hist/configmaps/colors/object?revision=${revs[1]}`);
    assert.deepEqual(later.body.data, { color: 'blue', size: 'L' });
    const before = await c.request('GET', `${H}/namespaces/hist/configmaps/colors/object?revision=${Number(revs[0]) - 1}`);
    assert.equal(before.status, 404);
    assert.equal(before.body.reason, 'NotFound');
    assert.match(before.body.message, /configmaps "colors" not found at revision/);
  });

  test('a diff names each changed field', async () => {
    const res = await c.request('GET', `${H}/namespaces/hist/configmaps/colors/diff?from=${revs[0]}&to=${revs[1]}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.kind, 'RevisionDiff');
    assert.deepEqual(res.body.changes, [
      { path: '.data.color', op: 'replace', old: 'red', new: 'blue' },
      { path: '.data.size', op: 'add', new: 'L' },
    ]);
  });

  test('blame: the revision and writer that last set each field', async () => {
    const res = await c.request('GET', `${H}/namespaces/hist/configmaps/colors/blame?revision=${revs[2]}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const byPath = Object.fromEntries(res.body.fields.map((f: any) => [f.path, f]));
    assert.equal(byPath['.data.color'].revision, revs[1]);
    assert.equal(byPath['.data.color'].writer.fieldManager, 'kubectl-patch');
    assert.equal(byPath['.data.color'].manager, 'kubectl-patch');
    assert.equal(byPath['.metadata.name'].revision, revs[0]);
    assert.equal(byPath['.metadata.labels.checked'].writer.cause.controller, 'colorcheck');
    // A deleted object has no fields to blame at its deletion.
    const gone = await c.request('GET', `${H}/namespaces/hist/configmaps/colors/blame`);
    assert.equal(gone.status, 404);
  });

  test('trace: the writes a revision caused, and what caused a write', async () => {
    const res = await c.request('GET', `${H}/namespaces/hist/configmaps/colors/trace?revision=${revs[1]}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.root.revision, revs[1]);
    assert.deepEqual(
      res.body.root.children.map((n: any) => n.revision),
      [revs[2]],
    );
    assert.equal(res.body.root.children[0].writer.cause.controller, 'colorcheck');
    const back = await c.request('GET', `${H}/namespaces/hist/configmaps/colors/trace?revision=${revs[2]}`);
    assert.deepEqual(
      back.body.causes.map((n: any) => n.revision),
      [revs[1]],
    );
    assert.equal(back.body.causes[0].object.name, 'colors');
  });
});

describe('the whole cluster', () => {
  test('changes between two revisions, paged, with the objects when asked', async () => {
    const res = await c.request('GET', `${H}/changes?from=${Number(revs[0]) - 1}&to=${revs[2]}&objects=true`);
    assert.equal(res.status, 200);
    assert.equal(res.body.kind, 'ChangeList');
    const ours = res.body.items.filter((i: any) => i.object.name === 'colors');
    assert.deepEqual(
      ours.map((i: any) => i.revision),
      revs,
    );
    assert.deepEqual(ours[0].body.data, { color: 'red' });
    const page = await c.request('GET', `${H}/changes?from=${Number(revs[0]) - 1}&to=${revs[2]}&limit=1`);
    assert.equal(page.body.items.length, 1);
    assert.ok(page.body.metadata.continue);
  });

  test('changes of the resources named by resource=, and a 400 naming the parameter for one not served', async () => {
    await c.request('POST', '/api/v1/namespaces/hist/secrets', { metadata: { name: 'not-a-configmap' } });
    const res = await c.request('GET', `${H}/changes?from=${Number(revs[0]) - 1}&resource=configmaps`);
    assert.equal(res.status, 200);
    assert.ok(res.body.items.length >= 3);
    assert.deepEqual([...new Set(res.body.items.map((i: any) => i.object.resource))], ['configmaps']);
    const both = await c.request('GET', `${H}/changes?from=${Number(revs[0]) - 1}&resource=configmaps,secrets`);
    assert.ok(both.body.items.some((i: any) => i.object.name === 'not-a-configmap'));
    const bad = await c.request('GET', `${H}/changes?resource=nosuch.example.com`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.kind, 'Status');
    assert.match(bad.body.message, /^resource: "nosuch.example.com" is not a served resource/);
  });

  test('a reader waits for the next change with timeoutSeconds', async () => {
    const now = (await c.request('GET', `${H}/changes?limit=1`)).body.metadata.resourceVersion;
    const waiting = c.request('GET', `${H}/changes?from=${now}&timeoutSeconds=10`);
    await new Promise((r) => setTimeout(r, 200));
    await c.request('POST', CM, { metadata: { name: 'later' } });
    const res = await waiting;
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.items.map((i: any) => i.object.name),
      ['later'],
    );
  });

  test('a watch of changes: those after from, then each commit as it happens, with the resource filter', async () => {
    const from = (await c.request('GET', `${H}/changes?limit=1`)).body.metadata.resourceVersion;
    const made = await c.request('POST', CM, { metadata: { name: 'watched-1' } });
    assert.equal(made.status, 201);
    const all = c.watch(`${H}/changes?from=${from}`);
    const onlySecrets = c.watch(`${H}/changes?from=${from}&resource=secrets`);
    assert.equal((await all.ready).status, 200);
    // The one made before the watch, from the kept history.
    const first = await all.next();
    assert.equal(first?.type, 'ADDED');
    assert.equal(first?.object.kind, undefined);
    assert.equal(first?.object.object.name, 'watched-1');
    assert.equal(first?.object.revision, made.body.metadata.resourceVersion);
    assert.equal(first?.object.writer.user, 'kubernetes-admin');
    // Then the live ones, in order, each once.
    await c.request('POST', CM, { metadata: { name: 'watched-2' } });
    await c.request('POST', '/api/v1/namespaces/hist/secrets', { metadata: { name: 'watched-3' } });
    const second = await all.next();
    const third = await all.next();
    assert.deepEqual([second?.object.object.name, third?.object.object.name], ['watched-2', 'watched-3']);
    assert.ok(Number(second?.object.revision) < Number(third?.object.revision));
    // A live change says when it was committed (at or after its sequencing); one from the kept history does not.
    assert.equal(first?.object.committed, undefined);
    assert.match(second?.object.committed, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(Date.parse(second?.object.committed) >= Date.parse(second?.object.time));
    const secret = await onlySecrets.next();
    assert.equal(secret?.object.object.name, 'watched-3', 'the filtered watch skips the ConfigMaps');
    assert.equal(secret?.object.body, undefined, 'no body unless asked for');
    all.close();
    onlySecrets.close();
    // A resumed watch starts after the last change it got.
    const resumed = c.watch(`${H}/changes?from=${second?.object.revision}&objects=true`);
    const next = await resumed.next();
    assert.equal(next?.object.object.name, 'watched-3');
    assert.equal(next?.object.body.metadata.name, 'watched-3', 'the body, for a caller who may read it');
    resumed.close();
    // Bad parameters are 400 Statuses naming them.
    for (const [query, field] of [
      ['from=abc', 'from'],
      ['timeoutSeconds=x', 'timeoutSeconds'],
      ['resource=nosuch', 'resource'],
    ]) {
      const bad = await c.request('GET', `${H}/changes?watch=true&${query}`);
      assert.equal(bad.status, 400, query);
      assert.match(bad.body.message, new RegExp(`^${field}: `));
    }
  });

  test('a watch of changes ends after timeoutSeconds', async () => {
    const w = c.watch(`${H}/changes?timeoutSeconds=1`);
    assert.equal((await w.ready).status, 200);
    const started = Date.now();
    let ev = await w.next(5000);
    while (ev) ev = await w.next(5000);
    assert.ok(Date.now() - started < 4000, 'ended by the server');
  });

  test('a watch of changes whose client stops reading is ended once its unsent bytes pass the limit', async () => {
    const from = (await c.request('GET', `${H}/changes?limit=1`)).body.metadata.resourceVersion;
    const socket = await connectRaw(server);
    try {
      socket.pause();
      const host = new URL(server.url).host;
      socket.write(`GET ${H}/changes?watch=true&objects=true&from=${from} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      // 40 ConfigMaps of 400 KB each: 16 MB of changes with their bodies, far past the 4 MiB limit and the socket buffers.
      const big = 'x'.repeat(400_000);
      for (let i = 0; i < 40; i++)
        assert.equal((await c.request('POST', CM, { metadata: { name: `big-${i}` }, data: { big } })).status, 201);
      // Reading now: what was sent, then the end of the response (the stream was ended, not the connection cut).
      let text = '';
      socket.setEncoding('latin1');
      socket.resume();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the stream did not end: ${text.length} bytes read`)), 20_000);
        socket.on('data', (d: string) => {
          text += d;
          if (text.endsWith('\r\n0\r\n\r\n')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      assert.match(text, /^HTTP\/1\.1 200 /);
      const got = (text.match(/\{"type":"ADDED"/g) ?? []).length;
      assert.ok(got > 0 && got < 40, `the stream ended early (${got} of 40 changes sent)`);
    } finally {
      socket.destroy();
    }
    // The apiserver serves on.
    assert.equal((await c.request('GET', `${H}/changes?limit=1`)).status, 200);
  });

  test('discovery lists the group', async () => {
    const groups = await c.request('GET', '/apis');
    assert.ok(groups.body.groups.some((g: any) => g.name === 'history.ksim.io'));
    const list = await c.request('GET', H);
    assert.deepEqual(
      list.body.resources.map((r: any) => r.name),
      ['changes', 'requests'],
    );
    assert.deepEqual(list.body.resources[0].verbs, ['list', 'watch']);
    // The kind of one item, as kube's APIResource names it: kubectl maps `changes` to it.
    assert.equal(list.body.resources[0].kind, 'Change');
  });

  test('the real kubectl lists the request traces', async () => {
    const res = await kubectl(['get', 'requests.history.ksim.io'], { kubeconfig: server.kubeconfig });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^AUDIT ID\s+TIME\s+VERB\s+OBJECT\s+USER\s+CODE\n/);
    // The create of the test's ConfigMap, by the admin, answered 201.
    assert.match(res.stdout, /\s+create\s+configmaps\/hist\s+kubernetes-admin\s+201\n/);
    const wide = await kubectl(['get', 'requests.history.ksim.io', '-o', 'wide'], { kubeconfig: server.kubeconfig });
    assert.equal(wide.code, 0, wide.stderr);
    assert.match(wide.stdout, /AUTHORIZATION\s+REVISION\s+WATCHERS\n/);
    // The create's revision, and how many watches it was handed to (0 or more).
    assert.match(wide.stdout, /\s+201\s+allow: [^\n]*\s+\d+\s+\d+\n/);
  });

  test('the real kubectl lists changes as a table', async () => {
    const res = await kubectl(['get', 'changes'], { kubeconfig: server.kubeconfig });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^REVISION\s+TIME\s+TYPE\s+OBJECT\s+WRITER\s+VERB\n/);
    assert.match(res.stdout, /\s+ADDED\s+configmaps\/hist\/colors\s+kubernetes-admin\s+create\n/);
    const wide = await kubectl(['get', 'changes', '-o', 'wide'], { kubeconfig: server.kubeconfig });
    assert.match(wide.stdout, /MODIFIED\s+configmaps\/hist\/colors\s+kubernetes-admin\s+patch\s+colorcheck hist\/colors\n/);
  });
});

describe('errors and authorization', () => {
  test('bad parameters, paths and methods get kube Status errors', async () => {
    const bad = await c.request('GET', `${H}/namespaces/hist/configmaps/colors/object?revision=abc`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /revision: must be a resourceVersion/);
    assert.equal((await c.request('GET', `${H}/namespaces/hist/nosuch/colors`)).status, 404);
    assert.equal((await c.request('GET', `${H}/configmaps/colors`)).status, 404); // namespaced, asked without one
    assert.equal((await c.request('GET', `${H}/namespaces/hist/configmaps/never`)).status, 404);
    const post = await c.request('POST', `${H}/changes`, {});
    assert.equal(post.status, 405);
  });

  test('a malformed X-Ksim-Cause is refused naming the field', async () => {
    const res = await c.request(
      'POST',
      CM,
      { metadata: { name: 'bad-cause' } },
      { 'x-ksim-cause': '{"controller":"x","triggers":["abc"]}' },
    );
    assert.equal(res.status, 400);
    assert.match(res.body.message, /X-Ksim-Cause: triggers/);
    assert.equal((await c.request('GET', `${CM}/bad-cause`)).status, 404);
  });

  test('RBAC: a user needs a grant on history.ksim.io for the resource', async () => {
    const asBob = { 'impersonate-user': 'bob' };
    const denied = await c.request('GET', `${H}/namespaces/hist/configmaps/colors`, undefined, asBob);
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /cannot get resource "configmaps" in API group "history.ksim.io"/);
    await c.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/hist/roles', {
      metadata: { name: 'cm-history' },
      rules: [{ apiGroups: ['history.ksim.io'], resources: ['configmaps', 'configmaps/diff'], verbs: ['get'] }],
    });
    await c.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/hist/rolebindings', {
      metadata: { name: 'bob-cm-history' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-history' },
      subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    const allowed = await c.request('GET', `${H}/namespaces/hist/configmaps/colors`, undefined, asBob);
    assert.equal(allowed.status, 200);
    assert.equal((await c.request('GET', `${H}/namespaces/hist/configmaps/colors/diff`, undefined, asBob)).status, 200);
    assert.equal((await c.request('GET', `${H}/namespaces/hist/configmaps/colors/blame`, undefined, asBob)).status, 403);
    assert.equal((await c.request('GET', `${H}/namespaces/hist/secrets/colors`, undefined, asBob)).status, 403);
  });

  test('changes carry an object only to a caller who may read it', async () => {
    const from = (await c.request('GET', `${H}/changes?limit=1`)).body.metadata.resourceVersion;
    await c.request('POST', '/api/v1/namespaces/hist/secrets', { metadata: { name: 'token' }, stringData: { password: 'hunter2' } });
    await c.request('POST', CM, { metadata: { name: 'visible' }, data: { a: 'b' } });
    await c.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'changes-reader' },
      rules: [{ apiGroups: ['history.ksim.io'], resources: ['changes'], verbs: ['list'] }],
    });
    await c.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'carol-changes' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'changes-reader' },
      subjects: [{ kind: 'User', name: 'carol', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    await c.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/hist/roles', {
      metadata: { name: 'cm-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    });
    await c.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/hist/rolebindings', {
      metadata: { name: 'carol-cm' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'User', name: 'carol', apiGroup: 'rbac.authorization.k8s.io' }],
    });
    const res = await c.request('GET', `${H}/changes?from=${from}&objects=true`, undefined, { 'impersonate-user': 'carol' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const byName = Object.fromEntries(res.body.items.map((i: any) => [`${i.object.resource}/${i.object.name}`, i]));
    assert.ok(byName['secrets/token'], 'the Secret write is listed');
    assert.equal(byName['secrets/token'].body, undefined, 'without its body');
    assert.deepEqual(byName['configmaps/visible'].body.data, { a: 'b' });
    // The admin reads both.
    const admin = await c.request('GET', `${H}/changes?from=${from}&objects=true`);
    assert.ok(admin.body.items.find((i: any) => i.object.name === 'token').body);
  });
});
