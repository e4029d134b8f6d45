// The step-through notes of a StatefulSet sync: the ordinal it acts on and the one it waits on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { newVersionedPod } from './identity.ts';
import { planStatefulSet } from './plan.ts';
import { statefulSetNotes } from './notes.ts';

const set: StatefulSet = {
  metadata: { name: 'web', namespace: 'ns', uid: 'set-uid', generation: 1 },
  spec: {
    serviceName: 'nginx',
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    podManagementPolicy: 'OrderedReady',
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
  },
};

function plan(pods: Pod[]) {
  return planStatefulSet({
    set,
    currentSet: set,
    updateSet: set,
    currentRevision: 'web-1',
    updateRevision: 'web-1',
    collisionCount: 0,
    pods,
    claim: () => undefined,
    now: Date.parse('2026-01-01T00:00:00Z'),
    minReadyMs: 0,
  });
}

test('OrderedReady with web-0 Ready: create pod 1, then wait for it', () => {
  const ready: Pod = {
    ...newVersionedPod(set, set, 'web-1', 'web-1', 0),
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-12-31T00:00:00Z' }] },
  };
  const p = plan([ready]);
  assert.deepEqual(statefulSetNotes(set, [ready], p, true), {
    want: { replicas: 3 },
    have: { pods: 1, ready: 1, updated: 1 },
    podManagementPolicy: 'OrderedReady: one ordinal at a time, each Ready before the next',
    decision: 'create pod 1',
    wait: 'OrderedReady: create pod 1, then wait for it to be Running and Ready',
  });
});

test('OrderedReady waits for a Running, not Ready pod 0', () => {
  const running: Pod = { ...newVersionedPod(set, set, 'web-1', 'web-1', 0), status: { phase: 'Running' } };
  const notes = statefulSetNotes(set, [running], plan([running]), true);
  assert.equal(notes.decision, 'nothing to do now');
  assert.equal(notes.wait, 'OrderedReady waits for pod 0 to be Running and Ready');
});
