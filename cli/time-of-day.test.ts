import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timeOfDay } from './time-of-day.ts';

test('epoch ms and RFC 3339 give the same local time of day; absent is empty', () => {
  const ms = new Date(2026, 11, 3, 9, 4, 5, 7).getTime();
  assert.equal(timeOfDay(ms), '09:04:05.007');
  assert.equal(timeOfDay(new Date(ms).toISOString()), '09:04:05.007');
  assert.equal(timeOfDay(undefined), '');
});
