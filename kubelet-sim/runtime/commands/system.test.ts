// Table tests of the applets that show the container and its machine
// (id, whoami, ps, top, date, uname, nproc, free, hostname, env, which,
// sleep, ping) against what busybox 1.36 prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import { ClusterNet } from '../cluster-net.ts';
import { checkTable, runSh } from './test-helpers.ts';

test('id and whoami: root by default, the securityContext user when given', async () => {
  await checkTable(
    [
      { sh: 'id', out: 'uid=0(root) gid=0(root) groups=0(root),10(wheel)\n' },
      { sh: 'id -u; id -g; id -un; whoami; groups', out: '0\n0\nroot\nroot\nroot wheel\n' },
    ],
    assert.deepEqual,
  );
  const r = await runSh('id; id -G; whoami', { ctx: { user: { uid: 1000, gid: 3000, groups: [2000, 3000, 4000] } } });
  assert.deepEqual(r, { out: 'uid=1000 gid=3000 groups=2000,3000,4000\n2000 3000 4000\n', err: 'whoami: unknown uid 1000\n', code: 1 });
  const nobody = await runSh('id; whoami', { ctx: { user: { uid: 65534, gid: 65534 } } });
  assert.equal(nobody.out, 'uid=65534(nobody) gid=65534(nobody) groups=65534(nobody)\nnobody\n');
});

test('ps and top: PID 1 is the container command', async () => {
  const r = await runSh('sleep 100 & ps; top -b -n 1 | tail -n +4');
  assert.equal(
    r.out,
    'PID   USER     TIME  COMMAND\n    1 root      0:00 sh -c sleep 100 & ps; top -b -n 1 | tail -n +4\n    7 root      0:00 sh\n    8 root      0:00 sleep 100\n    9 root      0:00 ps\n' +
      '  PID  PPID USER     STAT   VSZ %VSZ CPU %CPU COMMAND\n    1     0 root     S     1336   0%   0   0% sh -c sleep 100 & ps; top -b -n 1 | tail -n +4\n    7     1 root     S     1336   0%   0   0% sh\n    8     7 root     S     1336   0%   0   0% sleep 100\n   10     1 root     S     1336   0%   0   0% tail -n +4\n   11     1 root     R     1336   0%   0   0% top -b -n 1\n',
  );
});

test('date, uname, nproc, free, hostname, env, which, sleep', () =>
  checkTable(
    [
      { sh: 'date', out: 'Thu Jan  1 00:00:00 UTC 2026\n' },
      { sh: 'date +%Y-%m-%dT%H:%M:%S', out: '2026-01-01T00:00:00\n' },
      { sh: 'date -d @0 +%s:%A:%B:%j', out: '0:Thursday:January:001\n' },
      { sh: 'date -u +"%D %T %Z"', out: '01/01/26 00:00:00 UTC\n' },
      { sh: 'sleep 1.5; date +%T', out: '00:00:01\n' },
      { sh: 'sleep 1m; date +%T', out: '00:01:00\n' },
      { sh: 'sleep x', out: '', err: "sleep: invalid number 'x'\n", code: 1 },
      { sh: 'uname; uname -r; uname -m', out: 'Linux\n6.1.0-ksim\nx86_64\n' },
      { sh: 'uname -a', out: 'Linux web-0 6.1.0-ksim #1 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n' },
      { sh: 'nproc', out: '4\n' },
      { sh: 'free | head -n 1', out: '              total        used        free      shared  buff/cache   available\n' },
      { sh: "free | awk 'NR==2 {print $2}'", out: '16777216\n' },
      { sh: 'hostname; hostname -i', out: 'web-0\n10.244.1.7\n' },
      { sh: 'env | grep ^HOME=; env -i A=1 env', out: 'HOME=/root\nA=1\n' },
      { sh: 'FOO=bar env | grep FOO', out: 'FOO=bar\n' },
      { sh: 'which sh ls wget; which nosuch; echo $?', out: '/bin/sh\n/bin/ls\n/usr/bin/wget\n1\n' },
      { sh: 'printenv HOME; printenv NOPE; echo $?', out: '/root\n1\n' },
    ],
    assert.deepEqual,
  ));

test('ping: a Pod IP answers once a second; a ClusterIP does not (kube-proxy rewrites only its ports)', async () => {
  const pod: Pod = {
    metadata: { name: 'web-1', namespace: 'default' },
    spec: { containers: [] },
    status: { phase: 'Running', podIP: '10.244.1.5' },
  };
  const svc: Service = { metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.96.0.20', ports: [{ port: 80 }] } };
  const eps: Endpoints = { subsets: [{ addresses: [{ ip: '10.244.1.5' }], ports: [{ port: 80 }] }] };
  const net = new ClusterNet(
    {
      service: (_ns, n) => (n === 'web' ? svc : undefined),
      endpoints: () => eps,
      serviceByIP: (ip) => (ip === '10.96.0.20' ? svc : undefined),
      podByIP: (ip) => (ip === '10.244.1.5' ? pod : undefined),
      pod: () => pod,
    },
    'default',
  );
  const r = await runSh('ping -c 2 10.244.1.5; date +%T', { ctx: { net } });
  assert.deepEqual(r, {
    out: 'PING 10.244.1.5 (10.244.1.5): 56 data bytes\n64 bytes from 10.244.1.5: seq=0 ttl=63 time=0.045 ms\n64 bytes from 10.244.1.5: seq=1 ttl=63 time=0.082 ms\n\n--- 10.244.1.5 ping statistics ---\n2 packets transmitted, 2 packets received, 0% packet loss\nround-trip min/avg/max = 0.045/0.063/0.082 ms\n00:00:01\n',
    err: '',
    code: 0,
  });
  const s = await runSh('ping -c 2 web', { ctx: { net } });
  assert.deepEqual(s, {
    out: 'PING web (10.96.0.20): 56 data bytes\n\n--- web ping statistics ---\n2 packets transmitted, 0 packets received, 100% packet loss\n',
    err: '',
    code: 1,
  });
  assert.deepEqual(await runSh('ping -c 1 nosuch', { ctx: { net } }), { out: '', err: "ping: bad address 'nosuch'\n", code: 1 });
});

test('base64, md5sum, ip addr, ifconfig', () =>
  checkTable(
    [
      { sh: 'echo -n admin | base64; echo -n YWRtaW4= | base64 -d; echo', out: 'YWRtaW4=\nadmin\n' },
      {
        sh: 'echo hi | md5sum; echo hi | sha256sum',
        out: '764efa883dda1e11db47671c4a3bbd9e  -\n98ea6e4f216f2fb4b69fff9b3a44842c38686ca685f3f55dc48c5d3fb1107be4  -\n',
      },
      { sh: 'ip addr | grep inet', out: '    inet 127.0.0.1/8 scope host lo\n    inet 10.244.1.7/24 brd 10.244.1.255 scope global eth0\n' },
      { sh: 'ip route', out: 'default via 10.244.1.1 dev eth0 \n10.244.1.0/24 dev eth0 scope link  src 10.244.1.7 \n' },
      {
        sh: 'ifconfig | grep "inet addr"',
        out: '          inet addr:10.244.1.7  Bcast:10.244.1.255  Mask:255.255.255.0\n          inet addr:127.0.0.1  Mask:255.0.0.0\n',
      },
    ],
    assert.deepEqual,
  ));
