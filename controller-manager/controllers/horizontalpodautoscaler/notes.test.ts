// The step-through notes of an HPA sync: metric vs target, the replica arithmetic, tolerance and the limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planSync } from './plan.ts';
import { hpaNotes } from './notes.ts';
import { hpa, observe, pod, scale, usage } from './test-fixtures.ts';

test('notes show usage vs target, ceil(ratio * Pods) and the clamp to maxReplicas', () => {
  const notes = hpaNotes(planSync(observe(hpa({ maxReplicas: 4 }), scale(2), [pod('a'), pod('b')], usage({ a: '250m', b: '250m' }))));
  assert.deepEqual(notes, {
    have: { replicas: 2 },
    metrics: {
      'cpu resource utilization (percentage of request)': 'usage 125% / target 50% = ratio 2.50; ceil(2.50 * 2 Pods) = 5',
    },
    want: 'highest proposal: 5 replica(s)',
    limits: 'TooManyReplicas: the desired replica count is more than the maximum replica count (min 1, max 4): 4',
    decision: 'scale 2 -> 4: cpu resource utilization (percentage of request) above target',
  });
});

test('notes show a ratio within the tolerance keeping the count', () => {
  const notes = hpaNotes(planSync(observe(hpa(), scale(2), [pod('a'), pod('b')], usage({ a: '104m', b: '104m' }))));
  assert.equal(
    (notes.metrics as Record<string, string>)['cpu resource utilization (percentage of request)'],
    'usage 52% / target 50% = ratio 1.04; |1 - 1.04| <= tolerance 0.1: keep 2',
  );
  assert.equal(notes.limits, '2 is within min 1, max 10');
  assert.equal(notes.decision, 'keep 2 replica(s)');
});
