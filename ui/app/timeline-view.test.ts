// followWindow: "follow" keeps its window while every write fits, and moves
// in steps with room ahead, so that a live page mostly appends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Change } from '../../shared/api/history-types.ts';
import { followWindow } from './timeline-view.tsx';

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
