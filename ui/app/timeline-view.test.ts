// followWindow: "follow" keeps its window while every write fits, and moves
// in steps with room ahead, so that a live page mostly appends; writesAfter:
// what a page appends, also once its bounded list drops writes at the front.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Change } from '../../shared/api/history-types.ts';
import { followWindow, writesAfter } from './timeline-view.tsx';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const write = (revision: number, s: number): Change => ({
  revision: String(revision),
  type: 'MODIFIED',
  time: new Date(T0 + s * 1000).toISOString(),
  object: { group: '', resource: 'pods', name: 'p' },
});

test('follow keeps its window while the writes fit, and leaves room ahead when it moves', () => {
  const first = followWindow([write(1, 0), write(2, 20)], undefined);
  assert.ok(first.from < T0 && first.to >= T0 + 30_000, JSON.stringify(first));
  assert.equal(followWindow([write(1, 0), write(2, 20), write(3, 29)], first), first);
  const moved = followWindow([write(1, 0), write(2, 20), write(3, 31)], first);
  assert.notEqual(moved, first);
  assert.ok(moved.to >= T0 + 31_000 + 15_000, JSON.stringify(moved));
});

test('the writes to append are those after the newest drawn, also when older ones left the front of the list', () => {
  const all = [1, 2, 3, 4, 5, 6].map((r) => write(r, r));
  assert.deepEqual(writesAfter(all.slice(0, 6), all[3]), all.slice(4));
  // The page keeps a bounded list: two writes came, the two oldest went.
  assert.deepEqual(writesAfter(all.slice(2, 6), all[3]), all.slice(4));
  assert.deepEqual(writesAfter(all.slice(0, 4), all[3]), []);
  assert.deepEqual(writesAfter(all, undefined), all);
  // The newest drawn is gone (cut away), or the list began again with other objects: draw anew.
  assert.equal(writesAfter(all.slice(4), all[3]), undefined);
  assert.equal(writesAfter([write(4, 4), write(5, 5)], all[3]), undefined);
});
