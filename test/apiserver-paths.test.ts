// Request paths, names and generateName against a real apiserver, over raw
// HTTP on a TLS socket (as the admin): fetch and node:http would normalise `..`, `.` and `\` before they
// reach the server, and the point is what the server does with them. Every
// hostile path gets kube's Status, and nothing outside the path's own object
// is read or deleted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { api, openRaw, startApiserver, type Apiserver, type ApiClient } from './helpers/index.ts';

let server: Apiserver;
let c: ApiClient;

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: any;
}

function dechunk(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(at, eol).toString(), 16);
    if (!size) break;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Sends `target` byte for byte as the request line's target, and reads the whole answer. */
function raw(method: string, target: string, body?: unknown, extraHeaders = ''): Promise<RawResponse> {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const head =
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${/^Connection:/im.test(extraHeaders) ? '' : 'Connection: close\r\n'}Accept: application/json\r\n` +
    extraHeaders +
    (body === undefined
      ? ''
      : `Content-Type: ${method === 'PATCH' ? 'application/merge-patch+json' : 'application/json'}\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n`) +
    '\r\n';
  return new Promise((resolve, reject) => {
    const socket = openRaw(server);
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${method} ${target}`)));
    socket.on('data', (d) => chunks.push(d));
    let failed: Error | undefined;
    // A server that refuses a request early may reset the connection while the request is still being written.
    socket.on('error', (err) => (failed = err));
    socket.on('close', () => {
      if (failed && chunks.length === 0) return reject(failed);
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP answer to ${method} ${target}: ${JSON.stringify(all.toString())}`));
      const [statusLine, ...lines] = all.subarray(0, split).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
      let rest: Buffer = all.subarray(split + 4);
      if (/chunked/i.test(headers['transfer-encoding'] ?? '')) rest = dechunk(rest);
      const text = rest.toString('utf8');
      let parsed: any = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: the test looks at text
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, text, body: parsed });
    });
    // write, not end: a half-closed socket makes node's server drop a slow answer (Connection: close ends it).
    socket.write(head + payload);
  });
}

/** Asserts a metav1.Status answer with kube's code, reason and message. */
function assertStatus(res: RawResponse, code: number, reason: string, message: string | RegExp): void {
  assert.equal(res.status, code, res.text);
  assert.equal(res.body?.kind, 'Status', res.text);
  assert.equal(res.body.code, code);
  assert.equal(res.body.reason, reason);
  if (typeof message === 'string') assert.equal(res.body.message, message);
  else assert.match(res.body.message, message);
}

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
const CMS = '/api/v1/namespaces/default/configmaps';
/** Where the generateName tests create, away from what assertNothingTouched counts. */
const THIRD_CMS = '/api/v1/namespaces/third/configmaps';

async function names(path: string): Promise<string[]> {
  const res = await c.request('GET', path);
  assert.equal(res.status, 200);
  return res.body.items.map((i: any) => `${i.metadata.namespace ?? ''}/${i.metadata.name}`).sort();
}

before(async () => {
  server = await startApiserver({ extraArgs: ['--create-workers', '0'] });
  c = api(server);
  for (const ns of ['other', 'third'])
    assert.equal((await c.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  for (const n of ['keep-1', 'keep-2']) assert.equal((await c.request('POST', CMS, cm(n))).status, 201);
  for (const ns of ['other', 'third']) {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'hidden' }, stringData: { password: 'p' } };
    assert.equal((await c.request('POST', `/api/v1/namespaces/${ns}/secrets`, secret)).status, 201);
  }
});
after(() => server?.stop());

/** Everything the hostile requests below must leave alone. */
async function assertNothingTouched(): Promise<void> {
  assert.equal((await c.request('GET', '/api/v1/namespaces/default')).status, 200);
  assert.equal((await c.request('GET', '/api/v1/namespaces/default')).body.metadata.deletionTimestamp, undefined);
  assert.deepEqual(await names(CMS + '?labelSelector=!nosuch'), ['default/keep-1', 'default/keep-2']);
  const secrets = await names('/api/v1/secrets');
  for (const ns of ['other', 'third']) assert.ok(secrets.includes(`${ns}/hidden`), secrets.join(','));
}

describe('path segments are names, never paths', () => {
  for (const [seg, name, why] of [
    ['..', '..', "may not be '..'"],
    ['%2e%2e', '..', "may not be '..'"],
    ['%2E%2E', '..', "may not be '..'"],
    ['.', '.', "may not be '.'"],
    ['%2e', '.', "may not be '.'"],
    ['a%2Fb', 'a/b', "may not contain '/'"],
    ['%2F..%2F..%2Fother%2Fsecrets%2Fhidden', '/../../other/secrets/hidden', "may not contain '/'"],
    ['100%25', '100%', "may not contain '%'"],
    ['%2F%25', '/%', "may not contain '/';may not contain '%'"],
  ]) {
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
      test(`${method} ${CMS}/${seg} is refused as kube refuses the name ${JSON.stringify(name)}`, async () => {
        const body = method === 'PUT' ? cm(name) : method === 'PATCH' ? {} : undefined;
        assertStatus(
          await raw(method, `${CMS}/${seg}`, body),
          400,
          'BadRequest',
          `Name parameter invalid: ${JSON.stringify(name)}: ${why}`,
        );
      });
    }
  }

  test('a cluster-scoped name is checked too: DELETE /api/v1/namespaces/%2e%2e does not delete the cluster', async () => {
    assertStatus(await raw('DELETE', '/api/v1/namespaces/%2e%2e'), 400, 'BadRequest', `Name parameter invalid: "..": may not be '..'`);
    assertStatus(await raw('GET', '/api/v1/namespaces/%2e/status'), 400, 'BadRequest', `Name parameter invalid: ".": may not be '.'`);
    assertStatus(
      await raw('DELETE', '/api/v1/namespaces/default/configmaps/keep-1/..'),
      404,
      'NotFound',
      'the server could not find the requested resource',
    );
  });

  for (const [seg, ns, why] of [
    ['%2e%2e', '..', "may not be '..'"],
    ['..', '..', "may not be '..'"],
    ['.', '.', "may not be '.'"],
    ['default%2Fconfigmaps', 'default/configmaps', "may not contain '/'"],
  ]) {
    test(`a namespace segment ${seg} is refused before anything is read or deleted`, async () => {
      const message = `Namespace parameter invalid: ${JSON.stringify(ns)}: ${why}`;
      assertStatus(await raw('DELETE', `/api/v1/namespaces/${seg}/secrets`), 400, 'BadRequest', message);
      assertStatus(await raw('GET', `/api/v1/namespaces/${seg}/secrets`), 400, 'BadRequest', message);
      assertStatus(await raw('GET', `/api/v1/namespaces/${seg}/secrets/hidden`), 400, 'BadRequest', message);
      assertStatus(await raw('POST', `/api/v1/namespaces/${seg}/configmaps`, cm('x')), 400, 'BadRequest', message);
      assertStatus(await raw('GET', `/api/v1/watch/namespaces/${seg}/secrets`), 400, 'BadRequest', message);
    });
  }

  test('a WebSocket upgrade reads its path with the same parser', async () => {
    const upgrade =
      'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
    const res = await raw('GET', `${CMS}/%2e%2e?watch=1`, undefined, upgrade);
    assertStatus(res, 400, 'BadRequest', `Name parameter invalid: "..": may not be '..'`);
    assertStatus(
      await raw('GET', '/api/v1/namespaces/%2e%2e/secrets?watch=1', undefined, upgrade),
      400,
      'BadRequest',
      `Namespace parameter invalid: "..": may not be '..'`,
    );
    assertStatus(await raw('GET', `${CMS}/%zz?watch=1`, undefined, upgrade), 400, 'BadRequest', 'invalid URL escape "%zz"');
    assert.equal((await raw('GET', '//?watch=1', undefined, upgrade)).status, 404);
  });

  test('a backslash is a character of the name, not a separator', async () => {
    for (const seg of ['..\\..\\other\\secrets\\hidden', '..%5C..%5Cother%5Csecrets%5Chidden']) {
      const res = await raw('GET', `${CMS}/${seg}`);
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.reason, 'NotFound');
      assert.equal(res.body.details.kind, 'configmaps');
      assert.equal(res.body.details.name, '..\\..\\other\\secrets\\hidden');
      assert.doesNotMatch(res.text, /password|Secret/);
    }
    const del = await raw('DELETE', '/api/v1/namespaces/default/configmaps/..\\..\\other\\secrets\\hidden');
    assert.equal(del.status, 404, del.text);
  });

  test('nothing was deleted or read across namespaces', assertNothingTouched);
});

describe('malformed percent-encoding', () => {
  for (const [seg, bad] of [
    ['%zz', '%zz'],
    ['%E0%A4%A', '%A'],
    ['abc%', '%'],
    ['abc%4', '%4'],
  ]) {
    test(`${CMS}/${seg} is a 400 Status, not a 500`, async () => {
      for (const method of ['GET', 'DELETE'])
        assertStatus(await raw(method, `${CMS}/${seg}`), 400, 'BadRequest', `invalid URL escape "${bad}"`);
    });
  }
  test('in any segment: namespace, resource, group', async () => {
    assertStatus(await raw('GET', '/api/v1/namespaces/%zz/configmaps'), 400, 'BadRequest', 'invalid URL escape "%zz"');
    assertStatus(await raw('DELETE', '/api/v1/namespaces/default/%zz'), 400, 'BadRequest', 'invalid URL escape "%zz"');
    assertStatus(await raw('GET', '/apis/%zz/v1'), 400, 'BadRequest', 'invalid URL escape "%zz"');
  });
  test('a well-formed escape is decoded: %6D is m', async () => {
    const res = await raw('GET', '/api/v1/namespaces/def%61ult/config%6Daps/keep-%31');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.metadata.name, 'keep-1');
  });
  test('nothing was deleted', assertNothingTouched);
});

describe('group-versions ksim does not serve', () => {
  for (const path of [
    '/apis/autoscaling/v2beta2',
    '/apis/autoscaling/v2beta2/horizontalpodautoscalers',
    '/apis/nosuch.io/v1',
    '/apis/nosuch.io',
    '/apis/nosuch.io/v1/things',
    '/api/v2',
    '/api/v2/pods',
    '/apis/apps/v1/nosuch',
    '/api/v1/nosuch',
    '/api/v1/namespaces/default/nosuch',
  ]) {
    test(`${path} is kube's bare 404`, async () => {
      const res = await raw('GET', path);
      assertStatus(res, 404, 'NotFound', 'the server could not find the requested resource');
      assert.deepEqual(res.body.details, {});
    });
  }
});

describe('generateName', () => {
  test('a Namespace from generateName gets the generated name and its kubernetes.io/metadata.name label', async () => {
    const res = await raw('POST', '/api/v1/namespaces', { metadata: { generateName: 'test-' } });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.metadata.name, /^test-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.equal(res.body.metadata.labels['kubernetes.io/metadata.name'], res.body.metadata.name);
    const got = await c.request('GET', `/api/v1/namespaces/${res.body.metadata.name}`);
    assert.equal(got.body.metadata.labels['kubernetes.io/metadata.name'], res.body.metadata.name);
    // and it is a namespace one can create in
    assert.equal((await c.request('POST', `/api/v1/namespaces/${res.body.metadata.name}/configmaps`, cm('in-generated'))).status, 201);
  });

  const LABEL =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  const SUBDOMAIN =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const SUFFIX = '[bcdfghjklmnpqrstvwxz2456789]{5}';

  for (const [generateName, rule] of [
    ['-', LABEL],
    ['---', LABEL],
    ['Test-', LABEL],
  ]) {
    test(`Namespace generateName ${JSON.stringify(generateName)} is 422 on generateName and on the generated name`, async () => {
      const res = await raw('POST', '/api/v1/namespaces', { metadata: { generateName } });
      const g = esc(generateName);
      assertStatus(
        res,
        422,
        'Invalid',
        new RegExp(
          `^Namespace "(${g}${SUFFIX})" is invalid: \\[metadata.generateName: Invalid value: "${g}": ${esc(rule)}, metadata.name: Invalid value: "\\1": ${esc(rule)}\\]$`,
        ),
      );
      assert.deepEqual(
        res.body.details.causes.map((x: any) => x.field),
        ['metadata.generateName', 'metadata.name'],
      );
    });
  }

  test('ConfigMap generateName "-" is 422 with the subdomain rule', async () => {
    const res = await raw('POST', THIRD_CMS, { metadata: { generateName: '-' } });
    assertStatus(
      res,
      422,
      'Invalid',
      new RegExp(
        `^ConfigMap "(-${SUFFIX})" is invalid: \\[metadata.generateName: Invalid value: "-": ${esc(SUBDOMAIN)}, metadata.name: Invalid value: "\\1": ${esc(SUBDOMAIN)}\\]$`,
      ),
    );
  });

  test('a "a-" prefix is masked as kube masks it, and valid', async () => {
    const res = await raw('POST', THIRD_CMS, { metadata: { generateName: 'a-' } });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.metadata.name, new RegExp(`^a-${SUFFIX}$`));
  });

  test('a long prefix is cut to 58 characters so the name fits', async () => {
    const long = 'a'.repeat(70);
    const res = await raw('POST', THIRD_CMS, { metadata: { generateName: long } });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.metadata.name, new RegExp(`^a{58}${SUFFIX}$`));
    assert.equal(res.body.metadata.generateName, long);
    // A Namespace's prefix itself must be a label: 70 characters is too long, the generated name is not.
    const ns = await raw('POST', '/api/v1/namespaces', { metadata: { generateName: long } });
    assertStatus(
      ns,
      422,
      'Invalid',
      new RegExp(
        `^Namespace "a{58}${SUFFIX}" is invalid: metadata.generateName: Invalid value: "${long}": must be no more than 63 characters$`,
      ),
    );
    const huge = 'b'.repeat(300);
    const big = await raw('POST', THIRD_CMS, { metadata: { generateName: huge } });
    assertStatus(
      big,
      422,
      'Invalid',
      new RegExp(
        `^ConfigMap "b{58}${SUFFIX}" is invalid: metadata.generateName: Invalid value: "${huge}": must be no more than 253 characters$`,
      ),
    );
  });

  test('a Namespace with neither name nor generateName is refused for its name alone', async () => {
    assertStatus(
      await raw('POST', '/api/v1/namespaces', { metadata: {} }),
      422,
      'Invalid',
      'Namespace "" is invalid: metadata.name: Required value: name or generateName is required',
    );
  });

  test('a name wins over generateName', async () => {
    const res = await raw('POST', '/api/v1/namespaces', { metadata: { name: 'named', generateName: 'gen-' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.metadata.name, 'named');
    assert.equal(res.body.metadata.labels['kubernetes.io/metadata.name'], 'named');
  });
});

describe('other path edges', () => {
  test('an empty segment is not skipped: // does not turn a path into another', async () => {
    // `/namespaces//configmaps` would otherwise read as the Namespace "configmaps", or all namespaces.
    assertStatus(await raw('GET', '/api/v1/namespaces//configmaps'), 404, 'NotFound', 'the server could not find the requested resource');
    assertStatus(await raw('DELETE', '/api/v1/namespaces//secrets'), 404, 'NotFound', 'the server could not find the requested resource');
    assertStatus(
      await raw('DELETE', '/api/v1/namespaces/default//configmaps'),
      404,
      'NotFound',
      'the server could not find the requested resource',
    );
    assertStatus(await raw('DELETE', `${CMS}//keep-1`), 404, 'NotFound', 'the server could not find the requested resource');
  });

  test('a request target starting with // is a path, and the server survives it', async () => {
    for (const target of ['//', '//api/v1/namespaces/default/configmaps', '//127.0.0.1/api/v1/secrets']) {
      const res = await raw('GET', target);
      assert.equal(res.status, 404, `${target}: ${res.text}`);
    }
    assert.equal((await c.request('GET', '/api/v1/namespaces/default')).status, 200);
  });

  test('trailing slashes are trimmed, as kube splits a path', async () => {
    const list = await raw('GET', `${CMS}/`);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.kind, 'ConfigMapList');
    const one = await raw('GET', `${CMS}/keep-1/`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.metadata.name, 'keep-1');
  });

  for (const [seg, name] of [
    ['a%20b', 'a b'],
    ['%00', '\u0000'],
    ['keep-1%00', 'keep-1\u0000'],
    ['%01%7F', '\u0001\u007f'],
    ['%E2%98%83', '☃'],
  ]) {
    test(`a name ${JSON.stringify(name)} is just a name that does not exist`, async () => {
      const res = await raw('GET', `${CMS}/${seg}`);
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.reason, 'NotFound');
      assert.equal(res.body.details.name, name);
      assert.equal((await raw('DELETE', `${CMS}/${seg}`)).status, 404);
    });
  }

  test('invalid UTF-8 after decoding is a 400, never a 500', async () => {
    const res = await raw('GET', `${CMS}/%FF%FE`);
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.reason, 'BadRequest');
  });

  test('a very long name is a 404, a very long request line is refused without a 500', async () => {
    const long = await raw('GET', `${CMS}/${'x'.repeat(8000)}`);
    assert.equal(long.status, 404, long.text.slice(0, 200));
    // Go's http.Server reads up to 1 MiB of request line and headers (kube's MaxHeaderBytes), Node 16 KiB by default.
    const longer = await raw('GET', `${CMS}/${'x'.repeat(100_000)}`);
    assert.equal(longer.status, 404, longer.text.slice(0, 200));
    const tooLong = await raw('GET', `${CMS}/${'x'.repeat(1_100_000)}`);
    assert.ok(tooLong.status >= 400 && tooLong.status < 500, String(tooLong.status));
    assert.equal((await c.request('GET', '/api/v1/namespaces/default')).status, 200);
  });

  test('nothing was deleted', assertNothingTouched);
});
