// `kubectl debug` end to end on `ksim up`: an ephemeral container added with
// -it gives a shell in the simulated runtime (attach), its status shows in
// status.ephemeralContainerStatuses; kube's validation of the
// ephemeralcontainers subresource (exact messages); --copy-to; and hostile
// attaches (no such container, a client that goes away) crash nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;
let pod = '';
before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
  ok(await c.k(['create', 'deployment', 'web', '--image=nginx:1.27', '--port=80']));
  ok(await c.k(['rollout', 'status', 'deploy/web', '--timeout=60s']));
  pod = (await c.jsonpath(['get', 'pods', '-l', 'app=web'], '{.items[0].metadata.name}')).trim();
});
after(() => c?.stop());

describe('kubectl debug', () => {
  test('debug -it with an ephemeral busybox: a shell that runs commands, then Completed', async () => {
    const r = await c.k(
      ['debug', '-it', pod, '--image=busybox:1.36', '--target=nginx', '-c', 'dbg', '--profile=general'],
      'echo hello-from-debug\nexit\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /hello-from-debug/);
    assert.equal(await c.jsonpath(['get', 'pod', pod], '{.spec.ephemeralContainers[0].name}'), 'dbg');
    await eventually(
      'the ephemeral container Completed',
      async () =>
        (await c.jsonpath(['get', 'pod', pod], '{.status.ephemeralContainerStatuses[0].state.terminated.reason}')) === 'Completed',
    );
    // The Pod itself is untouched: still Running and Ready, its container not restarted.
    assert.equal(await c.jsonpath(['get', 'pod', pod], '{.status.phase}'), 'Running');
    assert.equal(await c.jsonpath(['get', 'pod', pod], '{.status.containerStatuses[0].restartCount}'), '0');
    assert.match(ok(await c.k(['logs', pod, '-c', 'dbg'])), /hello-from-debug/);
  });

  test('a non-interactive debug container runs its command; its output is its log', async () => {
    ok(await c.k(['debug', pod, '--image=busybox:1.36', '-c', 'once', '--profile=general', '--', 'sh', '-c', 'echo ran-once']));
    await eventually('the log', async () => /ran-once/.test((await c.k(['logs', pod, '-c', 'once'])).stdout));
  });

  test("the ephemeralcontainers subresource refuses what kube refuses, with kube's messages", async () => {
    const bad = JSON.stringify({
      spec: {
        ephemeralContainers: [
          { name: 'bad', image: 'busybox', ports: [{ containerPort: 80 }], targetContainerName: 'nope' },
          { name: 'nginx', image: 'busybox' },
        ],
      },
    });
    const r = await c.k(['patch', 'pod', pod, '--subresource=ephemeralcontainers', '--type=strategic', '-p', bad]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /The Pod "[^"]+" is invalid: /);
    assert.match(r.stderr, /spec\.ephemeralContainers\[\d\]\.targetContainerName: Not found: "nope"/);
    assert.match(r.stderr, /spec\.ephemeralContainers\[\d\]\.ports: Forbidden: cannot be set for an Ephemeral Container/);
    assert.match(r.stderr, /spec\.ephemeralContainers\[\d\]\.name: Duplicate value: "nginx"/);
    const removed = await c.k([
      'patch',
      'pod',
      pod,
      '--subresource=ephemeralcontainers',
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/spec/ephemeralContainers/0"}]',
    ]);
    assert.match(removed.stderr, /spec\.ephemeralContainers: Forbidden: existing ephemeral containers "dbg" may not be removed/);
    // The regular update path still freezes the spec, ephemeral containers included.
    const plain = await c.k([
      'patch',
      'pod',
      pod,
      '--type=strategic',
      '-p',
      '{"spec":{"ephemeralContainers":[{"name":"x","image":"busybox"}]}}',
    ]);
    assert.match(plain.stderr, /spec: Forbidden: pod updates may not change fields other than/);
  });

  test('debug --copy-to makes a copy of the Pod with the debug container', async () => {
    ok(
      await c.k([
        'debug',
        pod,
        '--copy-to=web-copy',
        '--image=busybox:1.36',
        '--container=copy',
        '--profile=general',
        '--',
        'sleep',
        '3600',
      ]),
    );
    await eventually('the copy Running', async () => (await c.jsonpath(['get', 'pod', 'web-copy'], '{.status.phase}')) === 'Running');
    assert.equal(await c.jsonpath(['get', 'pod', 'web-copy'], '{.spec.containers[*].name}'), 'nginx copy');
  });

  test('debug node/NAME: a Pod on that node with the host mounted at /host, attached', async () => {
    const node = (await c.jsonpath(['get', 'pod', pod], '{.spec.nodeName}')).trim();
    const r = await c.k(['debug', '-it', `node/${node}`, '--image=busybox:1.36', '--profile=general'], 'echo on-the-node\nexit\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout + r.stderr,
      new RegExp(`Creating debugging pod node-debugger-${node}-\\w+ with container debugger on node ${node}`),
    );
    assert.match(r.stdout, /on-the-node/);
    const name = (await c.jsonpath(['get', 'pods'], '{.items[*].metadata.name}'))
      .split(' ')
      .find((n) => n.startsWith(`node-debugger-${node}-`));
    assert.ok(name);
    assert.equal(await c.jsonpath(['get', 'pod', name], '{.spec.nodeName}'), node);
    assert.equal(await c.jsonpath(['get', 'pod', name], '{.spec.hostNetwork}'), 'true');
  });

  test('hostile attaches: a container that does not exist, a client that goes away', async () => {
    const none = await c.k(['attach', pod, '-c', 'nope']);
    assert.notEqual(none.code, 0);
    assert.match(none.stderr, /container nope not found in pod/);
    // The server's own answers, past kubectl's checks: no such container, then clients that vanish mid-handshake and mid-stream.
    const base = c.url.replace(/^http/, 'ws');
    const tls = { ca: c.tls!.ca, cert: c.tls!.cert, key: c.tls!.key };
    const refused = await new Promise<{ code: number; body: string }>((resolve) => {
      const ws = new WebSocket(
        `${base}/api/v1/namespaces/default/pods/${pod}/attach?container=nope&stdout=true`,
        ['v5.channel.k8s.io'],
        tls,
      );
      ws.on('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
      });
      ws.on('error', () => {});
    });
    assert.equal(refused.code, 400);
    assert.equal(JSON.parse(refused.body).message, `container nope is not valid for pod ${pod}`);
    for (let i = 0; i < 3; i++) {
      const ws = new WebSocket(
        `${base}/api/v1/namespaces/default/pods/${pod}/attach?container=nginx&stdout=true&stdin=true&tty=true`,
        ['v5.channel.k8s.io'],
        tls,
      );
      ws.on('error', () => {});
      if (i === 0) ws.terminate();
      else await new Promise<void>((resolve) => ws.on('open', () => (ws.terminate(), resolve())));
    }
    assert.match(ok(await c.k(['get', 'pod', pod, '-o', 'name'])), /pod\//);
    assert.match(ok(await c.k(['exec', pod, '--', 'echo', 'still-here'])), /still-here/);
  });
});
