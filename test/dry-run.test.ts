// dryRun=All on every kind of write, against a bare apiserver (no component
// writes, so the store's resourceVersion moves only when a test writes): the
// answer is what a real write would return, with defaults and admission
// applied, but nothing is stored, no watch event is sent and no
// resourceVersion is consumed. Also `kubectl create --dry-run=server -o yaml`
// and `kubectl diff` (exit 1 with a difference, 0 without) with the real kubectl.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { api, kubectl, startApiserver, tempDir, type ApiClient, type Apiserver, type WatchStream } from './helpers/index.ts';

let server: Apiserver;
let c: ApiClient;

before(async () => {
  server = await startApiserver();
  c = api(server);
});
after(() => server?.stop());

const NS = 'default';
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

/** The store's current resourceVersion, as a list of a kind that nothing else writes reports it. */
async function storeRevision(): Promise<string> {
  const res = await c.request('GET', `/api/v1/namespaces/${NS}/configmaps?limit=1`);
  assert.equal(res.status, 200);
  return res.body.metadata.resourceVersion as string;
}

/**
 * Runs `write` (a dry run) and checks that it answered `status`, left the
 * resourceVersion where it was and sent no event to a watch opened before it.
 */
async function dryRunLeavesNoTrace(
  label: string,
  watchPath: string,
  write: () => Promise<{ status: number; body: any }>,
  status: number,
): Promise<any> {
  const rv = await storeRevision();
  const w: WatchStream = c.watch(`${watchPath}?resourceVersion=${rv}`);
  await w.ready;
  try {
    const res = await write();
    assert.equal(res.status, status, `${label}: ${JSON.stringify(res.body)}`);
    assert.equal(await storeRevision(), rv, `${label}: the dry run consumed a resourceVersion`);
    // A real write after the dry run: the first event the watch sees must be that one.
    const marker = await c.request('POST', `/api/v1/namespaces/${NS}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'marker-' },
    });
    assert.equal(marker.status, 201);
    if (watchPath.includes('/configmaps')) {
      const ev = await w.next();
      assert.equal(ev?.object.metadata.name, marker.body.metadata.name, `${label}: the dry run sent a watch event`);
    } else {
      // The marker was committed after the dry run; by then any event of the dry run would have been sent.
      await assert.rejects(w.next(500), /no watch event/, `${label}: the dry run sent a watch event`);
    }
    return res.body;
  } finally {
    w.close();
  }
}

test('create, update, patch, apply, delete and deletecollection with dryRun=All store nothing and consume no resourceVersion', async () => {
  const path = `/apis/apps/v1/namespaces/${NS}/deployments`;
  const created = await dryRunLeavesNoTrace('create', path, () => c.request('POST', `${path}?dryRun=All`, deployment('dry')), 201);
  // The answer carries what a real create would: defaults, a uid and a creationTimestamp, but no resourceVersion.
  assert.equal(created.spec.strategy.type, 'RollingUpdate');
  assert.equal(created.spec.revisionHistoryLimit, 10);
  assert.equal(created.spec.template.spec.containers[0].imagePullPolicy, 'Always');
  assert.ok(created.metadata.uid);
  assert.equal(created.metadata.resourceVersion, undefined);
  assert.equal((await c.request('GET', `${path}/dry`)).status, 404);

  const real = await c.request('POST', path, deployment('wet'));
  assert.equal(real.status, 201);
  const updated = { ...real.body, spec: { ...real.body.spec, replicas: 5 } };
  const put = await dryRunLeavesNoTrace('update', path, () => c.request('PUT', `${path}/wet?dryRun=All`, updated), 200);
  assert.equal(put.spec.replicas, 5);
  const merge = await dryRunLeavesNoTrace(
    'merge patch',
    path,
    () => c.request('PATCH', `${path}/wet?dryRun=All`, { spec: { replicas: 7 } }, { 'content-type': 'application/merge-patch+json' }),
    200,
  );
  assert.equal(merge.spec.replicas, 7);
  const applied = await dryRunLeavesNoTrace(
    'apply',
    path,
    () =>
      c.request('PATCH', `${path}/wet?dryRun=All&fieldManager=tester&force=true`, JSON.stringify(deployment('wet', 9)), {
        'content-type': 'application/apply-patch+yaml',
      }),
    200,
  );
  assert.equal(applied.spec.replicas, 9);
  const scaled = await dryRunLeavesNoTrace(
    'scale subresource',
    path,
    () => c.request('PATCH', `${path}/wet/scale?dryRun=All`, { spec: { replicas: 3 } }, { 'content-type': 'application/merge-patch+json' }),
    200,
  );
  assert.equal(scaled.kind, 'Scale');
  assert.equal(scaled.spec.replicas, 3);
  const status = await dryRunLeavesNoTrace(
    'status subresource',
    path,
    () =>
      c.request(
        'PATCH',
        `${path}/wet/status?dryRun=All`,
        { status: { observedGeneration: 42 } },
        {
          'content-type': 'application/merge-patch+json',
        },
      ),
    200,
  );
  assert.equal(status.status.observedGeneration, 42);
  const deleted = await dryRunLeavesNoTrace('delete', path, () => c.request('DELETE', `${path}/wet?dryRun=All`), 200);
  assert.equal(deleted.metadata.name, 'wet');
  const collection = await dryRunLeavesNoTrace(
    'deletecollection',
    path,
    () => c.request('DELETE', `${path}?dryRun=All&labelSelector=app%3Dwet`),
    200,
  );
  assert.equal(collection.kind, 'DeploymentList');
  assert.deepEqual(
    collection.items.map((d: any) => d.metadata.name),
    ['wet'],
  );
  const after = await c.request('GET', `${path}/wet`);
  assert.equal(after.status, 200);
  assert.equal(after.body.spec.replicas, 1);
  assert.equal(after.body.metadata.resourceVersion, real.body.metadata.resourceVersion);
});

test('a dry run is validated and admitted like the real write', async () => {
  const bad = deployment('bad');
  bad.spec.template.metadata.labels = { app: 'other' };
  const res = await c.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments?dryRun=All`, bad);
  assert.equal(res.status, 422);
  assert.equal(res.body.reason, 'Invalid');
  assert.match(res.body.message, /spec\.template\.metadata\.labels: Invalid value: .*`selector` does not match template `labels`/);
  const missingNs = await c.request('POST', `/api/v1/namespaces/nowhere/configmaps?dryRun=All`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x' },
  });
  assert.equal(missingNs.status, 404);
  assert.equal(missingNs.body.message, 'namespaces "nowhere" not found');
  const unsupported = await c.request('POST', `/api/v1/namespaces/${NS}/configmaps?dryRun=Some`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x' },
  });
  assert.equal(unsupported.status, 400);
  assert.match(unsupported.body.message, /dryRun: Unsupported value: "Some": supported values: "All"/);
});

test('kubectl create --dry-run=server -o yaml shows the defaults; kubectl diff exits 1 on a difference and 0 without', async () => {
  const kubeconfig = server.kubeconfig;
  const shown = await kubectl(['create', 'deployment', 'shown', '--image=nginx', '--dry-run=server', '-o', 'yaml'], { kubeconfig });
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /progressDeadlineSeconds: 600/);
  assert.match(shown.stdout, /terminationGracePeriodSeconds: 30/);
  assert.match(shown.stdout, /dnsPolicy: ClusterFirst/);
  assert.match(shown.stdout, /maxSurge: 25%/);
  assert.equal((await kubectl(['get', 'deployment', 'shown'], { kubeconfig })).code, 1);

  const dir = await tempDir('ksim-diff-');
  const file = join(dir, 'cm.yaml');
  await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: diffed\ndata:\n  color: blue\n');
  // Nothing there yet: the whole object is the difference.
  const first = await kubectl(['diff', '-f', file], { kubeconfig });
  assert.equal(first.code, 1, first.stderr);
  assert.match(first.stdout, /\+ {2}color: blue/);
  assert.equal((await kubectl(['apply', '-f', file], { kubeconfig })).code, 0);
  const same = await kubectl(['diff', '-f', file], { kubeconfig });
  assert.equal(same.code, 0, `${same.stdout}${same.stderr}`);
  assert.equal(same.stdout, '');
  await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: diffed\ndata:\n  color: green\n');
  const changed = await kubectl(['diff', '-f', file], { kubeconfig });
  assert.equal(changed.code, 1, changed.stderr);
  assert.match(changed.stdout, /- {2}color: blue/);
  assert.match(changed.stdout, /\+ {2}color: green/);
  // diff is a dry run: the stored object is unchanged.
  const stored = await kubectl(['get', 'configmap', 'diffed', '-o', 'jsonpath={.data.color}'], { kubeconfig });
  assert.equal(stored.stdout, 'blue');
});
