// The real kubectl v1.35 against a small stub server that serves legacy
// discovery (from apiserver/discovery.ts), /version and the OpenAPI
// documents, and records the writes kubectl sends: explain reads the v3
// schemas, strict validation finds fieldValidation on the PATCH operation
// and leaves unknown fields to the server, client-side apply computes its
// strategic merge patch from the v3 schemas, and the items of a kind: List
// are validated on the client against the protobuf v2 document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import YAML from 'yaml';
import { kubectl, tempDir, writeKubeconfig, type ToolResult } from '../../test/helpers/index.ts';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from '../discovery.ts';
import { versionInfo } from '../version.ts';
import { handleOpenApi } from './handler.ts';
import { openapiV3Served } from './v3.ts';

interface Recorded {
  method: string;
  url: string;
  contentType: string;
  body: string;
}

let server: http.Server;
let kubeconfig: string;
let dir: string;
const requests: Recorded[] = [];
/** Objects the stub's GET returns, by request path. */
const existing = new Map<string, object>();
/** Which documents the stub serves; narrowed to see what kubectl does without v3 (the control cases). */
let serveOpenApi: 'all' | 'v2' | 'none' = 'all';

function json(res: http.ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const notFound = (name = '') => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `"${name}" not found`,
  reason: 'NotFound',
  code: 404,
});

function route(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const url = new URL(req.url ?? '/', 'http://stub');
  requests.push({ method: req.method ?? '', url: req.url ?? '', contentType: String(req.headers['content-type'] ?? ''), body });
  const openapiAllowed = serveOpenApi === 'all' || (serveOpenApi === 'v2' && url.pathname === '/openapi/v2');
  if (openapiAllowed && handleOpenApi(req, res, url)) return;
  const parts = url.pathname.split('/').filter(Boolean);
  if (url.pathname === '/version') return json(res, 200, versionInfo());
  if (url.pathname.startsWith('/openapi/') || url.pathname.startsWith('/swagger')) return json(res, 404, notFound());
  if (req.method === 'GET') {
    if (url.pathname === '/api') return json(res, 200, apiVersions(`127.0.0.1:${(server.address() as AddressInfo).port}`));
    if (url.pathname === '/apis') return json(res, 200, apiGroupList());
    if (parts[0] === 'api' && parts.length === 2) return json(res, 200, apiResourceList('', parts[1]) ?? notFound());
    if (parts[0] === 'apis' && parts.length === 2) return json(res, 200, apiGroup(parts[1]) ?? notFound());
    if (parts[0] === 'apis' && parts.length === 3) return json(res, 200, apiResourceList(parts[1], parts[2]) ?? notFound());
    const obj = existing.get(url.pathname);
    return obj ? json(res, 200, obj) : json(res, 404, notFound(parts.at(-1)));
  }
  // Writes: answer with the object sent (a create), or the stored one (a patch).
  if (req.method === 'POST') {
    const obj = JSON.parse(body);
    obj.metadata = {
      namespace: 'default',
      uid: '00000000-0000-0000-0000-000000000001',
      resourceVersion: '1',
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...obj.metadata,
    };
    return json(res, 201, obj);
  }
  if (req.method === 'PATCH') return json(res, 200, existing.get(url.pathname) ?? notFound());
  json(res, 405, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'MethodNotAllowed', code: 405 });
}

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => route(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  dir = await tempDir('openapi-kubectl');
  kubeconfig = await writeKubeconfig(join(dir, 'kubeconfig'), `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
after(
  () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

const k = (args: string[], input?: string) => kubectl(args, { kubeconfig, input });
function ok(r: ToolResult): string {
  assert.equal(r.code, 0, `kubectl failed (${r.code}):\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}
/** The requests made while `run` ran. */
async function recording(run: () => Promise<ToolResult>): Promise<{ result: ToolResult; seen: Recorded[] }> {
  const start = requests.length;
  const result = await run();
  return { result, seen: requests.slice(start) };
}

const deployment = (extraSpec = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: d1
spec:
  replicas: 2
  selector: {matchLabels: {app: d1}}
  template:
    metadata: {labels: {app: d1}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80}]${extraSpec}
`;

describe('kubectl against the served OpenAPI', () => {
  test('explain deployment.spec.strategy prints the field list', async () => {
    const out = ok(await k(['explain', 'deployment.spec.strategy']));
    assert.match(out, /^GROUP:\s+apps$/m);
    assert.match(out, /^KIND:\s+Deployment$/m);
    assert.match(out, /^VERSION:\s+v1$/m);
    assert.match(out, /^FIELD: strategy <DeploymentStrategy>$/m);
    assert.match(out, /^FIELDS:$/m);
    assert.match(out, /^\s+rollingUpdate\t<RollingUpdateDeployment>$/m);
    assert.match(out, /^\s+type\t<string>$/m);
    assert.match(out, /enum: Recreate, RollingUpdate/);
  });

  test('explain follows refs through arrays and shows required fields and formats', async () => {
    const out = ok(await k(['explain', 'pods.spec.containers.ports']));
    assert.match(out, /^KIND:\s+Pod$/m);
    assert.match(out, /^FIELD: ports <\[\]ContainerPort>$/m);
    assert.match(out, /^\s+containerPort\t<integer> -required-$/m);
    assert.match(out, /^\s+protocol\t<string>$/m);
    const meta = ok(await k(['explain', 'configmap.metadata.creationTimestamp']));
    assert.match(meta, /^FIELD: creationTimestamp <string>$/m);
    const top = ok(await k(['explain', 'rolebinding']));
    assert.match(top, /^GROUP:\s+rbac\.authorization\.k8s\.io$/m);
    assert.match(top, /^\s+roleRef\t<RoleRef> -required-$/m);
  });

  test('create --dry-run=server sends fieldValidation=Strict and no client-side validation', async () => {
    const file = join(dir, 'd1.yaml');
    await writeFile(file, deployment());
    const { result, seen } = await recording(() => k(['create', '-f', file, '--dry-run=server']));
    assert.match(ok(result), /^deployment\.apps\/d1 created \(server dry run\)$/m);
    const post = seen.find((r) => r.method === 'POST');
    assert.ok(post, 'kubectl sent no POST');
    const url = new URL(post.url, 'http://stub');
    assert.equal(url.pathname, '/apis/apps/v1/namespaces/default/deployments');
    assert.equal(url.searchParams.get('fieldValidation'), 'Strict');
    assert.equal(url.searchParams.get('dryRun'), 'All');
    assert.equal(url.searchParams.get('fieldManager'), 'kubectl-create');
    // kubectl keeps the document in its disk cache under the content hash: an earlier run may have fetched it.
    const docUrl = `/openapi/v3/apis/apps/v1?hash=${openapiV3Served('apis/apps/v1')!.hash}`;
    assert.ok(
      requests.some((r) => r.url === docUrl || r.url.startsWith(`${docUrl}&`)),
      'kubectl never read the apps/v1 document',
    );
    assert.ok(
      seen.some((r) => r.url.startsWith('/openapi/v3?')),
      'kubectl did not read the /openapi/v3 index',
    );
    assert.ok(!seen.some((r) => r.url.startsWith('/openapi/v2')), 'kubectl fell back to /openapi/v2');
  });

  test('an unknown field goes to the server instead of failing in kubectl', async () => {
    const file = join(dir, 'unknown.yaml');
    await writeFile(file, deployment('\n  bogusField: 1'));
    const { result, seen } = await recording(() => k(['create', '-f', file]));
    ok(result);
    const post = seen.find((r) => r.method === 'POST');
    assert.ok(post, 'kubectl sent no POST');
    assert.equal(new URL(post.url, 'http://stub').searchParams.get('fieldValidation'), 'Strict');
    assert.equal(JSON.parse(post.body).spec.bogusField, 1);
  });

  test('a kind: List is validated on the client with the protobuf /openapi/v2', async () => {
    // kubectl cannot ask the server to validate a List, so it validates each item against the v2 document.
    const item = (name: string, extra = '') => `- apiVersion: v1
  kind: ConfigMap
  metadata: {name: ${name}}
  data: {a: b}${extra}
`;
    const good = join(dir, 'list.yaml');
    await writeFile(good, `apiVersion: v1\nkind: List\nitems:\n${item('c1')}`);
    const created = await recording(() => k(['create', '-f', good]));
    assert.match(ok(created.result), /^configmap\/c1 created$/m);
    const v2 = created.seen.find((r) => r.url.startsWith('/openapi/v2'));
    assert.ok(v2, 'kubectl did not read /openapi/v2');
    assert.ok(created.seen.some((r) => r.method === 'POST' && r.url.startsWith('/api/v1/namespaces/default/configmaps')));

    const bad = join(dir, 'bad-list.yaml');
    const container = '{name: c, image: x, ports: [{containerPort: "80"}]}';
    await writeFile(
      bad,
      `apiVersion: v1\nkind: List\nitems:\n${item('c2', '\n  bogus: 1')}- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: d2}
  spec:
    selector: {matchLabels: {a: b}}
    template: {metadata: {labels: {a: b}}, spec: {containers: [${container}]}}
`,
    );
    const refused = await recording(() => k(['create', '-f', bad]));
    assert.notEqual(refused.result.code, 0);
    assert.match(refused.result.stderr, /ValidationError\(ConfigMap\): unknown field "bogus" in io\.k8s\.api\.core\.v1\.ConfigMap/);
    assert.match(
      refused.result.stderr,
      /ValidationError\(Deployment\.spec\.template\.spec\.containers\[0\]\.ports\[0\]\.containerPort\): invalid type for io\.k8s\.api\.core\.v1\.ContainerPort\.containerPort: got "string", expected "integer"/,
    );
    assert.ok(!refused.seen.some((r) => r.method === 'POST'), 'kubectl sent an invalid item');
  });

  test('without v3 kubectl reads fieldValidation support from the protobuf v2; without either it gives up', async () => {
    const file = join(dir, 'control.yaml');
    await writeFile(file, deployment('\n  bogusField: 1'));
    try {
      serveOpenApi = 'v2';
      const v2Only = await recording(() => k(['create', '-f', file]));
      ok(v2Only.result);
      assert.ok(
        v2Only.seen.some((r) => r.url.startsWith('/openapi/v2')),
        'kubectl did not read /openapi/v2',
      );
      const post = v2Only.seen.find((r) => r.method === 'POST');
      assert.ok(post, 'kubectl sent no POST');
      assert.equal(new URL(post.url, 'http://stub').searchParams.get('fieldValidation'), 'Strict');

      serveOpenApi = 'none';
      const neither = await recording(() => k(['create', '-f', file]));
      assert.notEqual(neither.result.code, 0);
      assert.match(neither.result.stderr, /failed to download openapi: the server could not find the requested resource/);
      assert.ok(!neither.seen.some((r) => r.method === 'POST'));
    } finally {
      serveOpenApi = 'all';
    }
  });

  test('client-side apply computes a strategic merge patch from the v3 schemas', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments/d1';
    const file = join(dir, 'apply.yaml');
    const lastApplied = YAML.parse(deployment());
    lastApplied.metadata.namespace = 'default';
    const current = structuredClone(lastApplied);
    current.metadata = {
      name: 'd1',
      namespace: 'default',
      uid: 'u1',
      resourceVersion: '5',
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(lastApplied) },
    };
    existing.set(path, current);
    await writeFile(file, deployment().replace('nginx:1.27', 'nginx:1.28'));
    const { result, seen } = await recording(() => k(['apply', '-f', file]));
    assert.match(ok(result), /^deployment\.apps\/d1 configured$/m);
    const patch = seen.find((r) => r.method === 'PATCH');
    assert.ok(patch, 'kubectl sent no PATCH');
    assert.equal(patch.contentType, 'application/strategic-merge-patch+json');
    const body = JSON.parse(patch.body);
    // The merge key of containers (name) comes from the schema: the element is addressed by it.
    assert.deepEqual(body.spec.template.spec['$setElementOrder/containers'], [{ name: 'web' }]);
    assert.deepEqual(body.spec.template.spec.containers, [{ image: 'nginx:1.28', name: 'web' }]);
    assert.ok(!seen.some((r) => r.url.startsWith('/openapi/v2')), 'kubectl fell back to /openapi/v2');
  });
});
