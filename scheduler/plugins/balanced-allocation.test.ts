// NodeResourcesBalancedAllocation: 1 - the spread of cpu and memory fractions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from '../testing/harness.ts';
import { makeNode, makePod, type PodOptions } from '../testing/fixtures.ts';

const cases: { name: string; pod: PodOptions; want: Record<string, number> }[] = [
  // balanced: cpu 2/4, mem 2/4 -> std 0 -> 100; skewed: cpu 2/4, mem 2/8 -> |0.5-0.25|/2 = 0.125 -> 87.
  { name: 'equal fractions score 100', pod: { cpu: '2', memory: '2Gi' }, want: { balanced: 100, skewed: 87 } },
  { name: 'a pod without requests', pod: {}, want: { balanced: 100, skewed: 100 } },
];
for (const c of cases) {
  test(`BalancedAllocation: ${c.name}`, () => {
    const h = harness({
      nodes: [makeNode('balanced', { cpu: '4', memory: '4Gi' }), makeNode('skewed', { cpu: '4', memory: '8Gi' })],
      plugins: [['NodeResourcesBalancedAllocation', 1]],
    });
    assert.deepEqual(h.scores(makePod('p', c.pod)), c.want);
  });
}
