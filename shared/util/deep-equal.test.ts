import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deepEqual } from './deep-equal.ts';

test('deepEqual compares JSON values regardless of key order', () => {
  const cases: [unknown, unknown, boolean][] = [
    [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: undefined }, true],
    [[1, 2], [2, 1], false],
    [{ a: null }, { a: 0 }, false],
    [{ a: {} }, { a: [] }, false],
    ['x', 'x', true],
  ];
  for (const [a, b, want] of cases) assert.equal(deepEqual(a, b), want, JSON.stringify([a, b]));
});
