// Node objects, addresses and Pod IPs: pure functions of the node's index.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLease, buildNode, DEFAULT_PROFILE } from './node-object.ts';
import { nodeIP, PodCidr, podCIDRFor } from './ipam.ts';

test('node addresses and podCIDRs follow the index without overlaps', () => {
  assert.equal(nodeIP(0), '172.18.0.2');
  assert.equal(nodeIP(300), '172.18.1.46');
  assert.equal(podCIDRFor(0), '10.244.0.0/24');
  assert.equal(podCIDRFor(257), '10.245.1.0/24');
  assert.equal(podCIDRFor(12 * 256), '100.64.0.0/24');
  const all = new Set(Array.from({ length: 10_000 }, (_, i) => podCIDRFor(i)));
  assert.equal(all.size, 10_000);
});

test('pod IPs are handed out round-robin from .2 and not reused at once', () => {
  const c = new PodCidr('10.244.3.0/24');
  assert.equal(c.allocate('a'), '10.244.3.2');
  assert.equal(c.allocate('b'), '10.244.3.3');
  assert.equal(c.allocate('a'), '10.244.3.2');
  c.release('a');
  assert.equal(c.allocate('c'), '10.244.3.4');
});

test('the Node a kubelet registers', () => {
  const n = buildNode(
    { name: 'node-1', index: 1 },
    { ...DEFAULT_PROFILE, zones: ['eu-west-1a', 'eu-west-1b'] },
    { host: '127.0.0.1', port: 10250 },
    Date.parse('2026-01-01T00:00:00Z'),
  );
  assert.deepEqual(n.status!.addresses, [
    { type: 'InternalIP', address: '172.18.0.3' },
    { type: 'Hostname', address: 'node-1' },
  ]);
  assert.deepEqual(n.status!.capacity, {
    cpu: '4',
    memory: '16Gi',
    pods: '110',
    'ephemeral-storage': '100Gi',
    'hugepages-1Gi': '0',
    'hugepages-2Mi': '0',
  });
  assert.equal(n.status!.nodeInfo!.kubeletVersion, 'v1.35.0');
  assert.equal(n.spec!.podCIDR, '10.244.1.0/24');
  assert.equal(n.metadata!.labels!['topology.kubernetes.io/zone'], 'eu-west-1b');
  assert.equal(n.metadata!.labels!['kubernetes.io/hostname'], 'node-1');
  assert.deepEqual(
    n.status!.conditions!.map((c) => `${c.type}=${c.status}:${c.reason}`),
    [
      'MemoryPressure=False:KubeletHasSufficientMemory',
      'DiskPressure=False:KubeletHasNoDiskPressure',
      'PIDPressure=False:KubeletHasSufficientPID',
      'Ready=True:KubeletReady',
    ],
  );
  assert.equal(n.status!.daemonEndpoints!.kubeletEndpoint!.Port, 10250);
  const lease = buildLease('node-1', 'uid-1', 40, Date.parse('2026-01-01T00:00:01.5Z'));
  assert.equal(lease.spec?.renewTime, '2026-01-01T00:00:01.500000Z');
  assert.equal(lease.metadata?.ownerReferences?.[0].uid, 'uid-1');
});
