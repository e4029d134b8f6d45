// Table tests for JSON merge patch, including the RFC 7396 appendix examples
// and evanphx/json-patch's null pruning.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyMergePatch } from './merge-patch.ts';
import { PatchError } from './patch-error.ts';

describe('applyMergePatch', () => {
  const cases: [name: string, doc: unknown, patch: unknown, want: unknown][] = [
    // RFC 7396 appendix A (those with an object document and patch).
    ['replace a value', { a: 'b' }, { a: 'c' }, { a: 'c' }],
    ['add a key', { a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    ['null deletes', { a: 'b' }, { a: null }, {}],
    ['null deletes one of two', { a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    ['arrays replace', { a: ['b'] }, { a: 'c' }, { a: 'c' }],
    ['value replaced by array', { a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    ['nested merge and delete', { a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    ['arrays are not merged', { a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    ['nulls in new objects are pruned', { e: null }, { a: 1 }, { e: null, a: 1 }],
    ['new nested object is pruned of nulls', {}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ['null deleting a missing key is a no-op', { a: 1 }, { b: null }, { a: 1 }],
    ['empty patch', { a: 1 }, {}, { a: 1 }],
    // kube-flavoured cases
    [
      'labels merge, one removed',
      { metadata: { labels: { a: '1', b: '2' } } },
      { metadata: { labels: { b: null, c: '3' } } },
      { metadata: { labels: { a: '1', c: '3' } } },
    ],
    [
      'containers list replaced whole',
      { spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
      { spec: { containers: [{ name: 'c' }] } },
      { spec: { containers: [{ name: 'c' }] } },
    ],
    [
      'nulls inside objects inside a new array are pruned, null elements kept',
      {},
      { l: [{ a: null, b: 1 }, null] },
      { l: [{ b: 1 }, null] },
    ],
    ['an object over a primitive is pruned', { a: 's' }, { a: { x: null, y: 1 } }, { a: { y: 1 } }],
    ['an array over an object is taken as is', { a: { x: 1 } }, { a: [{ y: null }] }, { a: [{ y: null }] }],
    ['a document that is not an object becomes the pruned patch', [1, 2], { a: null, b: 1 }, { b: 1 }],
    ['an array patch becomes the result', { a: 1 }, [{ x: null }], [{}]],
  ];
  for (const [name, doc, patch, want] of cases) {
    it(name, () => assert.deepEqual(applyMergePatch(doc, patch), want));
  }

  const errors: [name: string, doc: unknown, patch: unknown, message: string, code: number][] = [
    ['null patch', {}, null, 'Invalid JSON Patch', 400],
    ['string patch', {}, 'x', 'Invalid JSON Patch', 400],
    ['null document', null, {}, 'Invalid JSON Document', 500],
  ];
  for (const [name, doc, patch, message, code] of errors) {
    it(`rejects: ${name}`, () => {
      assert.throws(
        () => applyMergePatch(doc, patch),
        (err: unknown) => err instanceof PatchError && err.message === message && err.code === code,
      );
    });
  }

  it('never modifies its inputs', () => {
    const doc = { a: { b: 1, c: [1] }, d: 1 };
    const patch = { a: { b: null, e: { f: null } }, d: null };
    const docBefore = structuredClone(doc);
    const patchBefore = structuredClone(patch);
    assert.deepEqual(applyMergePatch(doc, patch), { a: { c: [1], e: {} } });
    assert.deepEqual(doc, docBefore);
    assert.deepEqual(patch, patchBefore);
  });
});
