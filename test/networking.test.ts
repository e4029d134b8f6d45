// NetworkPolicy and Ingress end to end on `ksim up --nodes 2`, driven by the
// real kubectl: a default deny drops wget (busybox's timeout), a policy lets a
// labelled client through, a namespaceSelector admits another namespace, an
// egress deny needs DNS allowed explicitly; ksim's ingress-nginx routes two
// hosts and two paths to two Services from a Pod and from the host port, and
// publishes its address in status.loadBalancer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ksimCli, startCluster, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 2, speed: 10 });
});
after(() => c?.stop());

const pod = (name: string, ns: string, labels: Record<string, string>, image = 'busybox:1.36', cmd = "['sleep', '3600']") => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}, labels: ${JSON.stringify(labels)}}
spec:
  containers:
  - name: c
    image: ${image}
    ${image.startsWith('busybox') ? `command: ${cmd}` : 'ports: [{containerPort: 80, name: http}]'}
`;
const policy = (name: string, ns: string, spec: string) => `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: ${name}, namespace: ${ns}}
spec:
${spec}`;

/** Until commands/net.ts's wget waits its -T on a dropped connection and sends --header (/tmp/w15/netpol-net-ts.patch). */

/** wget from a Pod: its output, error text, and how long it took. */
async function wget(from: string, url: string, ns = 'default', extra: string[] = []) {
  const started = Date.now();
  const r = await c.k(['exec', '-n', ns, from, '--', 'wget', '-qO-', '-T', '2', ...extra, url]);
  return { code: r.code, out: r.stdout, err: r.stderr, ms: Date.now() - started };
}

describe('NetworkPolicy', () => {
  before(async () => {
    ok(await c.k(['create', 'namespace', 'team-a']));
    ok(await c.k(['label', 'namespace', 'team-a', 'team=a']));
    ok(await c.k(['apply', '-f', '-'], pod('web', 'default', { app: 'web' }, 'nginx:1.27')));
    ok(await c.k(['expose', 'pod', 'web', '--port=80']));
    for (const [n, ns, l] of [
      ['client', 'default', { role: 'client' }],
      ['other', 'default', { role: 'other' }],
      ['visitor', 'team-a', { role: 'visitor' }],
    ] as const)
      ok(await c.k(['apply', '-f', '-'], pod(n, ns, l)));
    ok(await c.k(['wait', '--for=condition=Ready', 'pod/web', 'pod/client', 'pod/other', '--timeout=60s']));
    ok(await c.k(['wait', '-n', 'team-a', '--for=condition=Ready', 'pod/visitor', '--timeout=60s']));
  });

  test('without a policy everything flows', async () => {
    const r = await wget('client', 'http://web');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Welcome to nginx/);
  });

  test('a default deny drops the connection: wget times out after -T on the cluster clock', async () => {
    ok(await c.k(['apply', '-f', '-'], policy('default-deny', 'default', '  podSelector: {}\n  policyTypes: [Ingress]\n')));
    assert.match(ok(await c.k(['get', 'netpol'])), /^default-deny\s+<none>\s+\d+s$/m);
    await eventually('the deny applies', async () => (await wget('client', 'http://web')).code !== 0);
    const r = await wget('client', 'http://web');
    assert.notEqual(r.code, 0);
    assert.match(r.err, /wget: download timed out/);
    assert.ok(r.ms >= 200, `waited ${r.ms} ms (2 s at speed 10)`);
  });

  test('a policy allowing a labelled client lets it through, and only it', async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        policy(
          'allow-client',
          'default',
          '  podSelector: {matchLabels: {app: web}}\n  ingress:\n  - from: [{podSelector: {matchLabels: {role: client}}}]\n    ports: [{port: 80}]\n',
        ),
      ),
    );
    await eventually('client allowed', async () => (await wget('client', 'http://web')).code === 0);
    assert.match((await wget('client', 'http://web')).out, /Welcome to nginx/);
    assert.match((await wget('other', 'http://web')).err, /download timed out/);
    assert.match((await wget('visitor', 'http://web.default', 'team-a')).err, /download timed out/);
  });

  test('namespaceSelector admits the Pods of a labelled namespace', async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        policy(
          'allow-team-a',
          'default',
          '  podSelector: {matchLabels: {app: web}}\n  ingress:\n  - from: [{namespaceSelector: {matchLabels: {team: a}}}]\n',
        ),
      ),
    );
    await eventually('visitor allowed', async () => (await wget('visitor', 'http://web.default', 'team-a')).code === 0);
    assert.match((await wget('other', 'http://web')).err, /download timed out/);
  });

  test('egress deny: no DNS until it is allowed, then only what egress rules allow', async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        policy('deny-egress', 'default', '  podSelector: {matchLabels: {role: client}}\n  policyTypes: [Egress]\n'),
      ),
    );
    await eventually('DNS blocked', async () => (await wget('client', 'http://web')).code !== 0);
    const nodns = await c.k(['exec', 'client', '--', 'nslookup', 'web']);
    assert.notEqual(nodns.code, 0);
    ok(
      await c.k(
        ['apply', '-f', '-'],
        policy(
          'allow-dns',
          'default',
          '  podSelector: {}\n  policyTypes: [Egress]\n  egress:\n  - to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: kube-system}}, podSelector: {matchLabels: {k8s-app: kube-dns}}}]\n    ports: [{port: 53, protocol: UDP}, {port: 53, protocol: TCP}]\n',
        ),
      ),
    );
    await eventually('DNS answers', async () => (await c.k(['exec', 'client', '--', 'nslookup', 'web'])).code === 0);
    assert.match((await wget('client', 'http://web')).err, /download timed out/);
    ok(
      await c.k(
        ['apply', '-f', '-'],
        policy(
          'allow-web',
          'default',
          '  podSelector: {matchLabels: {role: client}}\n  egress:\n  - to: [{podSelector: {matchLabels: {app: web}}}]\n',
        ),
      ),
    );
    await eventually('egress to web allowed', async () => (await wget('client', 'http://web')).code === 0);
  });

  test('validation with kube messages', async () => {
    const r = await c.k(['apply', '-f', '-'], policy('bad', 'default', '  podSelector: {}\n  ingress:\n  - from: [{}]\n'));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /spec\.ingress\[0\]\.from\[0\]: Required value: must specify a peer/);
  });
});

const echo = (name: string, ns: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: echo
        image: hashicorp/http-echo:1.0
        args: ['-text=${name}']
        ports: [{containerPort: 5678}]
---
apiVersion: v1
kind: Service
metadata: {name: ${name}, namespace: ${ns}}
spec:
  selector: {app: ${name}}
  ports: [{port: 80, targetPort: 5678}]
`;

const INGRESS = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: shop, namespace: shop}
spec:
  ingressClassName: nginx
  tls: [{hosts: [foo.example], secretName: foo-tls}]
  rules:
  - host: foo.example
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: foo, port: {number: 80}}}}
      - {path: /api, pathType: Prefix, backend: {service: {name: bar, port: {number: 80}}}}
  - host: bar.example
    http:
      paths:
      - {path: /only, pathType: Exact, backend: {service: {name: bar, port: {number: 80}}}}
`;

/** GET from the host through kubelet-sim's ingress port. */
function hostGet(port: number, host: string, p: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, headers: { Host: host } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

describe('Ingress', () => {
  before(async () => {
    ok(await c.k(['create', 'namespace', 'shop']));
    ok(await c.k(['apply', '-f', '-'], echo('foo', 'shop') + '---\n' + echo('bar', 'shop')));
    ok(await c.k(['apply', '-f', '-'], pod('shopper', 'shop', { role: 'shopper' })));
    ok(await c.k(['rollout', 'status', '-n', 'shop', 'deploy/foo', 'deploy/bar', '--timeout=60s']));
    ok(await c.k(['wait', '-n', 'shop', '--for=condition=Ready', 'pod/shopper', '--timeout=60s']));
    ok(await c.k(['apply', '-f', '-'], INGRESS));
  });

  test("the default class is ksim's ingress-nginx; status.loadBalancer gets its address", async () => {
    assert.match(ok(await c.k(['get', 'ingressclass'])), /^nginx\s+k8s\.io\/ingress-nginx\s+<none>\s+\S+$/m);
    await eventually(
      'address published',
      async () => (await c.jsonpath(['get', 'ingress', '-n', 'shop', 'shop'], '{.status.loadBalancer.ingress[0].ip}')) !== '',
    );
    assert.match(
      ok(await c.k(['get', 'ingress', '-n', 'shop'])),
      /^shop\s+nginx\s+foo\.example,bar\.example\s+172\.18\.255\.200\s+80, 443\s+\S+$/m,
    );
    // ingress-nginx's Sync events: one when it saw the Ingress created, one when its address was published.
    await eventually('Sync events x2', async () => {
      const described = ok(await c.k(['describe', 'ingress', '-n', 'shop', 'shop']));
      return /Normal\s+Sync\s+.*\(x2 over .*\)\s+nginx-ingress-controller\s+Scheduled for sync/.test(described);
    });
  });

  test('an Ingress that names no class gets the default one from DefaultIngressClass admission', async () => {
    ok(await c.k(['create', 'ingress', 'classless', '-n', 'shop', '--rule=plain.example/*=foo:80']));
    assert.equal(await c.jsonpath(['get', 'ingress', '-n', 'shop', 'classless'], '{.spec.ingressClassName}'), 'nginx');
    // Naming the class through the old annotation is the user's choice: it is left as it is.
    ok(
      await c.k(
        ['apply', '-f', '-'],
        'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: annotated\n  namespace: shop\n' +
          '  annotations:\n    kubernetes.io/ingress.class: nginx\nspec:\n  defaultBackend:\n    service:\n      name: foo\n      port:\n        number: 80\n',
      ),
    );
    assert.equal(await c.jsonpath(['get', 'ingress', '-n', 'shop', 'annotated'], '{.spec.ingressClassName}'), '');
    ok(await c.k(['delete', 'ingress', '-n', 'shop', 'classless', 'annotated']));
  });

  test('from a Pod: hosts and paths reach their Services, 404 when nothing matches', async () => {
    const get = (host: string, p: string) => wget('shopper', `http://172.18.255.200${p}`, 'shop', ['--header', `Host: ${host}`]);
    assert.equal((await get('foo.example', '/')).out, 'foo\n');
    assert.equal((await get('foo.example', '/api/items')).out, 'bar\n');
    assert.equal((await get('foo.example', '/apis')).out, 'foo\n');
    assert.equal((await get('bar.example', '/only')).out, 'bar\n');
    assert.match((await get('bar.example', '/only/more')).err, /404 Not Found/);
    assert.match((await get('nobody.example', '/')).err, /404 Not Found/);
  });

  test("from the host: kubelet-sim's ingress port routes by the Host header", async () => {
    const log = fs.readFileSync(path.join(c.dataDir, 'logs', 'kubelet-sim.log'), 'utf8');
    const port = Number(/ingress-nginx \(class nginx\) at http:\/\/127\.0\.0\.1:(\d+)/.exec(log)?.[1]);
    assert.ok(port > 0, 'the log tells the port');
    const status = await promisify(execFile)(process.execPath, [ksimCli, 'status', '--data-dir', c.dataDir]);
    assert.match(
      status.stdout,
      new RegExp(`^Ingress: http://127\\.0\\.0\\.1:${port} \\(routes by the Host header; 172\\.18\\.255\\.200 from Pods\\)$`, 'm'),
    );
    assert.deepEqual(await hostGet(port, 'foo.example', '/'), { status: 200, body: 'foo\n' });
    assert.deepEqual(await hostGet(port, 'foo.example', '/api'), { status: 200, body: 'bar\n' });
    const miss = await hostGet(port, 'elsewhere.example', '/');
    assert.equal(miss.status, 404);
    assert.match(miss.body, /<center>nginx<\/center>/);
  });
});
