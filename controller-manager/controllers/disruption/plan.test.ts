import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budgetStatus } from './plan.ts';
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { PodDisruptionBudgetSpec } from 'kubernetes-types/policy/v1.js';

const pod = (name: string, ready = true): Pod => ({
  metadata: { name },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const pods = [pod('a'), pod('b'), pod('c'), pod('d', false)];

test('budgets: minAvailable as a number or a percentage, maxUnavailable, recently evicted Pods', () => {
  const cases: [PodDisruptionBudgetSpec, number | undefined, string[], [number, number, number, number]][] = [
    [{ minAvailable: 2 }, undefined, [], [4, 2, 3, 1]],
    [{ minAvailable: 3 }, undefined, [], [4, 3, 3, 0]],
    [{ minAvailable: '50%' }, 4, [], [4, 2, 3, 1]],
    [{ minAvailable: '30%' }, 4, [], [4, 2, 3, 1]],
    [{ maxUnavailable: 1 }, 4, [], [4, 3, 3, 0]],
    [{ maxUnavailable: '50%' }, 4, [], [4, 2, 3, 1]],
    [{ minAvailable: 2 }, undefined, ['a'], [4, 2, 2, 0]],
  ];
  for (const [spec, scale, disrupted, [expected, desired, healthy, allowed]] of cases) {
    const s = budgetStatus({ spec }, pods, scale, new Set(disrupted));
    assert.deepEqual(
      [s.expectedPods, s.desiredHealthy, s.currentHealthy, s.disruptionsAllowed],
      [expected, desired, healthy, allowed],
      JSON.stringify(spec),
    );
  }
});
