import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  estimatePodTermination,
  failureConditions,
  finalizedSpecFinalizers,
  gvrString,
  outcomeOf,
  requeueAfterMs,
  updateConditions,
  type NamespaceCondition,
  type ResourceOutcome,
} from './plan.ts';
import type { Pod } from 'kubernetes-types/core/v1.js';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const podsRt = { group: '', version: 'v1', plural: 'pods' };
const deployRt = { group: 'apps', version: 'v1', plural: 'deployments' };
const pod = (grace: number | undefined, phase = 'Running'): Pod => ({
  spec: { containers: [], terminationGracePeriodSeconds: grace },
  status: { phase },
});

test('estimatePodTermination: the longest grace period of live Pods, 0 once it has passed', () => {
  const cases: [string, Pod[], number, number, number][] = [
    ['no pods', [], 0, 1, 0],
    ['longest grace period', [pod(30), pod(60), pod(undefined)], 1_000, 1, 60],
    ['terminal pods do not count', [pod(30, 'Succeeded'), pod(90, 'Failed'), pod(10)], 0, 1, 10],
    ['the grace period has passed since the namespace was deleted', [pod(30)], 30_000, 1, 0],
    ['with --speed 10, 3 s is 30 simulated seconds', [pod(30)], 3_000, 10, 0],
    ['with --speed 10, 2 s is not yet', [pod(30)], 2_000, 10, 30],
  ];
  for (const [why, pods, elapsedMs, speed, want] of cases) assert.equal(estimatePodTermination(pods, T0, T0 + elapsedMs, speed), want, why);
});

test('outcomeOf: what one resource has left after its deletecollection', () => {
  assert.deepEqual(outcomeOf(deployRt, 'team', [], 0), {
    groupResource: 'deployments.apps',
    estimateSeconds: 0,
    remaining: 0,
    finalizers: {},
  });
  assert.deepEqual(
    outcomeOf(podsRt, 'team', [{}, {}], 30),
    { groupResource: 'pods.', estimateSeconds: 30, remaining: 2, finalizers: {} },
    'graceful pods: wait the estimate',
  );
  assert.deepEqual(
    outcomeOf(
      deployRt,
      'team',
      [{ metadata: { finalizers: ['foregroundDeletion'] } }, { metadata: { finalizers: ['foregroundDeletion', 'example.com/x'] } }],
      0,
    ),
    { groupResource: 'deployments.apps', estimateSeconds: 15, remaining: 2, finalizers: { foregroundDeletion: 2, 'example.com/x': 1 } },
    'finalizers: wait the default 15 s',
  );
  assert.equal(outcomeOf(podsRt, 'team', [{}], 0).error, 'unexpected items still remain in namespace: team for gvr: /v1, Resource=pods');
  assert.equal(gvrString(deployRt), 'apps/v1, Resource=deployments');
});

const outcome = (groupResource: string, remaining: number, finalizers: Record<string, number> = {}): ResourceOutcome => ({
  groupResource,
  estimateSeconds: 0,
  remaining,
  finalizers,
});
const NOW = '2026-03-01T10:00:05Z';
const LATER = '2026-03-01T10:01:00Z';

test('failureConditions: kube reasons and messages, sorted', () => {
  const fresh = failureConditions(
    [outcome('pods.', 9), outcome('deployments.apps', 1, { foregroundDeletion: 1 }), outcome('configmaps.', 0)],
    ['b failed', 'a failed'],
    true,
    NOW,
  );
  assert.deepEqual(fresh, [
    {
      type: 'NamespaceContentRemaining',
      status: 'True',
      lastTransitionTime: NOW,
      reason: 'SomeResourcesRemain',
      message: 'Some resources are remaining: deployments.apps has 1 resource instances, pods. has 9 resource instances',
    },
    {
      type: 'NamespaceFinalizersRemaining',
      status: 'True',
      lastTransitionTime: NOW,
      reason: 'SomeFinalizersRemain',
      message: 'Some content in the namespace has finalizers remaining: foregroundDeletion in 1 resource instances',
    },
    {
      type: 'NamespaceDeletionContentFailure',
      status: 'True',
      lastTransitionTime: NOW,
      reason: 'ContentDeletionFailed',
      message: 'Failed to delete all resource types, 2 remaining: a failed, b failed',
    },
  ]);
  assert.deepEqual(failureConditions([outcome('pods.', 3)], [], false, NOW), [], 'the Pods-first pass reports no totals');
});

test('updateConditions: success variants, transition time only on a status change', () => {
  const first = updateConditions(undefined, [], NOW)!;
  assert.deepEqual(
    first.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
      ['NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed'],
      ['NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
    ],
  );
  assert.equal(updateConditions(first, [], LATER), undefined, 'nothing changed');

  const remaining = failureConditions([outcome('pods.', 2)], [], true, LATER);
  const second = updateConditions(first, remaining, LATER)!;
  const c = second.find((x) => x.type === 'NamespaceContentRemaining')!;
  assert.deepEqual([c.status, c.reason, c.lastTransitionTime], ['True', 'SomeResourcesRemain', LATER]);

  const fewer = failureConditions([outcome('pods.', 1)], [], true, '2026-03-01T10:02:00Z');
  const third = updateConditions(second, fewer, '2026-03-01T10:02:00Z')!;
  const d = third.find((x) => x.type === 'NamespaceContentRemaining')!;
  assert.equal(d.message, 'Some resources are remaining: pods. has 1 resource instances');
  assert.equal(d.lastTransitionTime, LATER, 'same status: the transition time stays');

  const foreign: NamespaceCondition = { type: 'example.com/Custom', status: 'True' };
  assert.deepEqual(updateConditions([foreign], [], NOW)![0], foreign, 'other conditions are kept');
});

test('requeue and finalize', () => {
  assert.equal(requeueAfterMs(30, 1), 16_000, 'kube: estimate/2 + 1 seconds');
  assert.equal(requeueAfterMs(15, 1), 8_000);
  assert.equal(requeueAfterMs(30, 10), 1_600);
  assert.deepEqual(finalizedSpecFinalizers(['kubernetes']), []);
  assert.deepEqual(finalizedSpecFinalizers(['kubernetes', 'z.example.com/x', 'a.example.com/y']), ['a.example.com/y', 'z.example.com/x']);
  assert.deepEqual(finalizedSpecFinalizers(undefined), []);
});
