// Table tests for strategic merge patch on maps and directives ($patch,
// $retainKeys, null), the errors kube reports, and purity.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSchemaFor } from './merge-keys.ts';
import { PatchError } from './patch-error.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';

type Case = [name: string, kind: string, original: unknown, patch: unknown, want: unknown];

describe('strategic merge patch: maps and directives', () => {
  const cases: Case[] = [
    ['adds and changes keys', 'ConfigMap', { data: { a: '1' } }, { data: { a: '2', b: '3' } }, { data: { a: '2', b: '3' } }],
    [
      'null deletes a key',
      'Pod',
      { metadata: { labels: { a: '1', b: '2' } } },
      { metadata: { labels: { a: null } } },
      { metadata: { labels: { b: '2' } } },
    ],
    ['null for a missing key is dropped', 'Pod', { metadata: {} }, { metadata: { labels: null } }, { metadata: {} }],
    [
      'nulls inside a new subtree are dropped',
      'Pod',
      { metadata: {} },
      { metadata: { labels: { a: '1', b: null } } },
      { metadata: { labels: { a: '1' } } },
    ],
    ['a value of another type replaces', 'Pod', { spec: { x: [1] } }, { spec: { x: { y: 1 } } }, { spec: { x: { y: 1 } } }],
    [
      '$patch: replace on a map replaces it',
      'Pod',
      { metadata: { labels: { a: '1', b: '2' } } },
      { metadata: { labels: { $patch: 'replace', c: '3' } } },
      { metadata: { labels: { c: '3' } } },
    ],
    [
      '$patch: delete on a map empties it',
      'Deployment',
      { spec: { template: { metadata: { annotations: { a: '1' } } } } },
      { spec: { template: { metadata: { annotations: { $patch: 'delete' } } } } },
      { spec: { template: { metadata: { annotations: {} } } } },
    ],
    [
      '$patch: delete on a missing map leaves it absent',
      'Pod',
      { metadata: {} },
      { metadata: { annotations: { $patch: 'delete' } } },
      { metadata: {} },
    ],
    ['top-level $patch: replace', 'Pod', { a: 1, b: 2 }, { $patch: 'replace', c: 3 }, { c: 3 }],
    ['top-level $patch: delete', 'Pod', { a: 1 }, { $patch: 'delete' }, {}],
    [
      '$retainKeys clears keys not listed (Deployment strategy switch)',
      'Deployment',
      { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } },
      { spec: { strategy: { type: 'Recreate' } } },
    ],
    [
      'retainKeys strategy without the directive merges',
      'Deployment',
      { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
      { spec: { strategy: { rollingUpdate: { maxUnavailable: 0 } } } },
      { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } },
    ],
    [
      '$retainKeys in a volume switches its source',
      'Pod',
      {
        spec: {
          volumes: [
            { name: 'v', configMap: { name: 'cm' } },
            { name: 'w', emptyDir: {} },
          ],
        },
      },
      { spec: { volumes: [{ name: 'v', secret: { secretName: 's' }, $retainKeys: ['name', 'secret'] }] } },
      {
        spec: {
          volumes: [
            { name: 'v', secret: { secretName: 's' } },
            { name: 'w', emptyDir: {} },
          ],
        },
      },
    ],
    [
      'a map with the replace strategy is replaced (PDB selector)',
      'PodDisruptionBudget',
      { spec: { selector: { matchLabels: { a: '1' } }, minAvailable: 1 } },
      { spec: { selector: { matchExpressions: [{ key: 'b', operator: 'Exists' }] } } },
      { spec: { selector: { matchExpressions: [{ key: 'b', operator: 'Exists' }] }, minAvailable: 1 } },
    ],
    [
      'a kind without a schema still merges maps',
      'Widget',
      { spec: { a: { b: 1, c: 2 } } },
      { spec: { a: { b: null, d: 3 } } },
      { spec: { a: { c: 2, d: 3 } } },
    ],
    [
      'directive keys inside appended items are dropped, as kube decoding does',
      'Pod',
      { spec: { containers: [{ name: 'a' }], volumes: [{ name: 'v', emptyDir: {} }] } },
      {
        spec: {
          containers: [{ name: 'b', '$setElementOrder/env': [{ name: 'X' }], env: [{ name: 'X', value: '1' }] }],
          volumes: [{ name: 'w', $retainKeys: ['name', 'secret'], secret: { secretName: 's' } }],
        },
      },
      {
        spec: {
          containers: [{ name: 'b', env: [{ name: 'X', value: '1' }] }, { name: 'a' }],
          volumes: [
            { name: 'w', secret: { secretName: 's' } },
            { name: 'v', emptyDir: {} },
          ],
        },
      },
    ],
    ['a null patch changes nothing', 'Pod', { a: 1 }, null, { a: 1 }],
    ['a null original is an empty object', 'Pod', null, { a: { b: null, c: 1 } }, { a: { c: 1 } }],
  ];
  for (const [name, kind, original, patch, want] of cases) {
    it(name, () => assert.deepEqual(applyStrategicMergePatch(original, patch, mergeSchemaFor(kind)), want));
  }
});

describe('strategic merge patch: errors', () => {
  const cases: [name: string, kind: string, original: unknown, patch: unknown, message: string, code: number][] = [
    ['original is not an object', 'Pod', [1], {}, 'invalid JSON document', 400],
    ['patch is not an object', 'Pod', {}, 'x', 'invalid JSON document', 400],
    [
      'patch item without the merge key',
      'Pod',
      { spec: { containers: [{ name: 'a' }] } },
      { spec: { containers: [{ image: 'nginx' }] } },
      'map: map[image:nginx] does not contain declared merge key: name',
      500,
    ],
    [
      'delete directive without the merge key',
      'Pod',
      { spec: { containers: [{ name: 'a' }] } },
      { spec: { containers: [{ $patch: 'delete', image: 'x' }] } },
      'map: map[$patch:delete image:x] does not contain declared merge key: name',
      500,
    ],
    [
      '$patch: merge in a list',
      'Pod',
      { spec: { containers: [{ name: 'a' }] } },
      { spec: { containers: [{ name: 'a', $patch: 'merge' }] } },
      'merging lists cannot yet be specified in the patch',
      500,
    ],
    [
      '$patch: merge in a map',
      'Pod',
      { metadata: { labels: {} } },
      { metadata: { labels: { $patch: 'merge', a: 'b' } } },
      'unknown patch type: merge in map: map[$patch:merge a:b]',
      500,
    ],
    [
      'unknown $patch in a list',
      'Pod',
      { spec: { containers: [{ name: 'a' }] } },
      { spec: { containers: [{ name: 'a', $patch: 'frob' }] } },
      'unknown patch type: frob in map: map[$patch:frob name:a]',
      500,
    ],
    [
      'patch order contradicting $setElementOrder',
      'Pod',
      { spec: { containers: [{ name: '1' }, { name: '3' }, { name: '2' }] } },
      {
        spec: {
          '$setElementOrder/containers': [{ name: '1' }, { name: '2' }, { name: '3' }],
          containers: [
            { name: '3', v: 3 },
            { name: '1', v: 1 },
          ],
        },
      },
      "The order in patch list:\n[map[name:3 v:3] map[name:1 v:1]]\n doesn't match $setElementOrder list:\n[map[name:1] map[name:2] map[name:3]]\n",
      500,
    ],
    [
      '$setElementOrder that is not a list',
      'Pod',
      { spec: {} },
      { spec: { '$setElementOrder/containers': 'x' } },
      'expected a []interface {}, but received a string',
      500,
    ],
    [
      'malformed $setElementOrder key',
      'Pod',
      { spec: {} },
      { spec: { $setElementOrder: [] } },
      'invalid patch format of setElementOrder list',
      400,
    ],
    [
      'malformed $deleteFromPrimitiveList key',
      'Pod',
      { metadata: {} },
      { metadata: { $deleteFromPrimitiveListfinalizers: ['a'] } },
      'invalid patch format of primitive list',
      400,
    ],
    [
      '$retainKeys that is not a list',
      'Deployment',
      { spec: { strategy: {} } },
      { spec: { strategy: { $retainKeys: 'type' } } },
      'invalid patch format of retainKeys',
      400,
    ],
    [
      'a patch key missing from $retainKeys',
      'Deployment',
      { spec: { strategy: {} } },
      { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } },
      'invalid patch format of retainKeys',
      400,
    ],
    [
      'lists of lists',
      'Node',
      { metadata: { finalizers: [['a']] } },
      { metadata: { finalizers: [['b']] } },
      'lists of lists are not supported',
      422,
    ],
    [
      'mixed element types',
      'Node',
      { metadata: { finalizers: ['a'] } },
      { metadata: { finalizers: [1] } },
      'list element types are not identical: [[a] [1]]',
      500,
    ],
    [
      'a merged list of maps with no merge key',
      'Node',
      { metadata: { finalizers: [{ a: 1 }] } },
      { metadata: { finalizers: [{ a: 2 }] } },
      'cannot merge lists without merge key for string',
      500,
    ],
  ];
  for (const [name, kind, original, patch, message, code] of cases) {
    it(name, () => {
      assert.throws(
        () => applyStrategicMergePatch(original, patch, mergeSchemaFor(kind)),
        (err: unknown) => {
          assert.ok(err instanceof PatchError);
          assert.equal(err.message, message);
          assert.equal(err.code, code);
          return true;
        },
      );
    });
  }
});

describe('strategic merge patch: purity', () => {
  it('never modifies the original or the patch', () => {
    const original = {
      metadata: { finalizers: ['a', 'b'], labels: { x: '1' } },
      spec: { containers: [{ name: 'a', env: [{ name: 'A', value: '1' }] }, { name: 'b' }] },
    };
    const patch = {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], labels: { x: null, y: '2' } },
      spec: {
        '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }],
        containers: [{ name: 'a', env: [{ name: 'A', $patch: 'delete' }] }],
      },
    };
    const originalBefore = structuredClone(original);
    const patchBefore = structuredClone(patch);
    const out = applyStrategicMergePatch(original, patch, mergeSchemaFor('Pod'));
    assert.deepEqual(out, {
      metadata: { finalizers: ['b'], labels: { y: '2' } },
      spec: { containers: [{ name: 'b' }, { name: 'a', env: [] }] },
    });
    assert.deepEqual(original, originalBefore);
    assert.deepEqual(patch, patchBefore);
  });
});
