import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { PersistentVolumeClaim, Pod } from 'kubernetes-types/core/v1.js';
import { newVersionedPod } from './identity.ts';
import { planStatefulSet, statusToWrite, type PlanInput } from './plan.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const ago = (s: number) => new Date(NOW - s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

function set(o: Partial<NonNullable<StatefulSet['spec']>> & { image?: string } = {}): StatefulSet {
  const { image, ...spec } = o;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'ns', uid: 'set-uid', generation: 2 },
    spec: {
      serviceName: 'nginx',
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: image ?? 'new' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'] } }],
      ...spec,
    },
  };
}

type PodState = 'ready' | 'pending' | 'running' | 'failed' | 'terminating' | 'fresh';

/** A Pod of `s` at `ordinal`, made as the controller makes it, at `rev` ('old' or 'new'), in `state`. */
function pod(s: StatefulSet, ordinal: number, state: PodState = 'ready', rev: 'old' | 'new' = 'new'): Pod {
  const base = rev === 'old' ? withImage(s, 'old') : s;
  const made = newVersionedPod(base, base, `web-${rev}`, `web-${rev}`, ordinal);
  const ready = state === 'ready' || state === 'terminating' || state === 'fresh';
  return {
    ...made,
    metadata: { ...made.metadata, uid: `pod-uid-${ordinal}`, ...(state === 'terminating' ? { deletionTimestamp: ago(1) } : {}) },
    status: {
      phase: state === 'pending' ? 'Pending' : state === 'failed' ? 'Failed' : 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: ago(state === 'fresh' ? 2 : 600) }],
    },
  };
}

function withImage(s: StatefulSet, image: string): StatefulSet {
  const c = structuredClone(s);
  c.spec!.template.spec!.containers[0].image = image;
  return c;
}

function input(s: StatefulSet, pods: Pod[], extra: Partial<PlanInput> = {}): PlanInput {
  return {
    set: s,
    currentSet: withImage(s, 'old'),
    updateSet: s,
    currentRevision: 'web-old',
    updateRevision: 'web-new',
    collisionCount: 0,
    pods,
    claim: () => undefined,
    now: NOW,
    minReadyMs: 0,
    ...extra,
  };
}

/** The plan as "op name" strings, phase by phase. */
function ops(i: PlanInput): string[][] {
  return planStatefulSet(i).phases.map((phase) => phase.flatMap((u) => u.ops.map((op) => `${op} ${u.pod.metadata!.name}`)));
}

const s3 = set();
const cases: [string, PlanInput, string[][]][] = [
  ['OrderedReady from nothing: web-0 alone', input(s3, []), [['create web-0']]],
  ['OrderedReady waits for a Pending web-0 (and makes its missing claims)', input(s3, [pod(s3, 0, 'pending')]), [['claims web-0']]],
  ['OrderedReady waits for a Running, not Ready web-0', input(s3, [pod(s3, 0, 'running')]), [[]]],
  ['OrderedReady: web-0 Ready, so web-1 comes', input(s3, [pod(s3, 0)]), [['create web-1']]],
  ['OrderedReady waits for web-0 to be available for minReadySeconds', input(s3, [pod(s3, 0, 'fresh')], { minReadyMs: 10_000 }), [[]]],
  [
    'Parallel from nothing: all three at once',
    input(set({ podManagementPolicy: 'Parallel' }), []),
    [['create web-0', 'create web-1', 'create web-2'], [], []],
  ],
  [
    'Parallel does not wait for a Pending web-0',
    input(set({ podManagementPolicy: 'Parallel' }), [pod(s3, 0, 'pending')]),
    [['claims web-0', 'create web-1', 'create web-2'], [], []],
  ],
  ['a Failed Pod is deleted and blocks OrderedReady', input(s3, [pod(s3, 0, 'failed'), pod(s3, 1)]), [['delete web-0']]],
  ['all Ready at the update revision: nothing to do', input(s3, [pod(s3, 0), pod(s3, 1), pod(s3, 2)]), [[], [], [], []]],
  [
    'OrderedReady scale down: the highest ordinal only',
    input(set({ replicas: 1 }), [pod(s3, 0), pod(s3, 1), pod(s3, 2)]),
    [[], [], ['delete web-2']],
  ],
  [
    'OrderedReady scale down waits while a condemned Pod terminates',
    input(set({ replicas: 1 }), [pod(s3, 0), pod(s3, 1), pod(s3, 2, 'terminating')]),
    [[], [], []],
  ],
  [
    'OrderedReady scale down: an unhealthy web-2 is the first unhealthy, so it may go',
    input(set({ replicas: 1 }), [pod(s3, 0), pod(s3, 1), pod(s3, 2, 'running')]),
    [[], [], ['delete web-2']],
  ],
  [
    'OrderedReady scale down: a healthy web-2 goes before an unhealthy web-1',
    input(set({ replicas: 1 }), [pod(s3, 0), pod(s3, 1, 'running'), pod(s3, 2)]),
    [[], [], ['delete web-2']],
  ],
  [
    'OrderedReady scale down waits for an unhealthy replica',
    input(set({ replicas: 1 }), [pod(s3, 0, 'running'), pod(s3, 1), pod(s3, 2)]),
    [[]],
  ],
  [
    'Parallel scale down: every condemned Pod at once',
    input(set({ replicas: 1, podManagementPolicy: 'Parallel' }), [pod(s3, 0), pod(s3, 1), pod(s3, 2)]),
    [[], [], ['delete web-2', 'delete web-1'], []],
  ],
  [
    'rolling update: the highest ordinal not at the update revision',
    input(s3, [pod(s3, 0, 'ready', 'old'), pod(s3, 1, 'ready', 'old'), pod(s3, 2, 'ready', 'old')]),
    [[], [], [], ['delete web-2']],
  ],
  [
    'rolling update waits while a Pod is unavailable',
    input(s3, [pod(s3, 0, 'ready', 'old'), pod(s3, 1, 'ready', 'old'), pod(s3, 2, 'running')]),
    [[]],
  ],
  [
    'rolling update with partition 2 leaves web-0 and web-1 alone',
    input(set({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }), [
      pod(s3, 0, 'ready', 'old'),
      pod(s3, 1, 'ready', 'old'),
      pod(s3, 2),
    ]),
    [[], [], [], []],
  ],
  [
    'rolling update with maxUnavailable 2 takes two at a time',
    input(set({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } } }), [
      pod(s3, 0, 'ready', 'old'),
      pod(s3, 1, 'ready', 'old'),
      pod(s3, 2, 'ready', 'old'),
    ]),
    [[], [], [], ['delete web-2', 'delete web-1']],
  ],
  [
    'rolling update with maxUnavailable 50% of 3 rounds down to 1',
    input(set({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: '50%' } } }), [
      pod(s3, 0, 'ready', 'old'),
      pod(s3, 1, 'ready', 'old'),
      pod(s3, 2, 'ready', 'old'),
    ]),
    [[], [], [], ['delete web-2']],
  ],
  [
    'OnDelete never deletes for an update',
    input(set({ updateStrategy: { type: 'OnDelete' } }), [
      pod(s3, 0, 'ready', 'old'),
      pod(s3, 1, 'ready', 'old'),
      pod(s3, 2, 'ready', 'old'),
    ]),
    [[], [], []],
  ],
  [
    'ordinals.start 5: web-5 and web-6 wanted, web-4 condemned',
    input(set({ replicas: 2, ordinals: { start: 5 } }), [pod(s3, 4), pod(s3, 5), pod(s3, 6)]),
    [[], [], ['delete web-4']],
  ],
  [
    'a Pod that lost its claim volume is updated',
    input(s3, [{ ...pod(s3, 0), spec: { containers: [] } }, pod(s3, 1), pod(s3, 2)]),
    [['update web-0'], [], [], []],
  ],
];

for (const [name, i, want] of cases) {
  test(`plan: ${name}`, () => assert.deepEqual(ops(i), want));
}

test('plan: a missing Pod below the partition is made at the current revision, above it at the update revision', () => {
  const s = set({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } }, podManagementPolicy: 'Parallel' });
  const plan = planStatefulSet(input(s, []));
  const made = plan.phases[0].map((u) => [
    u.pod.metadata!.name,
    u.pod.metadata!.labels!['controller-revision-hash'],
    u.pod.spec!.containers[0].image,
  ]);
  assert.deepEqual(made, [
    ['web-0', 'web-old', 'old'],
    ['web-1', 'web-old', 'old'],
    ['web-2', 'web-new', 'new'],
  ]);
});

test('plan: status counts created, ready, available, current and updated Pods', () => {
  const pods = [pod(s3, 0, 'ready', 'old'), pod(s3, 1, 'fresh'), pod(s3, 2, 'pending')];
  const { status } = planStatefulSet(input(s3, pods, { minReadyMs: 10_000 }));
  assert.deepEqual(status, {
    replicas: 3,
    readyReplicas: 2,
    availableReplicas: 1,
    currentReplicas: 1,
    updatedReplicas: 2,
    currentRevision: 'web-old',
    updateRevision: 'web-new',
    collisionCount: 0,
    observedGeneration: 2,
  });
});

test('plan: a rolling update counts the Pod it deletes out of currentReplicas', () => {
  const pods = [0, 1, 2].map((o) => pod(s3, o, 'ready', 'old'));
  assert.equal(planStatefulSet(input(s3, pods)).status.currentReplicas, 2);
});

test('plan: a set being deleted only reports status', () => {
  const s = { ...s3, metadata: { ...s3.metadata, deletionTimestamp: ago(1) } };
  const plan = planStatefulSet(input(s, [pod(s3, 0)]));
  assert.deepEqual(plan.phases, []);
  assert.equal(plan.status.replicas, 1);
});

const claimOf = (name: string, refs: PersistentVolumeClaim['metadata'] = {}): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'ns', uid: `${name}-uid`, ...refs },
});

test('plan: under whenScaled Delete a condemned Pod gets its claims handed to it, then goes', () => {
  const s = set({ replicas: 1, persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete', whenDeleted: 'Retain' } });
  const claims = new Map([0, 1].map((o) => [`www-web-${o}`, claimOf(`www-web-${o}`)]));
  assert.deepEqual(ops(input(s, [pod(s, 0), pod(s, 1)], { updateSet: s, claim: (n) => claims.get(n) })), [
    [],
    ['retention web-1'],
    ['delete web-1'],
  ]);
});

test('plan: a claim still owned by a previous web-1 holds the new web-1 back', () => {
  const s = set({ persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete', whenDeleted: 'Retain' }, podManagementPolicy: 'Parallel' });
  const stale = claimOf('www-web-1', {
    ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web-1', uid: 'gone', controller: true }],
  });
  assert.deepEqual(ops(input(s, [pod(s, 0)], { updateSet: s, claim: (n) => (n === 'www-web-1' ? stale : undefined) }))[0], [
    'create web-2',
  ]);
});

test('statusToWrite: completes a finished rolling update and skips an unchanged status', () => {
  const s = { ...s3, status: { replicas: 0 } };
  const planned = {
    replicas: 3,
    readyReplicas: 3,
    availableReplicas: 3,
    currentReplicas: 1,
    updatedReplicas: 3,
    currentRevision: 'web-old',
    updateRevision: 'web-new',
    collisionCount: 0,
    observedGeneration: 2,
  };
  const written = statusToWrite(s, planned)!;
  assert.equal(written.currentRevision, 'web-new');
  assert.equal(written.currentReplicas, 3);
  assert.equal(statusToWrite({ ...s3, status: written }, planned), undefined);
  assert.ok(statusToWrite({ ...s3, status: { ...written, observedGeneration: 1 } }, planned), 'a newer generation is written');
});
