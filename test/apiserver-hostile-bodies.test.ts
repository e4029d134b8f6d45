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
  c = api(server);
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
    const body = JSON.stringify({
      metadata: { name: 'warn-ctl', resourceVersion: created.body.metadata.resourceVersion },
      'a\n\u0085': 1,
      data: { k: 'v' },
    });
    const res = await c.request('PUT', `${CM}/warn-ctl`, body, { 'content-type': 'application/json' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(warnings(res.headers), '299 - "unknown field \\"a\\\\n\\\\u0085\\""');
    assert.deepEqual(res.body.data, { k: 'v' });
  });
});

/** kube's summarizeData: the first 30 bytes, as text for JSON objects and in hex otherwise. */
const summary = (body: string): string => {
  const b = Buffer.from(body);
  const head = b.subarray(0, 30);
  return (b[0] === 0x7b ? head.toString('utf8') : head.toString('hex')) + (b.length > 30 ? ' ...' : '');
};

const deepJson = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

async function configMap(name: string, data: Record<string, string> = { k: 'v' }): Promise<any> {
  const res = await c.request('POST', CM, { metadata: { name }, data });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** Asserts the stored ConfigMap is still exactly `before`. */
async function unchanged(before: any): Promise<void> {
  const now = await c.request('GET', `${CM}/${before.metadata.name}`);
  assert.equal(now.status, 200);
  assert.deepEqual(now.body, before);
}

describe("nesting past kube's 10,000 levels", () => {
  test('merge, strategic and JSON patches 100,000 levels deep are "invalid JSON patch", as json.Valid refuses them', async () => {
    const before = await configMap('deep-patch');
    const deep = '{"data":' + deepJson(100_000) + '}';
    for (const [type, body] of [
      ['application/merge-patch+json', deep],
      ['application/strategic-merge-patch+json', deep],
      ['application/json-patch+json', `[{"op":"add","path":"/data/x","value":${deepJson(100_000)}}]`],
    ]) {
      const res = await c.request('PATCH', `${CM}/deep-patch`, body, { 'content-type': type });
      assertStatus(res, 400, 'invalid JSON patch');
    }
    await unchanged(before);
  });

  test('a JSON body 100,000 levels deep is refused while its kind is read', async () => {
    const body = deepJson(100_000);
    assertStatus(
      await c.request('POST', CM, body, { 'content-type': 'application/json' }),
      400,
      `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth (${summary(body)})`,
    );
  });

  test("YAML bodies and apply patches nested past 10,000 levels are go-yaml's error", async () => {
    const body = 'metadata: {name: deep-yaml}\ndata: ' + '['.repeat(200_000);
    assertStatus(
      await c.request('POST', CM, body, { 'content-type': 'application/yaml' }),
      400,
      `the object provided is unrecognized (must be of type ConfigMap): yaml: line 2: exceeded max depth of 10000 (${summary(body)})`,
    );
    const apply = (text: string) =>
      c.request('PATCH', `${CM}/deep-apply?fieldManager=t`, text, { 'content-type': 'application/apply-patch+yaml' });
    assertStatus(
      await apply('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep-apply}\ndata: ' + '{'.repeat(20_000)),
      400,
      'error encoding patch: yaml: line 4: exceeded max depth of 10000',
    );
    assertStatus(
      await apply('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-apply"},"data":' + deepJson(20_000) + '}'),
      400,
      'error decoding patch: error converting YAML to JSON: yaml: exceeded max depth of 10000',
    );
    assert.equal((await c.request('GET', `${CM}/deep-apply`)).status, 404);
  });

  test('nesting within the limit but deeper than the walks can go is a 4xx, never a 500', async () => {
    const before = await configMap('deep-ok');
    for (const [type, body] of [
      ['application/merge-patch+json', `{"data":{"k":"w"},"x":${deepJson(9_000)}}`],
      ['application/strategic-merge-patch+json', `{"data":{"k":"w"},"x":${deepJson(9_000)}}`],
    ]) {
      const res = await c.request('PATCH', `${CM}/deep-ok`, body, { 'content-type': type });
      assert.ok(res.status < 500, `${type}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    const created = await c.request('POST', CM, `{"metadata":{"name":"deep-ok2"},"x":${deepJson(9_000)}}`, {
      'content-type': 'application/json',
    });
    assert.ok(created.status < 500, JSON.stringify(created.body));
    void before;
  });
});

describe('YAML aliases', () => {
  test("an anchor that contains its own alias is go-yaml's 400, and nothing is stored", async () => {
    const body = 'metadata:\n  name: cycle\ndata: &a\n  k: *a\n';
    assertStatus(
      await c.request('POST', CM, body, { 'content-type': 'application/yaml' }),
      400,
      `the object provided is unrecognized (must be of type ConfigMap): yaml: anchor 'a' value contains itself (${summary(body)})`,
    );
    assert.equal((await c.request('GET', `${CM}/cycle`)).status, 404);
    assertStatus(
      await c.request(
        'PATCH',
        `${CM}/cycle?fieldManager=t`,
        'apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: cycle\n  labels: *m\n',
        {
          'content-type': 'application/apply-patch+yaml',
        },
      ),
      400,
      "error encoding patch: yaml: anchor 'm' value contains itself",
    );
  });

  test('a billion laughs is refused quickly, without growing the server', async () => {
    const lines = ['metadata: {name: laughs}', 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const name = String.fromCharCode(97 + i);
      lines.push(
        `${name}: &${name} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    }
    const body = lines.join('\n') + '\n';
    const started = Date.now();
    assertStatus(
      await c.request('POST', CM, body, { 'content-type': 'application/yaml' }),
      400,
      `the object provided is unrecognized (must be of type ConfigMap): yaml: document contains excessive aliasing (${summary(body)})`,
    );
    assert.ok(Date.now() - started < 5000);
  });
});

describe('patches that grow objects', () => {
  test('JSON-patch copies stop at 3 MiB of copied bytes (422, as kube answers any JSON patch that does not apply)', async () => {
    const before = await configMap('copies', { k: 'x'.repeat(1000) });
    const ops = [{ op: 'add', path: '/metadata/annotations', value: { a: 'x'.repeat(1000) } }];
    // Each copy doubles a list: 2^40 entries if nothing stopped it.
    ops.push({ op: 'add', path: '/metadata/annotations/l', value: ['x'.repeat(100)] } as any);
    for (let i = 0; i < 40; i++) ops.push({ op: 'copy', from: '/metadata/annotations/l', path: '/metadata/annotations/l/-' } as any);
    const res = await c.request('PATCH', `${CM}/copies`, JSON.stringify(ops), { 'content-type': 'application/json-patch+json' });
    assertStatus(res, 422, 'the server rejected our request due to an error in our request');
    assert.equal(res.body.reason, 'Invalid');
    await unchanged(before);
  });

  test('more than 10,000 JSON-patch operations is a 413', async () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/data/k', value: 'v' }));
    await configMap('many-ops');
    assertStatus(
      await c.request('PATCH', `${CM}/many-ops`, JSON.stringify(ops), { 'content-type': 'application/json-patch+json' }),
      413,
      'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    );
  });

  test('a merge, strategic or JSON patch whose result passes the 3 MiB request limit is a 413, and nothing is stored', async () => {
    const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
    const arg = 'x'.repeat(900 * 1024);
    const deploy = {
      metadata: { name: 'grows' },
      spec: {
        selector: { matchLabels: { app: 'grows' } },
        template: { metadata: { labels: { app: 'grows' } }, spec: { containers: [{ name: 'c', image: 'i', args: [arg] }] } },
      },
    };
    const created = await c.request('POST', DEPLOY, deploy);
    assert.equal(created.status, 201, JSON.stringify(created.body).slice(0, 500));
    const big = 'y'.repeat(2500 * 1024);
    const args = '/spec/template/spec/containers/0/args';
    for (const [type, body] of [
      [
        'application/merge-patch+json',
        JSON.stringify({
          metadata: { labels: { a: 'b' } },
          spec: { template: { spec: { containers: [{ name: 'c', image: 'i', args: [arg, big] }] } } },
        }),
      ],
      [
        'application/strategic-merge-patch+json',
        JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'c', args: [arg, big] }] } } } }),
      ],
      ['application/json-patch+json', JSON.stringify([{ op: 'add', path: `${args}/-`, value: big }])],
      ['application/json-patch+json', JSON.stringify([1, 2, 3].map(() => ({ op: 'copy', from: `${args}/0`, path: `${args}/-` })))],
    ]) {
      const res = await c.request('PATCH', `${DEPLOY}/grows`, body, { 'content-type': type });
      assertStatus(res, 413, 'Request entity too large: limit is 3145728');
    }
    const now = await c.request('GET', `${DEPLOY}/grows`);
    assert.equal(now.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
  });

  test('a ConfigMap patched past its 1 MiB gets its validation error first, as in kube', async () => {
    await configMap('cm-grows', { a: 'x'.repeat(900 * 1024) });
    const res = await c.request('PATCH', `${CM}/cm-grows`, JSON.stringify({ data: { b: 'y'.repeat(2500 * 1024) } }), {
      'content-type': 'application/merge-patch+json',
    });
    assert.equal(res.status, 422, JSON.stringify(res.body).slice(0, 300));
  });
});

describe("malformed bodies of every kind are 4xx Statuses with kube's words", () => {
  const PATCH_TYPES = ['application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/json-patch+json'];
  const PB = 'application/vnd.kubernetes.protobuf';
  const hex = (s: string) => Buffer.from(s, 'hex');
  const unrecognized = (why: string, body: string) =>
    `the object provided is unrecognized (must be of type ConfigMap): ${why} (${body === '' ? '<empty>' : summary(body)})`;

  test("kube's exact messages", async () => {
    const before = await configMap('target');
    const truncated = '{"metadata":{"name":"t1"},"data":{"a":"1"}';
    const cases: [string, string, string, string, number, string][] = [
      [
        'POST',
        CM,
        '',
        'application/json',
        400,
        unrecognized("couldn't get version/kind; json parse error: unexpected end of JSON input", ''),
      ],
      [
        'POST',
        CM,
        truncated,
        'application/json',
        400,
        unrecognized("couldn't get version/kind; json parse error: unexpected end of JSON input", truncated),
      ],
      [
        'POST',
        CM,
        '{"a":1,}',
        'application/json',
        400,
        unrecognized(
          "couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string",
          '{"a":1,}',
        ),
      ],
      [
        'PUT',
        `${CM}/target`,
        '',
        'application/json',
        400,
        unrecognized("couldn't get version/kind; json parse error: unexpected end of JSON input", ''),
      ],
      [
        'POST',
        CM,
        '{"metadata":{"name":"x"}}',
        'text/plain',
        415,
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      ],
      ...PATCH_TYPES.map((t): [string, string, string, string, number, string] => [
        'PATCH',
        `${CM}/target`,
        '',
        t,
        400,
        'invalid JSON patch',
      ]),
      ...PATCH_TYPES.map((t): [string, string, string, string, number, string] => [
        'PATCH',
        `${CM}/target`,
        '{"data":',
        t,
        400,
        'invalid JSON patch',
      ]),
      [
        'PATCH',
        `${CM}/target`,
        '[]',
        'application/merge-patch+json',
        400,
        'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}',
      ],
      [
        'PATCH',
        `${CM}/target`,
        '{"data":{"k":1e400}}',
        'application/merge-patch+json',
        400,
        'error decoding patch: json: cannot unmarshal number 1e400 into Go value of type float64',
      ],
      [
        'PATCH',
        `${CM}/target`,
        '"x"',
        'application/strategic-merge-patch+json',
        400,
        'json: cannot unmarshal string into Go value of type map[string]interface {}',
      ],
      [
        'PATCH',
        `${CM}/target`,
        '{}',
        'application/json-patch+json',
        400,
        'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
      ],
      [
        'PATCH',
        `${CM}/target`,
        '[{"op":"add","path":1}]',
        'application/json-patch+json',
        400,
        'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string',
      ],
      [
        'PATCH',
        `${CM}/target`,
        '[{"op":"test","path":"/data/k","value":"no"}]',
        'application/json-patch+json',
        422,
        'the server rejected our request due to an error in our request',
      ],
      [
        'DELETE',
        `${CM}/target`,
        'x',
        'text/plain',
        415,
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      ],
      [
        'DELETE',
        `${CM}/target`,
        '{"propagationPolicy":"Sideways"}',
        'application/json',
        422,
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
      ],
    ];
    for (const [method, path, body, type, code, message] of cases) {
      const res = await c.request(method, path, body, { 'content-type': type });
      assertStatus(res, code, message);
    }
    await unchanged(before);
    // A null JSON or strategic patch is an empty one: nothing changes, and the answer is 200.
    for (const type of ['application/json-patch+json', 'application/strategic-merge-patch+json']) {
      const res = await c.request('PATCH', `${CM}/target`, 'null', { 'content-type': type });
      assert.equal(res.status, 200, `${type}: ${JSON.stringify(res.body)}`);
    }
    await unchanged(before);
  });

  test('non-objects, bad bytes, bad protobuf and broken patches never answer 5xx', async () => {
    const before = await configMap('sturdy');
    const bodies: [string, string, string | Buffer, string][] = [];
    for (const b of [
      '[]',
      'null',
      '"x"',
      '1e400',
      '123456789012345678901234567890',
      '{"metadata":{"name":"n","generation":1e400}}',
      '{"data":{"a":"1","a":"2"}}',
      '\ufeff{}',
    ]) {
      bodies.push(['POST', CM, b, 'application/json'], ['PUT', `${CM}/sturdy`, b, 'application/json']);
    }
    bodies.push(['POST', CM, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'application/json']);
    for (const y of ['a: &a [*a]', 'metadata: &m {name: *m}', '- a', 'a: [', '---\na: 1\n---\nb: 2\n', 'a: *x', '!!binary x', '? [a]\n: b'])
      bodies.push(['POST', CM, y, 'application/yaml']);
    for (const p of [
      '6b387300',
      '6b3873000aff',
      '6b3873000affffffffffffffffffff01',
      '6b3873000f',
      '6b3873000a0a0a02763112094e6f7468696e67',
      '00000000',
      '6b3873001202ffff',
    ]) {
      bodies.push(['POST', CM, hex(p), PB], ['DELETE', `${CM}/sturdy`, hex(p), PB]);
    }
    for (const t of PATCH_TYPES) {
      for (const p of [
        'null',
        '[]',
        '{}',
        '"x"',
        '1',
        '[null]',
        '[{"op":"copy","from":"/data","path":"/data/x"}]',
        '[{"op":"move","from":"/metadata","path":"/metadata/x"}]',
        '{"data":{"$patch":"delete"}}',
        '{"$patch":"replace"}',
        '{"metadata":null}',
      ]) {
        bodies.push(['PATCH', `${CM}/sturdy`, p, t]);
      }
    }
    for (const a of ['[]', '"x"', 'a: [', 'kind: Pod', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}'])
      bodies.push(['PATCH', `${CM}/sturdy?fieldManager=t`, a, 'application/apply-patch+yaml']);
    for (const [method, path, body, type] of bodies) {
      const res = await c.request(method, path, body, { 'content-type': type });
      const what = `${method} ${type} ${typeof body === 'string' ? JSON.stringify(body) : body.toString('hex')}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
      assert.ok(res.status < 500, what);
      if (res.status >= 400) assert.equal(res.body.kind, 'Status', what);
    }
    // Some of the patches above are valid (a strategic $patch: delete empties data): the server still answers as before.
    assert.equal((await c.request('GET', `${CM}/sturdy`)).body.metadata.uid, before.metadata.uid);
    assert.equal((await c.request('GET', '/readyz')).status, 200);
  });
});
