// Tables for the eviction manager's ranking and messages (ranking.ts), and
// the usage model it ranks by (usage.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { binaryQuantity, evictionMessage, isCriticalPod, podRequest, rankForEviction, type PodUsage } from './ranking.ts';
import { usageOf } from './usage.ts';

const Mi = 1024 * 1024;

function pu(name: string, usage: number, o: { request?: string; priority?: number; annotations?: Record<string, string> } = {}): PodUsage {
  const pod: Pod = {
    metadata: { name, namespace: 'default', annotations: o.annotations },
    spec: {
      priority: o.priority,
      containers: [{ name: 'c', resources: o.request ? { requests: { memory: o.request, 'ephemeral-storage': o.request } } : undefined }],
    },
  };
  return { pod, containers: [{ name: 'c', usage }] };
}

const names = (ps: PodUsage[]) => ps.map((p) => p.pod.metadata!.name);

test('memory: over requests first, then lower priority, then most usage above requests', () => {
  const cases: [string, PodUsage[], string[]][] = [
    [
      'BestEffort before Guaranteed within its request',
      [pu('guaranteed', 30 * Mi, { request: '64Mi' }), pu('besteffort', 3 * Mi)],
      ['besteffort', 'guaranteed'],
    ],
    [
      'both over their requests: the lower priority first',
      [pu('be-high', 5 * Mi, { priority: 1000 }), pu('burst-low', 90 * Mi, { request: '64Mi', priority: 0 })],
      ['burst-low', 'be-high'],
    ],
    [
      'within the same priority, most usage above requests first',
      [pu('a', 10 * Mi), pu('b', 80 * Mi, { request: '64Mi' }), pu('c', 20 * Mi)],
      ['c', 'b', 'a'],
    ],
    [
      'pods within requests come last, lower priority first among them',
      [pu('in-high', 10 * Mi, { request: '64Mi', priority: 100 }), pu('in-low', 10 * Mi, { request: '64Mi' }), pu('over', Mi)],
      ['over', 'in-low', 'in-high'],
    ],
    [
      'critical pods are never candidates',
      [
        pu('mirror', 500 * Mi, { annotations: { 'kubernetes.io/config.mirror': 'x' } }),
        pu('critical', 500 * Mi, { priority: 2_000_000_000 }),
        pu('x', Mi),
      ],
      ['x'],
    ],
  ];
  for (const [what, pods, want] of cases) assert.deepEqual(names(rankForEviction('memory', pods)), want, what);
});

test('pid: priority, then most processes; disk ranks as memory does, by ephemeral-storage', () => {
  assert.deepEqual(names(rankForEviction('pid', [pu('few', 1), pu('many', 5), pu('low', 1, { priority: -10 })])), ['low', 'many', 'few']);
  assert.deepEqual(names(rankForEviction('disk', [pu('within', Mi, { request: '1Gi' }), pu('over', Mi)])), ['over', 'within']);
});

test('evictionMessage and quantities as kubelet prints them', () => {
  assert.equal(binaryQuantity(100 * Mi), '100Mi');
  assert.equal(binaryQuantity(3280 * 1024), '3280Ki');
  assert.equal(binaryQuantity(1500), '1500');
  assert.equal(binaryQuantity(0), '0');
  const be = pu('be', 3280 * 1024);
  assert.equal(
    evictionMessage('memory', be, { quantity: '100Mi', available: '98Mi' }),
    'The node was low on resource: memory. Threshold quantity: 100Mi, available: 98Mi. Container c was using 3280Ki, request is 0, has larger consumption of memory. ',
  );
  // A container within its request is not named.
  assert.equal(evictionMessage('memory', pu('g', 30 * Mi, { request: '64Mi' })), 'The node was low on resource: memory. ');
  assert.equal(evictionMessage('pid', be), 'The node was low on resource: pids. ');
  assert.equal(podRequest(pu('g', 0, { request: '64Mi' }).pod, 'memory'), 64 * Mi);
  assert.equal(isCriticalPod({ metadata: { annotations: { 'kubernetes.io/config.source': 'file' } } }), true);
  assert.equal(isCriticalPod({ metadata: { annotations: { 'kubernetes.io/config.source': 'api' } } }), false);
});

test('the usage model: running containers only; memory from the image baseline and the command, capped at the limit', () => {
  const pod = (command: string[] | undefined, limit?: string, running = true): Pod => ({
    metadata: { name: 'p', namespace: 'default' },
    spec: { containers: [{ name: 'c', image: 'busybox', command, resources: limit ? { limits: { memory: limit } } : undefined }] },
    status: {
      containerStatuses: [
        { name: 'c', image: 'busybox', imageID: '', ready: true, restartCount: 0, state: running ? { running: {} } : { waiting: {} } },
      ],
    },
  });
  const hog = usageOf(pod(['sh', '-c', 'alloc 200Mi; sleep 3600']), 'memory').containers[0].usage;
  assert.ok(hog >= 200 * Mi, `holds what it allocated (${hog})`);
  assert.equal(usageOf(pod(['sh', '-c', 'alloc 200Mi; sleep 3600'], '64Mi'), 'memory').containers[0].usage, 64 * Mi);
  assert.deepEqual(usageOf(pod(['sleep', '1'], undefined, false), 'memory').containers, []);
  assert.equal(usageOf(pod(['stress', '--cpu', '2']), 'pid').containers[0].usage, 3);
  assert.equal(usageOf(pod(['sleep', '3600']), 'disk').containers[0].usage, Mi);
});
