// Tests for the port of Go's sort.SliceStable: a true stable sort for a
// strict order, at sizes that exercise both the insertion and merge phases.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { goSliceStable } from './go-sort.ts';

describe('goSliceStable', () => {
  for (const n of [0, 1, 2, 19, 20, 21, 40, 41, 100, 257]) {
    it(`sorts ${n} items stably`, () => {
      // Pseudo-random keys with many ties; the index records the input order.
      let seed = n + 7;
      const items = Array.from({ length: n }, (_, i) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return { key: seed % 7, i };
      });
      const want = [...items].sort((a, b) => a.key - b.key || a.i - b.i);
      assert.deepEqual(
        goSliceStable(items, (a, b) => a.key < b.key),
        want,
      );
    });
  }

  it("keeps Go's result for kube's non-strict comparator (unknown items claim to be less)", () => {
    // Items missing from `order` compare as less than anything, in either direction.
    const order = ['b', 'a'];
    const less = (x: string, y: string): boolean => {
      const ix = order.indexOf(x);
      const iy = order.indexOf(y);
      return ix >= 0 && iy >= 0 ? ix < iy : true;
    };
    // Insertion sort: 'z' is swapped leftwards past everything.
    assert.deepEqual(goSliceStable(['a', 'b', 'z'], less), ['z', 'b', 'a']);
  });
});
