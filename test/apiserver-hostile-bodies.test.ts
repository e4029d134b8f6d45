// Hostile request bodies against a real apiserver: each answer is the
// metav1.Status kube-apiserver gives (code and message), never a 5xx, and a
// request that fails stores nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, startApiserver, type Apiserver, type ApiClient } from './helpers/index.ts';

let server: Apiserver;
let c: ApiClient;

before(async () => {
  server = await startApiserver();
  c = api(server.url);
});
after(() => server?.stop());

const CM = '/api/v1/namespaces/default/configmaps';

/** Asserts a failure Status with kube's code and message. */
function assertStatus(res: { status: number; body: any }, code: number, message: string | RegExp): void {
  assert.equal(res.status, code, JSON.stringify(res.body));
  assert.equal(res.body.kind, 'Status', JSON.stringify(res.body));
  assert.equal(res.body.code, code);
  if (typeof message === 'string') assert.equal(res.body.message, message);
  else assert.match(res.body.message, message);
}

/** The Warning header values of a response, decoded from the UTF-8 bytes Go writes. */
function warnings(headers: Record<string, string>): string {
  return Buffer.from(headers['warning'] ?? '', 'latin1').toString('utf8');
}

describe('warnings that carry client text', () => {
  test('an unknown field named with characters above U+00FF is warned about in UTF-8, and the create answers 201', async () => {
    const body = '{"metadata":{"name":"warn-utf8"},"data":{},"ünknown€":1}';
    const res = await c.request('POST', CM, body, { 'content-type': 'application/json' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(warnings(res.headers), '299 - "unknown field \\"ünknown€\\""');
    const got = await c.request('GET', `${CM}/warn-utf8`);
    assert.equal(got.status, 200);
  });

  test('an unknown field named with a control character is warned about in the %q form of Go, and the update answers 200', async () => {
    const created = await c.request('POST', CM, { metadata: { name: 'warn-ctl' } });
    assert.equal(created.status, 201);
    const body = JSON.stringify({ metadata: { name: 'warn-ctl', resourceVersion: created.body.metadata.resourceVersion }, 'a\n\u0085': 1, data: { k: 'v' } });
    const res = await c.request('PUT', `${CM}/warn-ctl`, body, { 'content-type': 'application/json' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(warnings(res.headers), '299 - "unknown field \\"a\\\\n\\\\u0085\\""');
    assert.deepEqual(res.body.data, { k: 'v' });
  });
});
