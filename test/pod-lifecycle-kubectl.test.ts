// Containers as kubelet runs them, end to end on `ksim up --nodes 1` with the
// real kubectl: probes against what the image really serves (a port nothing
// listens on, agnhost liveness turning 500 after 10 s), postStart hooks (one
// writing a file the main command reads, one failing), `id` under a Pod
// securityContext, runAsNonRoot refusing nginx, the Service environment
// variables, a sidecar reaching its Pod's nginx on localhost, and `kubectl
// set image` restarting only the changed container.
// Every Pod is created up front so that their clocks run together.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;

const PODS = `apiVersion: v1
kind: Pod
metadata: {name: refused}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "sleep 3600"]
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      periodSeconds: 3
---
apiVersion: v1
kind: Pod
metadata: {name: liveness-http}
spec:
  containers:
  - name: liveness
    image: registry.k8s.io/e2e-test-images/agnhost:2.40
    args: [liveness]
    livenessProbe:
      httpGet: {path: /healthz, port: 8080}
      initialDelaySeconds: 3
      periodSeconds: 3
---
apiVersion: v1
kind: Pod
metadata: {name: poststart}
spec:
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "sleep 1; cat /usr/share/message; sleep 3600"]
    lifecycle:
      postStart:
        exec:
          command: ["sh", "-c", "echo Hello from the postStart handler > /usr/share/message"]
---
apiVersion: v1
kind: Pod
metadata: {name: poststart-fails}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "sleep 3600"]
    lifecycle:
      postStart:
        exec:
          command: ["sh", "-c", "exit 1"]
---
apiVersion: v1
kind: Pod
metadata: {name: security}
spec:
  securityContext: {runAsUser: 1000, fsGroup: 2000}
  containers:
  - name: app
    image: busybox:1.36
    command: ["sh", "-c", "sleep 3600"]
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
---
apiVersion: v1
kind: Pod
metadata: {name: security-context-demo}
spec:
  securityContext: {runAsUser: 1000, runAsGroup: 3000, fsGroup: 2000}
  volumes:
  - name: sec-ctx-vol
    emptyDir: {}
  containers:
  - name: sec-ctx-demo
    image: busybox:1.36
    command: ["sh", "-c", "sleep 1h"]
    volumeMounts:
    - {name: sec-ctx-vol, mountPath: /data/demo}
---
apiVersion: v1
kind: Pod
metadata: {name: nonroot}
spec:
  securityContext: {runAsNonRoot: true}
  containers:
  - name: web
    image: nginx:1.27
---
apiVersion: v1
kind: Pod
metadata: {name: setimage}
spec:
  containers:
  - name: web
    image: nginx:1.27
  - name: side
    image: busybox:1.36
    command: ["sh", "-c", "sleep 3600"]
`;

before(async () => {
  c = await startCluster({ nodes: 1, speed: 10 });
  // The Service exists before the Pod that should see its variables.
  ok(await c.k(['create', 'service', 'clusterip', 'web', '--tcp=80:80']));
  ok(await c.k(['apply', '-f', '-'], PODS));
  ok(await c.k(['run', 'envpod', '--image=busybox:1.36', '--', 'sleep', '3600']));
});
after(() => c?.stop());

const events = async (pod: string) =>
  c.jsonpath(['get', 'events', '--field-selector', `involvedObject.name=${pod}`], '{.items[*].message}');
const restarts = async (pod: string, i = 0) =>
  Number(await c.jsonpath(['get', 'pod', pod], `{.status.containerStatuses[${i}].restartCount}`));

describe('pod lifecycle', () => {
  test("an httpGet liveness probe on a port nothing serves restarts the container, with kubelet's text", async () => {
    await eventually('a restart of refused', async () => (await restarts('refused')) >= 1, 40_000);
    const ip = await c.jsonpath(['get', 'pod', 'refused'], '{.status.podIP}');
    const msgs = await events('refused');
    assert.ok(
      msgs.includes(`Liveness probe failed: Get "http://${ip}:8080/healthz": dial tcp ${ip}:8080: connect: connection refused`),
      msgs,
    );
    assert.ok(msgs.includes('Container app failed liveness probe, will be restarted'), msgs);
  });

  test('agnhost liveness (500 after 10 s) restarts', async () => {
    await eventually('a restart of liveness-http', async () => (await restarts('liveness-http')) >= 1, 40_000);
    const msgs = await events('liveness-http');
    assert.ok(msgs.includes('Liveness probe failed: HTTP probe failed with statuscode: 500'), msgs);
  });

  test('a postStart hook writes a file that the main command reads', async () => {
    await eventually('the message in the logs', async () =>
      (await c.k(['logs', 'poststart'])).stdout.includes('Hello from the postStart handler'),
    );
  });

  test('a failing postStart hook: FailedPostStartHook, the container killed and restarted', async () => {
    await eventually('FailedPostStartHook', async () => (await events('poststart-fails')).includes('FailedPostStartHook'), 30_000);
    const describe = ok(await c.k(['describe', 'pod', 'poststart-fails']));
    assert.match(
      describe,
      /FailedPostStartHook .*Exec lifecycle hook \(\[sh -c exit 1\]\) for Container "app" in Pod "poststart-fails_default\([0-9a-f-]+\)" failed - error: command 'sh -c exit 1' exited with 1: , message: ""/,
    );
    assert.match(describe, /Killing .*FailedPostStartHook/);
    await eventually('a restart of poststart-fails', async () => (await restarts('poststart-fails')) >= 1, 30_000);
  });

  test('id under runAsUser 1000 and fsGroup 2000', async () => {
    await eventually('security running', async () => (await c.jsonpath(['get', 'pod', 'security'], '{.status.phase}')) === 'Running');
    const out = ok(await c.k(['exec', 'security', '--', 'id']));
    assert.match(out, /^uid=1000\b.* gid=0\b.*groups=.*\b2000\b/, out);
  });

  test("kubernetes.io's security context lab: fsGroup owns the volume, files belong to the user, the status reports the user", async () => {
    const pod = 'security-context-demo';
    await eventually(`${pod} running`, async () => (await c.jsonpath(['get', 'pod', pod], '{.status.phase}')) === 'Running');
    const sh = async (script: string) => ok(await c.k(['exec', pod, '--', 'sh', '-c', script]));
    // Columns as busybox's ls -l prints them; the date is left out.
    const cols = (line: string) => line.trim().split(/\s+/).slice(0, 4).concat(line.trim().split(/\s+/).slice(-1));
    assert.deepEqual(cols((await sh('ls -l /data')).split('\n')[1]), ['drwxrwsrwx', '2', 'root', '2000', 'demo']);
    assert.deepEqual(cols(await sh('echo hello > /data/demo/testfile; ls -l /data/demo/testfile')), [
      '-rw-r--r--',
      '1',
      '1000',
      '2000',
      '/data/demo/testfile',
    ]);
    assert.equal((await sh('id')).trim(), 'uid=1000 gid=3000 groups=2000,3000');
    assert.equal(
      await c.jsonpath(['get', 'pod', pod], '{.status.containerStatuses[0].user.linux}'),
      '{"gid":3000,"supplementalGroups":[2000,3000],"uid":1000}',
    );
  });

  test('runAsNonRoot refuses nginx, which runs as root', async () => {
    await eventually(
      'CreateContainerConfigError',
      async () =>
        (await c.jsonpath(['get', 'pod', 'nonroot'], '{.status.containerStatuses[0].state.waiting.reason}')) ===
        'CreateContainerConfigError',
    );
    const describe = ok(await c.k(['describe', 'pod', 'nonroot']));
    assert.match(
      describe,
      /Error: container has runAsNonRoot and image will run as root \(pod: "nonroot_default\([0-9a-f-]+\)", container: web\)/,
    );
    assert.match(ok(await c.k(['get', 'pod', 'nonroot'])), /^nonroot\s+0\/1\s+CreateContainerConfigError\s+0/m);
  });

  test('the Service environment variables of the namespace and of the kubernetes Service', async () => {
    await eventually('envpod running', async () => (await c.jsonpath(['get', 'pod', 'envpod'], '{.status.phase}')) === 'Running');
    const ip = await c.jsonpath(['get', 'service', 'web'], '{.spec.clusterIP}');
    const env = ok(await c.k(['exec', 'envpod', '--', 'env']));
    for (const line of [
      `WEB_SERVICE_HOST=${ip}`,
      'WEB_SERVICE_PORT=80',
      'WEB_SERVICE_PORT_80_80=80',
      `WEB_PORT=tcp://${ip}:80`,
      `WEB_PORT_80_TCP=tcp://${ip}:80`,
      'WEB_PORT_80_TCP_PROTO=tcp',
      'WEB_PORT_80_TCP_PORT=80',
      `WEB_PORT_80_TCP_ADDR=${ip}`,
      'KUBERNETES_SERVICE_HOST=10.96.0.1',
      'KUBERNETES_SERVICE_PORT=443',
      'KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443',
    ])
      assert.ok(env.split('\n').includes(line), `${line} in\n${env}`);
  });

  test('kubectl set image restarts only the changed container', async () => {
    await eventually('setimage running', async () => (await c.jsonpath(['get', 'pod', 'setimage'], '{.status.phase}')) === 'Running');
    // Containers of one Pod share its network: the sidecar reaches nginx on localhost.
    assert.match(ok(await c.k(['exec', 'setimage', '-c', 'side', '--', 'wget', '-qO-', 'http://localhost/'])), /Welcome to nginx!/);
    ok(await c.k(['set', 'image', 'pod/setimage', 'web=nginx:1.28']));
    await eventually('web restarted on nginx:1.28', async () => {
      const image = await c.jsonpath(['get', 'pod', 'setimage'], '{.status.containerStatuses[?(@.name=="web")].image}');
      const running = await c.jsonpath(['get', 'pod', 'setimage'], '{.status.containerStatuses[?(@.name=="web")].state.running}');
      return image === 'docker.io/library/nginx:1.28' && running !== '';
    });
    assert.equal(await c.jsonpath(['get', 'pod', 'setimage'], '{.status.containerStatuses[?(@.name=="web")].restartCount}'), '1');
    assert.equal(await c.jsonpath(['get', 'pod', 'setimage'], '{.status.containerStatuses[?(@.name=="side")].restartCount}'), '0');
    const msgs = await events('setimage');
    assert.ok(msgs.includes('Container web definition changed, will be restarted'), msgs);
    assert.ok(msgs.includes('Pulling image "nginx:1.28"'), msgs);
  });
});
