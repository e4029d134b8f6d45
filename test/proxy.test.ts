// The proxy subresources end to end on `ksim up` with the real kubectl:
// `kubectl proxy` to services/NAME:PORT/proxy/ answers with the simulated
// nginx's page, pods/proxy and nodes/proxy (`kubectl get --raw`), kube's
// errors for a Service without endpoints, a port no Service has and a Pod
// port nothing listens on, the trailing-slash redirect, and discovery.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';
import { freePort } from './helpers/free-port.ts';
import { kubectlBin } from './helpers/paths.ts';
import { spawnTracked } from './helpers/processes.ts';
import { homeFor } from './helpers/kubectl.ts';

let c: Cluster;
let pod = '';
before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
  ok(
    await c.k(
      ['apply', '-f', '-'],
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports: [{containerPort: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: empty}
spec:
  selector: {app: nothing}
  ports: [{port: 80}]
`,
    ),
  );
  ok(await c.k(['rollout', 'status', 'deploy/web', '--timeout=60s']));
  await eventually('endpoints', async () => (await c.jsonpath(['get', 'endpoints', 'web'], '{.subsets[0].addresses[0].ip}')) !== '');
  pod = (await c.jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[0].metadata.name}')).trim();
});
after(() => c?.stop());

function get(port: number, path: string): Promise<{ status: number; body: string; location?: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, location: res.headers.location }));
      })
      .on('error', reject);
  });
}

describe('proxy subresources', () => {
  test('kubectl proxy reaches services/web:80/proxy/ and the nginx page', async () => {
    const port = await freePort();
    const home = await homeFor(c.kubeconfig);
    const p = await spawnTracked(kubectlBin, ['--kubeconfig', c.kubeconfig, 'proxy', `--port=${port}`], {
      env: { ...process.env, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    p.child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    try {
      await eventually('kubectl proxy serving', () => Promise.resolve(out.includes('Starting to serve')), 20_000);
      const page = await get(port, '/api/v1/namespaces/default/services/web:80/proxy/');
      assert.equal(page.status, 200);
      assert.match(page.body, /<title>Welcome to nginx!<\/title>/);
      const missing = await get(port, '/api/v1/namespaces/default/services/web:80/proxy/nope.html');
      assert.equal(missing.status, 404);
      const bare = await get(port, '/api/v1/namespaces/default/services/web:80/proxy');
      assert.equal(bare.status, 301);
      assert.equal(bare.location, '/api/v1/namespaces/default/services/web:80/proxy/');
      const empty = await get(port, '/api/v1/namespaces/default/services/empty:80/proxy/');
      assert.equal(empty.status, 503);
      assert.equal(JSON.parse(empty.body).message, 'no endpoints available for service "empty"');
    } finally {
      await p.stop();
    }
  });

  test('kubectl get --raw on pods/proxy, nodes/proxy and their errors', async () => {
    assert.match(ok(await c.k(['get', '--raw', `/api/v1/namespaces/default/pods/${pod}/proxy/`])), /Welcome to nginx!/);
    assert.match(ok(await c.k(['get', '--raw', `/api/v1/namespaces/default/pods/${pod}:80/proxy/index.html`])), /Welcome to nginx!/);
    const node = (await c.jsonpath(['get', 'pod', pod], '{.spec.nodeName}')).trim();
    assert.equal(ok(await c.k(['get', '--raw', `/api/v1/nodes/${node}/proxy/healthz`])), 'ok');
    assert.match(
      ok(await c.k(['get', '--raw', `/api/v1/nodes/${node}/proxy/metrics/resource`])),
      /container_cpu_usage_seconds_total\{container="web"/,
    );
    const refused = await c.k(['get', '--raw', `/api/v1/namespaces/default/pods/${pod}:81/proxy/`]);
    assert.notEqual(refused.code, 0);
    const ip = (await c.jsonpath(['get', 'pod', pod], '{.status.podIP}')).trim();
    assert.match(
      refused.stderr,
      new RegExp(
        `Error from server \\(ServiceUnavailable\\): error trying to reach service: dial tcp ${ip.replace(/\./g, '\\.')}:81: connect: connection refused`,
      ),
    );
    const noPort = await c.k(['get', '--raw', '/api/v1/namespaces/default/services/web:8080/proxy/']);
    assert.match(noPort.stderr, /Error from server \(ServiceUnavailable\): no service port 8080 found for service "web"/);
  });

  test('discovery lists the proxy subresources and pods/ephemeralcontainers', async () => {
    const list = JSON.parse(ok(await c.k(['get', '--raw', '/api/v1']))) as { resources: { name: string; kind: string; verbs: string[] }[] };
    const byName = new Map(list.resources.map((r) => [r.name, r]));
    for (const [name, kind] of [
      ['pods/proxy', 'PodProxyOptions'],
      ['services/proxy', 'ServiceProxyOptions'],
      ['nodes/proxy', 'NodeProxyOptions'],
    ]) {
      assert.deepEqual(byName.get(name)?.verbs, ['create', 'delete', 'get', 'patch', 'update'], name);
      assert.equal(byName.get(name)?.kind, kind, name);
    }
    assert.deepEqual(byName.get('pods/ephemeralcontainers')?.verbs, ['get', 'patch', 'update']);
    assert.equal(byName.get('pods/ephemeralcontainers')?.kind, 'Pod');
  });
});
