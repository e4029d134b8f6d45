// TaintToleration: NoSchedule/NoExecute taints filter with kube's message;
// PreferNoSchedule taints lower the score; tolerations match as kube's do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harness } from '../testing/harness.ts';
import { makeNode, makePod } from '../testing/fixtures.ts';
import type { Toleration } from 'kubernetes-types/core/v1.js';
import { toleratesTaint } from './taint-toleration.ts';

const taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
const table: [string, Toleration, boolean][] = [
  ['equal key/value/effect', { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, true],
  ['default operator is Equal', { key: 'dedicated', value: 'gpu' }, true],
  ['wrong value', { key: 'dedicated', value: 'cpu' }, false],
  ['exists', { key: 'dedicated', operator: 'Exists' }, true],
  ['exists everything', { operator: 'Exists' }, true],
  ['other effect', { key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, false],
];
for (const [name, tol, want] of table) test(`toleratesTaint: ${name}`, () => assert.equal(toleratesTaint(tol, taint), want));

test('TaintToleration filter names the first untolerated taint', () => {
  const h = harness({
    nodes: [
      makeNode('a', { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }),
      makeNode('b', { taints: [taint] }),
    ],
    plugins: [['TaintToleration', 3]],
  });
  assert.equal(
    h.schedule(makePod('p')).message,
    '0/2 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }.',
  );
  assert.equal(h.schedule(makePod('q', { tolerations: [{ key: 'dedicated', operator: 'Exists' }] })).node, 'b');
});

test('TaintToleration score avoids PreferNoSchedule taints', () => {
  const h = harness({
    nodes: [makeNode('soft', { taints: [{ key: 'x', effect: 'PreferNoSchedule' }] }), makeNode('clean')],
    plugins: [['TaintToleration', 3]],
  });
  assert.deepEqual(h.scores(makePod('p')), { clean: 300, soft: 0 });
});
