import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { FakeClock } from '../../../shared/clock/clock.ts';
import { ClusterNet, type NetSource } from '../cluster-net.ts';
import { fakeNode, MapConfigSource, MemoryRecorder } from '../fakes.ts';
import { LogStore } from '../log-store.ts';
import { PodWorker } from '../pod-worker.ts';
import { runProcess } from '../shell.ts';
import { DEFAULT_TIMINGS } from '../timings.ts';
import { SimNetwork } from './network.ts';

/** One Pod on a fake clock, its network, and a client on that network. */
function start(spec: Pod['spec']) {
  const clock = new FakeClock();
  const network = new SimNetwork();
  const pod: Pod = {
    metadata: { namespace: 'default', name: 'p', uid: '00000000-0000-4000-8000-000000000002' },
    spec: { nodeName: 'node-0', restartPolicy: 'Always', ...spec } as Pod['spec'],
  };
  const logs = new LogStore();
  const src: NetSource = {
    service: () => undefined,
    endpoints: () => undefined,
    serviceByIP: () => undefined,
    podByIP: (ip) => (worker.status().podIP === ip ? { ...worker.pod, status: worker.status() } : undefined),
    pod: () => undefined,
  };
  const worker: PodWorker = new PodWorker(pod, {
    clock,
    timings: DEFAULT_TIMINGS,
    speed: 1,
    node: fakeNode(),
    recorder: new MemoryRecorder(() => clock.now()),
    config: new MapConfigSource(),
    logs,
    net: src,
    network,
    onChange: () => {},
  });
  worker.start();
  const client = new ClusterNet(src, 'default', { network, clientIP: '10.244.0.99' });
  const step = async (seconds: number) => {
    for (let i = 0; i < seconds * 10; i++) await clock.step(100);
  };
  return { worker, client, step, logs };
}

test("nginx serves the index.html an init container wrote into a shared emptyDir; the image's own page otherwise", async () => {
  const shared = start({
    volumes: [{ name: 'html', emptyDir: {} }],
    initContainers: [
      {
        name: 'init',
        image: 'busybox:1.36',
        command: ['sh', '-c', 'echo "hello from init" > /work/index.html'],
        volumeMounts: [{ name: 'html', mountPath: '/work' }],
      },
    ],
    containers: [{ name: 'web', image: 'nginx:1.27', volumeMounts: [{ name: 'html', mountPath: '/usr/share/nginx/html' }] }],
  });
  await shared.step(8);
  const ip = shared.worker.status().podIP!;
  assert.deepEqual(shared.client.httpGet(`http://${ip}/`), { ok: true, status: 200, body: 'hello from init\n' });
  const missing = shared.client.httpGet(`http://${ip}/nope.html`);
  assert.ok(missing.ok && missing.status === 404 && missing.body.includes('<center>nginx/1.27.5</center>'));
  assert.match(
    shared.logs
      .get('default', 'p', 'web')!
      .current.map((l) => l.text)
      .join(''),
    /"GET \/ HTTP\/1.1" 200 16 /,
  );
  shared.worker.stop();

  const plain = start({ containers: [{ name: 'web', image: 'nginx' }] });
  await plain.step(4);
  const r = plain.client.httpGet(`http://${plain.worker.status().podIP}/`);
  assert.ok(r.ok && r.body.includes('<title>Welcome to nginx!</title>'));
  plain.worker.stop();
});

test('agnhost liveness answers 200 for 10 s, then 500, and its liveness probe restarts the container', async () => {
  const p = start({
    containers: [
      {
        name: 'liveness',
        image: 'registry.k8s.io/e2e-test-images/agnhost:2.40',
        args: ['liveness'],
        livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, initialDelaySeconds: 3, periodSeconds: 3 },
      },
    ],
  });
  await p.step(5);
  const ip = p.worker.status().podIP!;
  assert.deepEqual(p.client.httpGet(`http://${ip}:8080/healthz`), { ok: true, status: 200, body: 'ok' });
  await p.step(10);
  const late = p.client.httpGet(`http://${ip}:8080/healthz`);
  assert.ok(late.ok && late.status === 500 && late.body.startsWith('error: '));
  await p.step(15);
  assert.ok(p.worker.status().containerStatuses![0].restartCount >= 1);
  p.worker.stop();
});

test('redis answers PING through redis-cli and nc; serve-hostname answers its hostname; pause listens on nothing', async () => {
  const p = start({
    containers: [
      { name: 'redis', image: 'redis:7.2' },
      { name: 'hn', image: 'registry.k8s.io/e2e-test-images/agnhost:2.40', args: ['serve-hostname'] },
      { name: 'pause', image: 'registry.k8s.io/pause:3.10' },
    ],
  });
  await p.step(4);
  let out = '';
  const ctx = p.worker.execContext('redis', (t) => (out += t))!;
  assert.equal((await runProcess(['redis-cli', 'ping'], ctx)).exitCode, 0);
  assert.equal(out, 'PONG\n');
  out = '';
  await runProcess(['sh', '-c', 'redis-cli set k v >/dev/null; redis-cli get k'], ctx);
  assert.equal(out, 'v\n');
  out = '';
  await runProcess(['sh', '-c', 'echo PING | nc localhost 6379'], ctx);
  assert.equal(out, '+PONG\r\n');
  const ip = p.worker.status().podIP!;
  assert.deepEqual(p.client.httpGet(`http://${ip}:9376/`), { ok: true, status: 200, body: 'p' });
  // redis-cli is redis's, not every image's.
  out = '';
  const hn = p.worker.execContext('pause', (t) => (out += t))!;
  assert.equal((await runProcess(['redis-cli', 'ping'], hn)).exitCode, 127);
  p.worker.stop();
});

test('the perl image computes pi for the Job lab', async () => {
  const p = start({
    restartPolicy: 'Never',
    containers: [{ name: 'pi', image: 'perl:5.34.0', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'] }],
  });
  await p.step(5);
  const st = p.worker.status();
  assert.equal(st.phase, 'Succeeded');
  const text = p.logs
    .get('default', 'p', 'pi')!
    .current.map((l) => l.text)
    .join('');
  assert.equal(text.length, 2002);
  assert.ok(text.startsWith('3.14159265358979323846264338327950288419716939937510'));
  p.worker.stop();
});

test('kubernetes-bootcamp answers as it does; node as PID 1 ignores SIGTERM and is killed when the grace period ends', async () => {
  const p = start({
    terminationGracePeriodSeconds: 5,
    containers: [{ name: 'app', image: 'gcr.io/google-samples/kubernetes-bootcamp:v1' }],
  });
  await p.step(4);
  const ip = p.worker.status().podIP!;
  assert.deepEqual(p.client.httpGet(`http://${ip}:8080/`), {
    ok: true,
    status: 200,
    body: 'Hello Kubernetes bootcamp! | Running on: p | v=1\n',
  });
  // A shell in the image is still a shell.
  let out = '';
  await runProcess(
    ['sh', '-c', 'echo hi'],
    p.worker.execContext('app', (t) => (out += t))!,
  );
  assert.equal(out, 'hi\n');
  p.worker.update({
    ...p.worker.pod,
    metadata: { ...p.worker.pod.metadata, deletionTimestamp: '2026-01-01T00:00:09Z', deletionGracePeriodSeconds: 5 },
  });
  await p.step(3);
  assert.ok(p.worker.status().containerStatuses![0].state?.running);
  await p.step(3);
  assert.equal(p.worker.status().containerStatuses![0].state?.terminated?.exitCode, 137);
  p.worker.stop();
});

test('busybox nslookup prints the resolver the Pod uses and every address', async () => {
  const p = start({ dnsPolicy: 'Default', containers: [{ name: 'bb', image: 'busybox:1.36', command: ['sleep', '3600'] }] });
  await p.step(4);
  let out = '';
  const code = (
    await runProcess(
      ['nslookup', 'kubernetes.default'],
      p.worker.execContext('bb', (t) => (out += t))!,
    )
  ).exitCode;
  assert.equal(code, 1);
  assert.equal(out, "Server:\t\t172.18.0.1\nAddress:\t172.18.0.1:53\n\n** server can't find kubernetes.default: NXDOMAIN\n\n");
  out = '';
  await runProcess(
    ['cat', '/etc/resolv.conf'],
    p.worker.execContext('bb', (t) => (out += t))!,
  );
  assert.equal(out, 'nameserver 172.18.0.1\n');
  p.worker.stop();
});

test("kubelet's /etc/hosts names the Pod in its subdomain and adds hostAliases", async () => {
  const p = start({
    hostname: 'web-0',
    subdomain: 'nginx',
    hostAliases: [{ ip: '10.1.2.3', hostnames: ['foo.local', 'bar.local'] }],
    containers: [{ name: 'bb', image: 'busybox:1.36', command: ['sleep', '3600'] }],
  });
  await p.step(4);
  let out = '';
  await runProcess(
    ['cat', '/etc/hosts'],
    p.worker.execContext('bb', (t) => (out += t))!,
  );
  const ip = p.worker.status().podIP!;
  assert.equal(
    out,
    `# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n${ip}\tweb-0.nginx.default.svc.cluster.local\tweb-0\n\n# Entries added by HostAliases.\n10.1.2.3\tfoo.local\tbar.local\n`,
  );
  p.worker.stop();
});
