import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DeploymentSpec, DeploymentStatus } from 'kubernetes-types/apps/v1.js';
import { getCondition, rolloutStatus, stamp } from './status.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const d = (status: DeploymentStatus = {}, spec: Partial<DeploymentSpec> = {}) => ({
  metadata: { name: 'web', generation: 2 },
  spec: {
    replicas: 3,
    progressDeadlineSeconds: 600,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    ...spec,
  },
  status,
});
const rs = (name: string, replicas: number, available: number) => ({
  metadata: { name },
  spec: { replicas },
  status: { replicas, readyReplicas: available, availableReplicas: available },
});

test('a finished rollout is Available and Progressing with NewReplicaSetAvailable', () => {
  const newRS = rs('web-new', 3, 3);
  const { status, recheckInMs } = rolloutStatus(d(), [newRS], newRS, NOW, 1);
  assert.equal(getCondition(status, 'Available')!.reason, 'MinimumReplicasAvailable');
  assert.equal(getCondition(status, 'Available')!.message, 'Deployment has minimum availability.');
  assert.equal(getCondition(status, 'Progressing')!.reason, 'NewReplicaSetAvailable');
  assert.equal(getCondition(status, 'Progressing')!.message, 'ReplicaSet "web-new" has successfully progressed.');
  assert.equal(recheckInMs, undefined);
  assert.deepEqual([status.replicas, status.updatedReplicas, status.availableReplicas, status.observedGeneration], [3, 3, 3, 2]);
});

test('progress refreshes ReplicaSetUpdated; no progress past the deadline is ProgressDeadlineExceeded', () => {
  const oldRS = rs('web-old', 3, 3);
  const newRS = rs('web-new', 1, 0);
  const first = rolloutStatus(d({ updatedReplicas: 0, replicas: 3 }), [oldRS, newRS], newRS, NOW, 1);
  const p = getCondition(first.status, 'Progressing')!;
  assert.equal(p.reason, 'ReplicaSetUpdated');
  assert.equal(p.message, 'ReplicaSet "web-new" is progressing.');
  assert.equal(first.recheckInMs, 601_000);
  const stuckSince = { ...p, lastUpdateTime: stamp(NOW - 601_000), lastTransitionTime: stamp(NOW - 601_000) };
  const stuck = rolloutStatus(d({ ...first.status, conditions: [stuckSince] }), [oldRS, newRS], newRS, NOW, 1);
  const timedOut = getCondition(stuck.status, 'Progressing')!;
  assert.equal(timedOut.status, 'False');
  assert.equal(timedOut.reason, 'ProgressDeadlineExceeded');
  assert.equal(timedOut.message, 'ReplicaSet "web-new" has timed out progressing.');
  const fast = rolloutStatus(
    d({ ...first.status, conditions: [{ ...p, lastUpdateTime: stamp(NOW - 61_000) }] }),
    [oldRS, newRS],
    newRS,
    NOW,
    10,
  );
  assert.equal(getCondition(fast.status, 'Progressing')!.reason, 'ProgressDeadlineExceeded', 'the deadline divides by --speed');
});

test('too few available replicas is Available=False MinimumReplicasUnavailable', () => {
  const newRS = rs('web-new', 3, 1);
  const { status } = rolloutStatus(d(), [newRS], newRS, NOW, 1);
  const a = getCondition(status, 'Available')!;
  assert.equal(a.status, 'False');
  assert.equal(a.reason, 'MinimumReplicasUnavailable');
  assert.equal(a.message, 'Deployment does not have minimum availability.');
  assert.equal(status.unavailableReplicas, 2);
});
