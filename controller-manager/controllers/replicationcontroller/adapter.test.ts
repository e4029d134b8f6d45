import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, ReplicationController } from 'kubernetes-types/core/v1.js';
import { computeStatus, planReplicas, selects } from '../replicaset/plan.ts';
import { replicaSetOf } from './adapter.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const pod = (labels: Record<string, string>, ready = true): Pod => ({
  metadata: { name: 'p', labels, creationTimestamp: '2026-11-30T11:00:00Z' },
  spec: { containers: [] },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: '2026-11-30T11:00:00Z' }],
  },
});
const rc = (selector: Record<string, string> | undefined, replicas = 2): ReplicationController => ({
  metadata: { name: 'web', namespace: 'default', generation: 4 },
  spec: { replicas, selector, template: { metadata: { labels: { app: 'web', tier: 'fe' } }, spec: { containers: [] } } },
});

test('the map selector selects as matchLabels', () => {
  const cases: [string, Record<string, string> | undefined, Record<string, string>, boolean][] = [
    ['same labels', { app: 'web' }, { app: 'web' }, true],
    ['a subset of the labels', { app: 'web' }, { app: 'web', tier: 'fe' }, true],
    ['another value', { app: 'web' }, { app: 'api' }, false],
    ['a key missing', { app: 'web', tier: 'fe' }, { app: 'web' }, false],
    ['no selector matches nothing', undefined, { app: 'web' }, false],
  ];
  for (const [why, selector, labels, want] of cases) assert.equal(selects(replicaSetOf(rc(selector)), pod(labels)), want, why);
});

test('the ReplicaSet plan and status work on an RC', () => {
  const rs = replicaSetOf(rc({ app: 'web' }, 3));
  assert.equal(planReplicas(rs, [pod({ app: 'web' })], NOW).create, 2);
  assert.equal(planReplicas(replicaSetOf({ metadata: {}, spec: { selector: { a: 'b' } } }), [], NOW).create, 1, 'replicas defaults to 1');
  const { status } = computeStatus(rs, [pod({ app: 'web', tier: 'fe' }), pod({ app: 'web' }, false)], NOW);
  assert.deepEqual(status, { replicas: 2, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 4 });
});
