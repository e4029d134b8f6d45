// `kubectl port-forward` end to end on `ksim up`: kubectl 1.35's WebSocket
// tunnel (SPDY inside WebSocket binary messages) and its plain SPDY fallback
// reach the simulated nginx through the apiserver and kubelet-sim, for a Pod,
// a Service and a Deployment; several connections at once; a port nothing
// listens on gives kubelet's error; hostile clients crash nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { WebSocket } from 'ws';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';
import { freePort } from './helpers/free-port.ts';
import { kubectlBin } from './helpers/paths.ts';
import { spawnTracked, type TrackedProcess } from './helpers/processes.ts';
import { homeFor } from './helpers/kubectl.ts';

let c: Cluster;
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
        ports: [{containerPort: 80, name: http}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 8080, targetPort: http, name: http}]
`,
    ),
  );
  ok(await c.k(['rollout', 'status', 'deploy/web', '--timeout=60s']));
});
after(() => c?.stop());

/** Starts `kubectl port-forward ARGS` and waits for its "Forwarding from" line. */
async function portForward(args: string[], env: Record<string, string> = {}): Promise<{ p: TrackedProcess; out: () => string }> {
  const home = await homeFor(c.kubeconfig);
  const p = await spawnTracked(kubectlBin, ['--kubeconfig', c.kubeconfig, 'port-forward', ...args], {
    env: { ...process.env, HOME: home, KUBECONFIG: c.kubeconfig, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  p.child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  p.child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  await eventually('port-forward listening', () => Promise.resolve(out.includes('Forwarding from 127.0.0.1')), 20_000);
  return { p, out: () => out };
}

function get(port: number, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('kubectl port-forward', () => {
  test('pod/NAME over the WebSocket tunnel: nginx answers, several connections at once', async () => {
    const pod = (await c.jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[0].metadata.name}')).trim();
    const port = await freePort();
    const { p } = await portForward([`pod/${pod}`, `${port}:80`]);
    try {
      const answers = await Promise.all([get(port), get(port, '/index.html'), get(port), get(port, '/nope')]);
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200, 404],
      );
      assert.match(answers[0].body, /Welcome to nginx!/);
    } finally {
      await p.stop();
    }
  });

  test('svc/NAME and deploy/NAME resolve to a Pod; the SPDY fallback works too', async () => {
    const port = await freePort();
    const svc = await portForward(['svc/web', `${port}:8080`]);
    try {
      assert.match((await get(port)).body, /Welcome to nginx!/);
    } finally {
      await svc.p.stop();
    }
    const port2 = await freePort();
    // kubectl's switch for the WebSocket tunnel: off, it speaks SPDY/3.1 itself.
    const dep = await portForward(['deploy/web', `${port2}:80`], { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' });
    try {
      const a = await get(port2);
      assert.equal(a.status, 200);
      assert.match(a.body, /Welcome to nginx!/);
    } finally {
      await dep.p.stop();
    }
  });

  test("a port nothing listens on: kubelet's error on the error stream", async () => {
    const pod = (await c.jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[0].metadata.name}')).trim();
    const port = await freePort();
    const pf = await portForward([`pod/${pod}`, `${port}:81`]);
    try {
      await get(port).catch(() => undefined);
      await eventually('the error', () => Promise.resolve(/error forwarding port 81 to pod [0-9a-f]{64}, uid : /.test(pf.out())), 10_000);
      assert.match(pf.out(), /an error occurred forwarding \d+ -> 81: .*connect: connection refused/);
    } finally {
      await pf.p.stop();
    }
  });

  test("kubelet's WebSocket protocol (client libraries): channels per port, the port first, kube's errors", async () => {
    const pod = (await c.jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[0].metadata.name}')).trim();
    const tls = { ca: c.tls!.ca, cert: c.tls!.cert, key: c.tls!.key };
    const session = (ports: string) =>
      new Promise<{ protocol: string; messages: Buffer[]; refused?: { code: number; body: string } }>((resolve) => {
        const messages: Buffer[] = [];
        const ws = new WebSocket(
          `${c.url.replace(/^http/, 'ws')}/api/v1/namespaces/default/pods/${pod}/portforward?ports=${ports}`,
          ['v4.channel.k8s.io', 'v3.channel.k8s.io'],
          tls,
        );
        ws.on('unexpected-response', (_q, res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ protocol: '', messages, refused: { code: res.statusCode ?? 0, body } }));
        });
        ws.on('open', () => ws.send(Buffer.concat([Buffer.from([0]), Buffer.from('GET / HTTP/1.0\r\n\r\n')])));
        ws.on('message', (d: Buffer) => messages.push(d));
        ws.on('close', () => resolve({ protocol: ws.protocol, messages }));
        ws.on('error', () => {});
      });
    const ok80 = await session('80');
    assert.equal(ok80.protocol, 'v4.channel.k8s.io');
    assert.deepEqual([...ok80.messages[0]], [0, 80, 0]);
    assert.deepEqual([...ok80.messages[1]], [1, 80, 0]);
    const data = Buffer.concat(
      ok80.messages
        .slice(2)
        .filter((m) => m[0] === 0)
        .map((m) => m.subarray(1)),
    ).toString();
    assert.match(data, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(data, /Welcome to nginx!/);
    const closed = await session('81');
    const err = Buffer.concat(
      closed.messages
        .slice(2)
        .filter((m) => m[0] === 1)
        .map((m) => m.subarray(1)),
    ).toString();
    assert.match(err, /^error forwarding port 81 to pod [0-9a-f]{64}, uid : .*connect: connection refused/);
    const bad = await session('x');
    assert.equal(bad.refused?.code, 400);
    assert.equal(JSON.parse(bad.refused.body).message, 'unable to parse "x" as a port: strconv.ParseUint: parsing "x": invalid syntax');
  });

  test('hostile port-forward clients: garbage frames, a vanished client; the cluster still answers', async () => {
    const pod = (await c.jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[0].metadata.name}')).trim();
    const url = new URL(`${c.url}/api/v1/namespaces/default/pods/${pod}/portforward`);
    const tls = c.tls!;
    for (const body of [Buffer.from('not spdy at all, just bytes\r\n'), Buffer.from([0x80, 3, 0, 1, 0, 0, 0, 30, 0, 0, 0, 1])]) {
      await new Promise<void>((resolve) => {
        const req = https.request({
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          ca: tls.ca,
          cert: tls.cert,
          key: tls.key,
          headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'portforward.k8s.io' },
        });
        req.on('upgrade', (res, socket) => {
          assert.equal(res.statusCode, 101);
          socket.on('error', () => {});
          socket.write(body);
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 200);
        });
        req.on('error', () => resolve());
        req.end();
      });
    }
    const port = await freePort();
    const { p } = await portForward([`pod/${pod}`, `${port}:80`]);
    try {
      assert.equal((await get(port)).status, 200);
    } finally {
      await p.stop();
    }
    ok(await c.k(['get', 'pods']));
  });
});
