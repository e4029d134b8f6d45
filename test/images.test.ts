// Simulated images end to end on `ksim up --nodes 2`, with the real kubectl:
// a mistyped tag's ErrImagePull / ImagePullBackOff and containerd's message
// in `kubectl describe`, nginx serving the index.html an init container
// wrote into a shared emptyDir (fetched with busybox wget from another Pod),
// a Service spreading requests over three serve-hostname Pods, and a
// headless Service's Pods found by DNS, and an image that only
// `ksim up --image-catalog` adds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster, tempDir, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  const catalog = join(await tempDir('image-catalog'), 'images.yaml');
  writeFileSync(catalog, 'images:\n  - repository: registry.example.com/lab/hello\n    tags: ["1.0"]\n    cmd: ["sleep", "3600"]\n');
  c = await startCluster({ nodes: 2, speed: 10, upArgs: ['--image-catalog', catalog] });
});
after(() => c?.stop());

describe('images', () => {
  test('a tag that does not exist: ErrImagePull, then ImagePullBackOff, with containerd\'s "not found" in describe', async () => {
    ok(await c.k(['run', 'web', '--image=nginx:latset']));
    // The waiting reason flips between the two as the back-off runs; the Events keep both.
    await eventually('ErrImagePull and ImagePullBackOff', async () => {
      const reasons = await c.jsonpath(['get', 'events', '--field-selector', 'involvedObject.name=web'], '{.items[*].message}');
      return reasons.includes('Error: ErrImagePull') && reasons.includes('Error: ImagePullBackOff');
    });
    assert.match(
      await c.jsonpath(['get', 'pod', 'web'], '{.status.containerStatuses[0].state.waiting.reason}'),
      /^(ErrImagePull|ImagePullBackOff)$/,
    );
    const describe = ok(await c.k(['describe', 'pod', 'web']));
    assert.match(
      describe,
      /Failed to pull image "nginx:latset": failed to pull and unpack image "docker\.io\/library\/nginx:latset": failed to resolve reference "docker\.io\/library\/nginx:latset": docker\.io\/library\/nginx:latset: not found/,
    );
    assert.match(describe, /Error: ErrImagePull/);
    assert.match(describe, /Error: ImagePullBackOff/);
    assert.match(describe, /Back-off pulling image "nginx:latset"/);
    assert.match(ok(await c.k(['get', 'pod', 'web'])), /^web\s+0\/1\s+(ErrImagePull|ImagePullBackOff)\s+0/m);
    ok(await c.k(['delete', 'pod', 'web', '--wait=false']));
  });

  test('an invalid reference is InvalidImageName, with no pull', async () => {
    // kubectl run checks the reference itself; a manifest reaches kubelet as written.
    ok(
      await c.k(
        ['apply', '-f', '-'],
        'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec:\n  containers: [{name: app, image: "nginx::1"}]\n',
      ),
    );
    await eventually(
      'InvalidImageName',
      async () => (await c.jsonpath(['get', 'pod', 'bad'], '{.status.containerStatuses[0].state.waiting.reason}')) === 'InvalidImageName',
    );
    const describe = ok(await c.k(['describe', 'pod', 'bad']));
    assert.match(
      describe,
      /Failed to apply default image tag "nginx::1": couldn't parse image reference "nginx::1": invalid reference format/,
    );
    assert.doesNotMatch(describe, /Pulling image/);
    ok(await c.k(['delete', 'pod', 'bad', '--wait=false']));
  });

  test('nginx serves the index.html an init container wrote into a shared emptyDir', async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        `apiVersion: v1
kind: Pod
metadata: {name: site}
spec:
  volumes: [{name: html, emptyDir: {}}]
  initContainers:
  - name: write
    image: busybox:1.36
    command: ["sh", "-c", "echo 'built by the init container' > /work/index.html"]
    volumeMounts: [{name: html, mountPath: /work}]
  containers:
  - name: nginx
    image: nginx:1.27
    volumeMounts: [{name: html, mountPath: /usr/share/nginx/html}]
---
apiVersion: v1
kind: Pod
metadata: {name: client}
spec:
  containers:
  - name: bb
    image: busybox:1.36
    command: ["sleep", "3600"]
`,
      ),
    );
    ok(await c.k(['wait', '--for=condition=Ready', 'pod/site', 'pod/client', '--timeout=60s']));
    const ip = await c.jsonpath(['get', 'pod', 'site'], '{.status.podIP}');
    assert.equal(ok(await c.k(['exec', 'client', '--', 'wget', '-qO-', `http://${ip}`])), 'built by the init container\n');
    assert.match(ok(await c.k(['logs', 'site', '-c', 'nginx'])), /"GET \/ HTTP\/1\.1" 200 /);
  });

  test('a Service spreads requests over its 3 serve-hostname Pods', async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        `apiVersion: apps/v1
kind: Deployment
metadata: {name: hostnames}
spec:
  replicas: 3
  selector: {matchLabels: {app: hostnames}}
  template:
    metadata: {labels: {app: hostnames}}
    spec:
      containers:
      - name: hostnames
        image: registry.k8s.io/e2e-test-images/agnhost:2.40
        args: ["serve-hostname"]
        ports: [{containerPort: 9376}]
---
apiVersion: v1
kind: Service
metadata: {name: hostnames}
spec:
  selector: {app: hostnames}
  ports: [{port: 80, targetPort: 9376}]
`,
      ),
    );
    ok(await c.k(['rollout', 'status', 'deploy/hostnames', '--timeout=60s']));
    const pods = (await c.jsonpath(['get', 'pods', '-l', 'app=hostnames'], '{.items[*].metadata.name}')).split(' ').sort();
    await eventually(
      '3 endpoints',
      async () =>
        (await c.jsonpath(['get', 'endpoints', 'hostnames'], '{.subsets[*].addresses[*].ip}')).split(' ').filter(Boolean).length === 3,
    );
    const out = ok(
      await c.k([
        'exec',
        'client',
        '--',
        'sh',
        '-c',
        'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do wget -qO- hostnames; echo; done',
      ]),
    );
    const seen = [...new Set(out.split('\n').filter(Boolean))].sort();
    assert.deepEqual(seen, pods);
  });

  test("a headless Service's DNS name lists every ready Pod", async () => {
    ok(
      await c.k(
        ['apply', '-f', '-'],
        `apiVersion: v1
kind: Service
metadata: {name: hostnames-headless}
spec:
  clusterIP: None
  selector: {app: hostnames}
  ports: [{port: 9376}]
`,
      ),
    );
    const ips = (await c.jsonpath(['get', 'pods', '-l', 'app=hostnames'], '{.items[*].status.podIP}')).split(' ').sort();
    let answered: string[] = [];
    await eventually('3 A records', async () => {
      const out = ok(await c.k(['exec', 'client', '--', 'nslookup', 'hostnames-headless']));
      answered = [...out.matchAll(/^Address: (\S+)$/gm)].map((m) => m[1]).sort();
      return answered.length === 3;
    });
    assert.deepEqual(answered, ips);
  });

  test('ksim up --image-catalog adds an image the simulated registries then hold; a tag it lacks fails to pull', async () => {
    ok(await c.k(['run', 'custom', '--image=registry.example.com/lab/hello:1.0']));
    ok(await c.k(['run', 'custom-missing', '--image=registry.example.com/lab/hello:2.0']));
    await eventually('the catalog image to run', async () => (await c.jsonpath(['get', 'pod', 'custom'], '{.status.phase}')) === 'Running');
    await eventually('the missing tag to fail', async () =>
      /ErrImagePull|ImagePullBackOff/.test(
        await c.jsonpath(['get', 'pod', 'custom-missing'], '{.status.containerStatuses[0].state.waiting.reason}'),
      ),
    );
  });
});
