import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  limitWithBehavior,
  limitWithRules,
  newMemory,
  scaleDownLimitWithRules,
  scaleUpLimitWithRules,
  stabilizeRecommendation,
  stabilizeWithBehavior,
  storeScaleEvent,
  type Behavior,
} from './behavior.ts';

const NOW = 1_000_000_000;
const S = 1000;
const defaults = (): Behavior => ({
  scaleUp: {
    stabilizationWindowSeconds: 0,
    selectPolicy: 'Max',
    policies: [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ],
  },
  scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
});

test('stabilization without a behavior: the highest recommendation of the window wins; older ones are replaced', () => {
  const mem = newMemory();
  mem.recommendations.push({ replicas: 6, at: NOW - 200 * S }, { replicas: 9, at: NOW - 400 * S });
  assert.equal(stabilizeRecommendation(mem, 2, NOW, 300 * S), 6);
  // The 400 s old sample's slot took the new recommendation.
  assert.deepEqual(mem.recommendations, [
    { replicas: 6, at: NOW - 200 * S },
    { replicas: 2, at: NOW },
  ]);
  assert.equal(stabilizeRecommendation(mem, 2, NOW + 250 * S, 300 * S), 2);
});

test('rate without a behavior: max(2 x current, 4), then maxReplicas; minReplicas below', () => {
  assert.deepEqual(limitWithRules(1, 10, 1, 10), {
    replicas: 4,
    reason: 'ScaleUpLimit',
    message: 'the desired replica count is increasing faster than the maximum scale rate',
  });
  assert.equal(limitWithRules(3, 10, 1, 10).replicas, 6);
  assert.equal(limitWithRules(6, 20, 1, 10).reason, 'TooManyReplicas');
  assert.equal(limitWithRules(6, 20, 1, 10).replicas, 10);
  assert.deepEqual(limitWithRules(3, 0, 2, 10), {
    replicas: 2,
    reason: 'TooFewReplicas',
    message: 'the desired replica count is less than the minimum replica count',
  });
  assert.equal(limitWithRules(3, 5, 1, 10).reason, 'DesiredWithinRange');
});

test('scale-up policies: Max of 4 Pods and 100%, Min the smaller; Disabled keeps the count', () => {
  const b = defaults();
  assert.equal(scaleUpLimitWithRules(3, newMemory(), b.scaleUp, NOW, S), 7);
  assert.equal(scaleUpLimitWithRules(10, newMemory(), b.scaleUp, NOW, S), 20);
  assert.equal(scaleUpLimitWithRules(10, newMemory(), { ...b.scaleUp, selectPolicy: 'Min' }, NOW, S), 14);
  assert.equal(scaleUpLimitWithRules(10, newMemory(), { ...b.scaleUp, selectPolicy: 'Disabled' }, NOW, S), 10);
});

test('scale events of the period count against the policy; older ones do not', () => {
  const b = defaults();
  const mem = newMemory();
  storeScaleEvent(mem, b, 2, 6, NOW - 10 * S, S);
  // 6 now, 4 added 10 s ago: the period started at 2, so at most 2 + 4 = 6 (Pods) or 4 (100%).
  assert.equal(scaleUpLimitWithRules(6, mem, b.scaleUp, NOW, S), 6);
  assert.equal(scaleUpLimitWithRules(6, mem, b.scaleUp, NOW + 10 * S, S), 12);
  const down: Behavior['scaleDown'] = { selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] };
  const m2 = newMemory();
  storeScaleEvent(m2, { ...b, scaleDown: down }, 5, 4, NOW - 30 * S, S);
  assert.equal(scaleDownLimitWithRules(4, m2, down, NOW, S), 4);
  assert.equal(scaleDownLimitWithRules(4, m2, down, NOW + 31 * S, S), 3);
  assert.equal(scaleDownLimitWithRules(10, newMemory(), b.scaleDown, NOW, S), 0);
});

test('stabilization with a behavior: the lowest recent recommendation bounds a scale-up, the highest a scale-down', () => {
  const b = defaults();
  b.scaleUp.stabilizationWindowSeconds = 60;
  const mem = newMemory();
  mem.recommendations.push({ replicas: 3, at: NOW - 30 * S }, { replicas: 8, at: NOW - 100 * S });
  const up = stabilizeWithBehavior(mem, 2, 10, b, NOW, S);
  assert.deepEqual(up, {
    replicas: 3,
    reason: 'ScaleUpStabilized',
    message: 'recent recommendations were lower than current one, applying the lowest recent recommendation',
  });
  // Recent recommendations (8, and the 10 just recorded) hold a scale-down at the current count...
  const down = stabilizeWithBehavior(mem, 5, 1, b, NOW, S);
  assert.equal(down.replicas, 5);
  assert.equal(down.reason, 'ScaleDownStabilized');
  // ...and bring a larger count down only to the highest of them.
  assert.equal(stabilizeWithBehavior(mem, 12, 1, b, NOW, S).replicas, 10);
});

test('rate with a behavior: ScaleUpLimit, TooManyReplicas, ScaleDownLimit, TooFewReplicas, DesiredWithinRange', () => {
  const b = defaults();
  const mem = newMemory();
  assert.equal(limitWithBehavior(mem, 2, 20, 1, 30, b, NOW, S).reason, 'ScaleUpLimit');
  assert.equal(limitWithBehavior(mem, 2, 20, 1, 30, b, NOW, S).replicas, 6);
  assert.deepEqual(limitWithBehavior(mem, 2, 20, 1, 5, b, NOW, S).replicas, 5);
  assert.equal(limitWithBehavior(mem, 2, 20, 1, 5, b, NOW, S).reason, 'TooManyReplicas');
  const slow: Behavior = { ...b, scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }] } };
  assert.deepEqual(limitWithBehavior(mem, 10, 1, 1, 30, slow, NOW, S), {
    replicas: 5,
    reason: 'ScaleDownLimit',
    message: 'the desired replica count is decreasing faster than the maximum scale rate',
  });
  assert.equal(limitWithBehavior(mem, 10, 1, 3, 30, b, NOW, S).reason, 'TooFewReplicas');
  assert.equal(limitWithBehavior(mem, 10, 1, 3, 30, b, NOW, S).replicas, 3);
  assert.equal(limitWithBehavior(mem, 4, 5, 1, 30, b, NOW, S).reason, 'DesiredWithinRange');
});
