// Chaos Mesh's selection modes: how many each picks, that picks are distinct
// members of the list, that a seed repeats a selection, and the refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SelectionError, selectPods } from './select-pods.ts';
import type { SelectionMode } from '../../shared/chaos/protocol.ts';

const pods = (n: number) => Array.from({ length: n }, (_, i) => `pod-${i}`);

test('each mode selects as many as Chaos Mesh does', () => {
  const cases: [SelectionMode, number | undefined, number, number][] = [
    // mode, value, of how many, how many selected
    ['one', undefined, 5, 1],
    ['one', undefined, 1, 1],
    ['all', undefined, 5, 5],
    ['fixed', 2, 5, 2],
    ['fixed', 5, 5, 5],
    ['fixed', 9, 5, 5],
    ['fixed-percent', 50, 5, 2], // floor(2.5)
    ['fixed-percent', 100, 5, 5],
    ['fixed-percent', 10, 5, 0], // floor(0.5): none
    ['fixed-percent', 34, 3, 1],
    ['fixed-percent', 67, 3, 2],
  ];
  for (const [mode, value, n, want] of cases) {
    for (const seed of [1, 2, 3]) {
      const got = selectPods(pods(n), mode, value, seed);
      assert.equal(got.length, want, `${mode} ${value} of ${n} (seed ${seed})`);
      assert.equal(new Set(got).size, got.length, 'distinct');
      for (const p of got) assert.ok(pods(n).includes(p));
    }
  }
});

test('random-max-percent selects between 0 and floor(count * N / 100), and reaches both ends over seeds', () => {
  const counts = new Set<number>();
  for (let seed = 0; seed < 400; seed++) {
    const got = selectPods(pods(10), 'random-max-percent', 30, seed);
    assert.ok(got.length <= 3, `seed ${seed}: ${got.length}`);
    counts.add(got.length);
  }
  assert.deepEqual([...counts].sort(), [0, 1, 2, 3]);
});

test('a seed repeats the selection; other seeds pick others', () => {
  const a = selectPods(pods(20), 'fixed', 5, 42);
  assert.deepEqual(selectPods(pods(20), 'fixed', 5, 42), a);
  const seen = new Set<string>();
  for (let seed = 0; seed < 50; seed++) seen.add(selectPods(pods(20), 'one', undefined, seed)[0]);
  assert.ok(seen.size > 5, `one at random over 50 seeds hit ${seen.size} pods`);
});

test('all keeps the order; the list given is not changed', () => {
  const list = pods(4);
  assert.deepEqual(selectPods(list, 'all', undefined, 1), list);
  selectPods(list, 'fixed', 2, 1);
  assert.deepEqual(list, pods(4));
});

test('refusals, as Chaos Mesh refuses them', () => {
  const cases: [string[], SelectionMode, number | undefined, RegExp][] = [
    [[], 'one', undefined, /no pods match/],
    [pods(3), 'fixed', undefined, /needs an integer value/],
    [pods(3), 'fixed', 0, /below or equal 0/],
    [pods(3), 'fixed', 1.5, /needs an integer value/],
    [pods(3), 'fixed-percent', 0, /below or equal 0/],
    [pods(3), 'fixed-percent', 101, /must be \(0,100\]/],
    [pods(3), 'random-max-percent', undefined, /needs an integer value/],
    [pods(3), 'random-max-percent', -5, /below or equal 0/],
    [pods(3), 'bogus' as SelectionMode, 1, /not supported/],
  ];
  for (const [items, mode, value, want] of cases) {
    assert.throws(
      () => selectPods(items, mode, value, 1),
      (e: unknown) => e instanceof SelectionError && want.test(e.message),
      `${mode} ${value}`,
    );
  }
});
