// A create whose object carries metadata.resourceVersion, answered as
// kube-apiserver answers it: its storage refuses the object last, after
// decoding, validation and admission, with an error that is not a Status,
// so the client gets a 500 with no reason and the storage's message. A dry
// run never reaches the storage and succeeds. Checked for kinds prepared on
// a create worker (ConfigMap, Pod) and on the main thread (Namespace, whose
// admission reads the store).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, startApiserver, type ApiClient, type Apiserver } from './helpers/index.ts';

let server: Apiserver;
let c: ApiClient;
before(async () => {
  server = await startApiserver();
  c = api(server);
});
after(() => server?.stop());

const MESSAGE = 'resourceVersion should not be set on objects to be created';
const cases: [string, string, (name: string) => object][] = [
  [
    'configmap',
    '/api/v1/namespaces/default/configmaps',
    (name) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: '5' } }),
  ],
  [
    'pod',
    '/api/v1/namespaces/default/pods',
    (name) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, resourceVersion: '5' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    }),
  ],
  ['namespace', '/api/v1/namespaces', (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, resourceVersion: '5' } })],
];

test('a create carrying a resourceVersion is a 500 without a reason, after validation; a dry run of it succeeds', async () => {
  for (const [kind, path, make] of cases) {
    const res = await c.request('POST', path, make(`rv-${kind}`));
    assert.equal(res.status, 500, `${kind}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.kind, 'Status');
    assert.equal(res.body.message, MESSAGE, kind);
    assert.equal(res.body.reason, undefined, kind);
    assert.equal((await c.request('GET', `${path}/rv-${kind}`)).status, 404, `${kind} was stored`);
    const dry = await c.request('POST', `${path}?dryRun=All`, make(`rv-${kind}`));
    assert.equal(dry.status, 201, `${kind} dry run: ${JSON.stringify(dry.body)}`);
  }
  // Validation comes first: an invalid name is the 422, not the storage's refusal.
  const invalid = await c.request('POST', '/api/v1/namespaces/default/configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'Not_Valid', resourceVersion: '5' },
  });
  assert.equal(invalid.status, 422);
  assert.equal(invalid.body.reason, 'Invalid');
});
