// The cluster looks like a kubeadm cluster, checked with the real kubectl on
// `ksim up --nodes 2`: a control-plane node with kube's role label and taint,
// the control plane's mirror Pods in kube-system whose status follows the
// real component processes (the scheduler process killed makes its Pod not
// ready, with kubelet's probe event), CoreDNS's Deployment Running and Ready
// behind the kube-dns Service, and a Pod's nslookup answered by 10.96.0.10.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster, ok, eventually } from './helpers/index.ts';

let c: Cluster;
before(async () => {
  c = await startCluster({ nodes: 2, speed: 10 });
});
after(() => c?.stop());

const jsonpath = async (args: string[], path: string) => ok(await c.k([...args, '-o', `jsonpath=${path}`])).trim();

test('kubectl get nodes: the control-plane node with its role and taint, besides the workers', async () => {
  await eventually('control-plane Ready', async () => /^control-plane\s+Ready\s+control-plane\s+/m.test(ok(await c.k(['get', 'nodes']))));
  const out = ok(await c.k(['get', 'nodes']));
  assert.match(out, /^node-0\s+Ready\s+<none>\s+/m);
  assert.match(out, /^node-1\s+Ready\s+<none>\s+/m);
  assert.equal(
    await jsonpath(['get', 'node', 'control-plane'], '{range .spec.taints[*]}{.key}:{.effect}{end}'),
    'node-role.kubernetes.io/control-plane:NoSchedule',
  );
  // The default namespace stays empty: the control plane's Pods are in kube-system.
  assert.match((await c.k(['get', 'pods'])).stderr, /No resources found in default namespace/);
});

test('kubectl get pods -n kube-system: mirror Pods of the control plane and CoreDNS, Running and Ready', async () => {
  const names = ['kube-apiserver-control-plane', 'kube-controller-manager-control-plane', 'kube-scheduler-control-plane'];
  await eventually(
    'mirror Pods Running 1/1',
    async () => {
      const out = ok(await c.k(['get', 'pods', '-n', 'kube-system']));
      return names.every((n) => new RegExp(`^${n}\\s+1/1\\s+Running\\s+0\\s+`, 'm').test(out));
    },
    30_000,
  );
  const annotations = await jsonpath(
    ['get', 'pod', '-n', 'kube-system', 'kube-scheduler-control-plane'],
    '{.metadata.annotations.kubernetes\\.io/config\\.source} {.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.spec.priorityClassName} {.spec.containers[0].livenessProbe.httpGet.path}',
  );
  assert.equal(annotations, 'file Node/control-plane system-node-critical /livez');
  assert.match(
    await jsonpath(
      ['get', 'pod', '-n', 'kube-system', 'kube-scheduler-control-plane'],
      '{.metadata.annotations.kubernetes\\.io/config\\.mirror}',
    ),
    /^[0-9a-f]{32}$/,
  );
  // A mirror Pod cannot be deleted away: kubelet creates it again.
  const uid = await jsonpath(['get', 'pod', '-n', 'kube-system', 'kube-apiserver-control-plane'], '{.metadata.uid}');
  ok(await c.k(['delete', 'pod', '-n', 'kube-system', 'kube-apiserver-control-plane', '--wait=false']));
  await eventually('mirror Pod back', async () => {
    const r = await c.k(['get', 'pod', '-n', 'kube-system', 'kube-apiserver-control-plane', '-o', 'jsonpath={.metadata.uid}']);
    return r.code === 0 && r.stdout.trim() !== '' && r.stdout.trim() !== uid;
  });

  ok(await c.k(['rollout', 'status', '-n', 'kube-system', 'deploy/coredns', '--timeout=60s']));
  const dns = ok(await c.k(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns']));
  assert.equal(dns.match(/^coredns-[a-z0-9]+-[a-z0-9]+\s+1\/1\s+Running\s+/gm)?.length, 2, dns);
  assert.equal(
    await jsonpath(['get', 'svc', '-n', 'kube-system', 'kube-dns'], '{.spec.clusterIP} {.spec.ports[*].port}'),
    '10.96.0.10 53 53 9153',
  );
  assert.equal(await jsonpath(['get', 'cm', '-n', 'kube-system', 'coredns'], '{.data.Corefile}').then((s) => s.startsWith('.:53 {')), true);
});

test('nslookup kubernetes.default from a Pod is answered by 10.96.0.10', async () => {
  ok(
    await c.k([
      'run',
      'dns',
      '--image=busybox:1.36',
      '--restart=Never',
      '--',
      'sh',
      '-c',
      'cat /etc/resolv.conf; nslookup kubernetes.default',
    ]),
  );
  await eventually('dns Succeeded', async () => (await jsonpath(['get', 'pod', 'dns'], '{.status.phase}')) === 'Succeeded');
  const out = ok(await c.k(['logs', 'dns']));
  assert.match(out, /^nameserver 10\.96\.0\.10$/m);
  assert.match(out, /Server:\s+10\.96\.0\.10/);
  assert.match(out, /Address:?\s+10\.96\.0\.1\b/);
});

test('the scheduler process killed: kube-scheduler-control-plane goes not ready, with kubelet probe event', async () => {
  const pid = c.pidOf('scheduler');
  process.kill(pid, 'SIGKILL');
  await eventually(
    'kube-scheduler not ready',
    async () => /^kube-scheduler-control-plane\s+0\/1\s+Running\s+/m.test(ok(await c.k(['get', 'pods', '-n', 'kube-system']))),
    30_000,
  );
  assert.equal(
    await jsonpath(['get', 'pod', '-n', 'kube-system', 'kube-scheduler-control-plane'], '{.status.conditions[?(@.type=="Ready")].reason}'),
    'ContainersNotReady',
  );
  const events = ok(
    await c.k([
      'get',
      'events',
      '-n',
      'kube-system',
      '--field-selector',
      'involvedObject.name=kube-scheduler-control-plane,reason=Unhealthy',
    ]),
  );
  assert.match(
    events,
    /Readiness probe failed: Get "http:\/\/127\.0\.0\.1:\d+\/readyz": dial tcp 127\.0\.0\.1:\d+: connect: connection refused/,
  );
  // The others are untouched.
  assert.match(ok(await c.k(['get', 'pods', '-n', 'kube-system'])), /^kube-controller-manager-control-plane\s+1\/1\s+Running\s+/m);
});
