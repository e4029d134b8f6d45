// The HTTP side of /openapi/v2 and /openapi/v3, as kube-openapi's handlers
// behave: Accept negotiation, ETag and If-None-Match, immutable caching
// under the current ?hash=, a redirect for a stale hash, gzip, and Status
// errors for unknown group-versions and unacceptable media types.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { handleOpenApi, negotiate, parseAccept } from './handler.ts';
import { openapiV2ProtobufServed, openapiV2Served } from './v2.ts';
import { openapiV3IndexServed, openapiV3Served } from './v3.ts';

const PB_V2 = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PB_V2_OLD = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

let server: http.Server;
let base: string;

before(async () => {
  server = http.createServer((req, res) => {
    if (!handleOpenApi(req, res, new URL(req.url ?? '/', 'http://x'))) {
      res.writeHead(418);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('content negotiation', () => {
  test('Accept clauses sort by q, then specificity, then order', () => {
    assert.deepEqual(
      parseAccept('text/*;q=0.5, application/json;q=0.9, */*;q=0.9, application/yaml').map((c) => `${c.type}/${c.subtype}`),
      ['application/yaml', 'application/json', '*/*', 'text/*'],
    );
    assert.deepEqual(
      parseAccept(undefined).map((c) => `${c.type}/${c.subtype}`),
      ['*/*'],
    );
    assert.deepEqual(parseAccept('application/json;q=0'), []);
  });

  test('kube-openapi picks the first clause it can serve', () => {
    const v2 = ['application/json', PB_V2, PB_V2_OLD];
    assert.equal(negotiate(PB_V2_OLD, v2, v2), PB_V2, 'the deprecated spelling is answered with the current one');
    assert.equal(negotiate(`${PB_V2}, application/json`, v2, v2), PB_V2);
    assert.equal(negotiate(`${PB_V2};q=0.5, application/json`, v2, v2), 'application/json');
    assert.equal(negotiate('*/*', v2, v2), 'application/json');
    assert.equal(negotiate('application/*', v2, v2), 'application/json');
    assert.equal(negotiate('text/html', v2, v2), undefined);
    assert.equal(negotiate(`${PB_V2}, application/json`, v2, ['application/json']), 'application/json', 'unserved types are passed over');
    assert.equal(negotiate(PB_V2, v2, ['application/json']), undefined);
  });
});

describe('/openapi/v3', () => {
  test('the index with an ETag of its content hash', async () => {
    const r = await get('/openapi/v3');
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers.etag, `"${openapiV3IndexServed().hash}"`);
    const index = JSON.parse(r.body.toString('utf8'));
    assert.match(index.paths['apis/apps/v1'].serverRelativeURL, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
    const again = await get('/openapi/v3', { 'If-None-Match': r.headers.etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal((await get('/openapi/v3/')).status, 200);
  });

  test('a group-version document is immutable under its hash', async () => {
    const served = openapiV3Served('apis/apps/v1')!;
    const r = await get(`/openapi/v3/apis/apps/v1?hash=${served.hash}&timeout=32s`, { Accept: 'application/json' });
    assert.equal(r.status, 200);
    assert.equal(r.headers['cache-control'], 'public, immutable');
    assert.ok(Date.parse(r.headers.expires!) > Date.now() + 300 * 24 * 3600 * 1000);
    assert.equal(r.headers.etag, `"${served.hash}"`);
    assert.equal(r.headers.vary, 'Accept');
    assert.deepEqual(r.body, served.json);
    const plain = await get('/openapi/v3/apis/apps/v1');
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['cache-control'], undefined);
    assert.equal((await get('/openapi/v3/apis/apps/v1', { 'If-None-Match': `"${served.hash}"` })).status, 304);
  });

  test('a stale hash redirects to the current one', async () => {
    const r = await get('/openapi/v3/api/v1?hash=0123');
    assert.equal(r.status, 301);
    assert.equal(r.headers.location, `/openapi/v3/api/v1?hash=${openapiV3Served('api/v1')!.hash}`);
  });

  test('gzip when the client takes it', async () => {
    const r = await get('/openapi/v3/api/v1', { 'Accept-Encoding': 'gzip' });
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(r.body), openapiV3Served('api/v1')!.json);
    assert.ok(r.body.length < openapiV3Served('api/v1')!.json.length / 5);
  });

  test('unknown group-versions, protobuf-only clients and writes get a Status', async () => {
    const missing = await get('/openapi/v3/apis/nope/v1');
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body.toString('utf8')).reason, 'NotFound');
    const pb = await get('/openapi/v3/api/v1', { Accept: 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf' });
    assert.equal(pb.status, 406);
    assert.equal(JSON.parse(pb.body.toString('utf8')).reason, 'NotAcceptable');
    const post = await get('/openapi/v3', {}, 'POST');
    assert.equal(post.status, 405);
  });
});

describe('/openapi/v2', () => {
  test('protobuf for kubectl, JSON for everyone else, one ETag', async () => {
    const pb = await get('/openapi/v2?timeout=32s', { Accept: PB_V2_OLD });
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], PB_V2);
    assert.deepEqual(pb.body, openapiV2ProtobufServed().body);
    const json = await get('/openapi/v2', { Accept: 'application/json' });
    assert.equal(json.headers['content-type'], 'application/json');
    assert.deepEqual(json.body, openapiV2Served().json);
    assert.equal(json.headers.etag, pb.headers.etag);
    assert.equal((await get('/openapi/v2')).headers['content-type'], 'application/json');
    assert.equal((await get('/openapi/v2', { Accept: PB_V2, 'If-None-Match': pb.headers.etag! })).status, 304);
    const html = await get('/openapi/v2', { Accept: 'text/html' });
    assert.equal(html.status, 406);
  });

  test('other paths are left to the caller', async () => {
    assert.equal((await get('/openapi')).status, 418);
    assert.equal((await get('/openapi/v4')).status, 418);
    assert.equal((await get('/api/v1')).status, 418);
  });
});
